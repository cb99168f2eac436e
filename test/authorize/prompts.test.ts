/**
 * Single sign-on and the prompt / max_age rules, each path its own test: silent sign-in,
 * prompt=none's three errors, prompt=login, prompt=consent, max_age, remembered and denied consent.
 * Every code a test gets back is exchanged at /connect/token, and the tokens show what the prompt
 * decided: who signed in, when (`auth_time`), for which client and scope.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt, type JWTPayload } from 'jose';
import {
  authorizeAsUser,
  Browser,
  createAppUser,
  createClient,
  createFixture,
  exchangeCode,
  formOf,
  redirectOf,
  REDIRECT,
  startIdp,
  USER,
  ADMIN,
  type Fixture,
  type RegisteredClient,
  type TokenAnswer,
} from './support.js';
import { pkcePair } from '../oauth/fixtures.js';

import { snapshot, type Clock } from '../helpers.js';

let fixture: Fixture;
let client: RegisteredClient;
let noConsent: RegisteredClient;
// The server's clock: sessions grow older than max_age, and sign-ins a second apart, when a test moves it.
const clock: Clock = { now: Date.now() };

beforeAll(async () => {
  fixture = await createFixture(await startIdp({ now: () => clock.now }));
  client = await createClient(fixture, { require_pkce: false });
  noConsent = await createClient(fixture, { require_pkce: false, require_consent: false });
});
afterAll(() => fixture.server.close());

function authorizeUrl(clientId: string, extra: Record<string, string> = {}): string {
  return `/connect/authorize?${new URLSearchParams({ client_id: clientId, redirect_uri: REDIRECT, response_type: 'code', scope: 'openid profile', state: 'st', ...extra })}`;
}

interface Exchanged extends TokenAnswer {
  /** The ID token's claims. */
  id: JWTPayload;
}

/** Exchanges the code the authorize answer `response` redirected with; the tokens and the ID token's claims. */
async function exchange(response: Response, party: RegisteredClient = client, options: Parameters<typeof exchangeCode>[3] = {}): Promise<Exchanged> {
  const code = redirectOf(response).query.get('code');
  expect(code, 'the redirect carries a code').toEqual(expect.any(String));
  const tokens = await exchangeCode(fixture, party, code!, options);
  return { ...tokens, id: decodeJwt(tokens.id_token) };
}

/** What every ID token of bob at `party` says, `auth_time` included (OIDC Core 2). */
function expectBob(tokens: Exchanged, party: RegisteredClient = client): void {
  expect(tokens.id).toMatchObject({ iss: fixture.url, sub: fixture.userUuid, aud: party.client_id, auth_time: expect.any(Number) });
}

/**
 * A browser signed in to the app (and having consented to `client`), and the ID token of that
 * sign-in: later silent answers carry its `auth_time`.
 */
async function signedInBrowser(): Promise<{ browser: Browser; signIn: JWTPayload }> {
  const browser = new Browser(fixture.url);
  const tokens = await exchange(await authorizeAsUser(browser, authorizeUrl(client.client_id)));
  expectBob(tokens);
  return { browser, signIn: tokens.id };
}

/** An ID token of bob from the same sign-in as `signIn`: no new authentication happened. */
function expectSameSignIn(tokens: Exchanged, signIn: JWTPayload, party: RegisteredClient = client): void {
  expectBob(tokens, party);
  expect(tokens.id.auth_time).toBe(signIn.auth_time);
}

/** A second passes on the server's clock, so a new sign-in has a later `auth_time` (whole seconds) than the last. */
function nextSecond(): void {
  clock.now += 1000;
}

async function pageKind(response: Response): Promise<'sign-in' | 'consent' | 'other'> {
  const html = await response.text();
  if (html.includes('action="/connect/authorize/login"')) return 'sign-in';
  if (html.includes('action="/connect/authorize/consent"')) return 'consent';
  return 'other';
}

describe('single sign-on', () => {
  it('a valid session signs in silently, without sign-in or consent page', async () => {
    const { browser, signIn } = await signedInBrowser();
    const response = await browser.get(authorizeUrl(client.client_id, { state: 'again' }));
    const { query } = redirectOf(response);
    expect(query.get('state')).toBe('again');
    expect(query.get('iss')).toBe(fixture.url);
    expectSameSignIn(await exchange(response), signIn);
  });

  it('a session of the app is shared by its clients; a client needing consent still asks once', async () => {
    const { browser, signIn } = await signedInBrowser();
    expectSameSignIn(await exchange(await browser.get(authorizeUrl(noConsent.client_id)), noConsent), signIn, noConsent);
    const other = await createClient(fixture, { require_pkce: false });
    expect(await pageKind(await browser.get(authorizeUrl(other.client_id)))).toBe('consent');
  });
});

describe('prompt', () => {
  it('prompt=none without a session returns login_required to the client', async () => {
    const { query } = redirectOf(await new Browser(fixture.url).get(authorizeUrl(client.client_id, { prompt: 'none' })));
    expect(query.get('error')).toBe('login_required');
    expect(query.get('state')).toBe('st');
    expect(query.get('error_description')).toBeTruthy();
  });

  it('prompt=none with a session but no consent returns consent_required', async () => {
    const { browser } = await signedInBrowser();
    const other = await createClient(fixture, { require_pkce: false });
    const { query } = redirectOf(await browser.get(authorizeUrl(other.client_id, { prompt: 'none' })));
    expect(query.get('error')).toBe('consent_required');
  });

  it('prompt=none with a session that cannot be used (another tenant) returns interaction_required', async () => {
    // An admin signed in at admin-cli for tenant acme, then asked for a tenant they are not in.
    await fetch(`${fixture.url}/management/orgs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ organization: 'globex', username: 'gina', name: 'Gina', email: 'gina@example.com', password: 'ginas-password' }),
    });
    const browser = new Browser(fixture.url);
    const { verifier, challenge } = pkcePair();
    const cliRedirect = 'http://127.0.0.1:5555/cb';
    const cli = (extra: Record<string, string>) =>
      `/connect/authorize?${new URLSearchParams({ client_id: 'admin-cli', redirect_uri: cliRedirect, response_type: 'code', scope: 'openid profile api', code_challenge: challenge, code_challenge_method: 'S256', ...extra })}`;
    const signedIn = await authorizeAsUser(browser, cli({ acr_values: 'tenant:acme' }), { ...USER, username: ADMIN.username, password: ADMIN.password });
    const admin = await exchange(signedIn, { client_id: 'admin-cli' }, { redirect_uri: cliRedirect, code_verifier: verifier });
    expect(admin.id).toMatchObject({ aud: 'admin-cli', preferred_username: ADMIN.username });
    expect(admin.scope).toBe('openid profile api');
    const { query } = redirectOf(await browser.get(cli({ acr_values: 'tenant:globex', prompt: 'none' })));
    expect(query.get('error')).toBe('interaction_required');
  });

  it('prompt=none with a session and consent answers silently, from the same sign-in', async () => {
    const { browser, signIn } = await signedInBrowser();
    nextSecond();
    expectSameSignIn(await exchange(await browser.get(authorizeUrl(client.client_id, { prompt: 'none' }))), signIn);
  });

  it('prompt=login shows the sign-in page even with a valid session, and the tokens are of the new sign-in', async () => {
    const { browser, signIn } = await signedInBrowser();
    nextSecond();
    const page = await browser.get(authorizeUrl(client.client_id, { prompt: 'login' }));
    const html = await page.text();
    expect(html).toContain('action="/connect/authorize/login"');
    const after = await browser.submit(html, { login: USER.username, password: USER.password }, '/connect/authorize/login');
    const tokens = await exchange(after);
    expectBob(tokens);
    expect(tokens.id.auth_time).toBeGreaterThan(signIn.auth_time as number);
  });

  it('prompt=consent shows the consent page even when consent is remembered, and the tokens carry what was allowed', async () => {
    const { browser, signIn } = await signedInBrowser();
    const page = await browser.get(authorizeUrl(client.client_id, { prompt: 'consent', scope: 'openid profile email' }));
    const html = await page.text();
    expect(html).toContain('action="/connect/authorize/consent"');
    const tokens = await exchange(await browser.submit(html, { decision: 'allow' }, '/connect/authorize/consent'));
    expectSameSignIn(tokens, signIn);
    expect(tokens.scope).toBe('openid profile email');
    expect(tokens.id.email).toBe(USER.email);
  });

  it('prompt=none together with another value is invalid_request', async () => {
    const { query } = redirectOf(await new Browser(fixture.url).get(authorizeUrl(client.client_id, { prompt: 'none login' })));
    expect(query.get('error')).toBe('invalid_request');
  });
});

describe('max_age', () => {
  it('a session older than max_age shows the sign-in page', async () => {
    const { browser } = await signedInBrowser();
    // As old as max_age allows: still good (OIDC Core 3.1.2.1 asks for a new sign-in past it).
    clock.now += 1000;
    expect(redirectOf(await browser.get(authorizeUrl(client.client_id, { max_age: '1' }))).query.get('code')).toBeTruthy();
    clock.now += 1;
    expect(await pageKind(await browser.get(authorizeUrl(client.client_id, { max_age: '1' })))).toBe('sign-in');
  });

  it('a session older than max_age with prompt=none is login_required', async () => {
    const { browser } = await signedInBrowser();
    clock.now += 1001;
    expect(redirectOf(await browser.get(authorizeUrl(client.client_id, { max_age: '1', prompt: 'none' }))).query.get('error')).toBe('login_required');
  });

  it('max_age=0 signs in again, and the fresh sign-in counts (no loop); auth_time is in the ID token', async () => {
    const { browser } = await signedInBrowser();
    const url = `/connect/authorize?${new URLSearchParams({ client_id: noConsent.client_id, redirect_uri: REDIRECT, response_type: 'id_token', scope: 'openid', nonce: 'n-0', max_age: '0' })}`;
    // A second after signing in, the session is older than max_age=0.
    clock.now += 1000;
    expect(await pageKind(await browser.get(url))).toBe('sign-in');
    const response = await authorizeAsUser(browser, url);
    const idToken = new URLSearchParams(new URL(response.headers.get('location')!).hash.slice(1)).get('id_token')!;
    // The new sign-in's time, not the first one's (a second earlier).
    expect(decodeJwt(idToken).auth_time).toBe(Math.floor(clock.now / 1000));
  });

  it('a session younger than max_age signs in silently, from the same sign-in', async () => {
    const { browser, signIn } = await signedInBrowser();
    nextSecond();
    expectSameSignIn(await exchange(await browser.get(authorizeUrl(client.client_id, { max_age: '3600' }))), signIn);
  });

  it('max_age that is not a number is invalid_request', async () => {
    expect(redirectOf(await new Browser(fixture.url).get(authorizeUrl(client.client_id, { max_age: 'soon' }))).query.get('error')).toBe('invalid_request');
  });
});

describe('consent', () => {
  it('lists the scopes in words and is remembered per client and user', async () => {
    const other = await createClient(fixture, { require_pkce: false });
    const browser = new Browser(fixture.url);
    let response = await browser.get(authorizeUrl(other.client_id, { scope: 'openid email api' }));
    response = await browser.submit(await response.text(), { login: USER.email, password: USER.password }, '/connect/authorize/login');
    const html = await response.text();
    expect(html).toContain('See your email address');
    expect(html).toContain('Read and change your data through the API');
    expect(html).toContain('Signed in as bob');
    const allowed = await exchange(await browser.submit(html, { decision: 'allow' }, '/connect/authorize/consent'), other);
    expectBob(allowed, other);
    expect(allowed.scope).toBe('openid email api');
    expect(allowed.id.email).toBe(USER.email);
    const remembered = await exchange(await browser.get(authorizeUrl(other.client_id, { scope: 'openid email' })), other);
    expectSameSignIn(remembered, allowed.id, other);
    expect(remembered.scope).toBe('openid email');
    // A scope not allowed before asks again.
    expect(await pageKind(await browser.get(authorizeUrl(other.client_id, { scope: 'openid profile' })))).toBe('consent');
  });

  it('a consent posted after the session ended shows the sign-in page instead', async () => {
    const other = await createClient(fixture, { require_pkce: false });
    const { browser } = await signedInBrowser();
    const html = await (await browser.get(authorizeUrl(other.client_id))).text();
    const logout = await (await browser.get('/connect/endsession')).text();
    await browser.submit(logout, { decision: 'logout' }, '/connect/endsession');
    expect(await pageKind(await browser.submit(html, { decision: 'allow' }, '/connect/authorize/consent'))).toBe('sign-in');
  });

  it('deny returns access_denied with the state', async () => {
    const other = await createClient(fixture, { require_pkce: false });
    const response = await authorizeAsUser(new Browser(fixture.url), authorizeUrl(other.client_id), USER, 'deny');
    const { query } = redirectOf(response);
    expect(query.get('error')).toBe('access_denied');
    expect(query.get('state')).toBe('st');
  });
});

describe('sign-in page', () => {
  it('login_hint pre-fills the username; a wrong password shows the page again with an alert', async () => {
    const browser = new Browser(fixture.url);
    const page = await browser.get(authorizeUrl(client.client_id, { login_hint: 'bob@example.com' }));
    const html = await page.text();
    expect(html).toContain('value="bob@example.com"');
    const failed = await browser.submit(html, { login: 'bob', password: 'wrong' }, '/connect/authorize/login');
    expect(failed.status).toBe(400);
    const again = await failed.text();
    expect(again).toContain('role="alert"');
    expect(again).toContain('The username or password is not correct.');
    expect(formOf(again, '/connect/authorize/login').fields.interaction).toBe(formOf(html, '/connect/authorize/login').fields.interaction);
  });

  it("counts a user's username, email and uuid against one budget; once it is spent, 429 with Retry-After", async () => {
    const carol = { username: 'carol', email: 'carol@example.com', name: 'Carol', password: 'carols-password-1' };
    const names = [carol.username, 'Carol@Example.com', await createAppUser(fixture, carol)];
    const browser = new Browser(fixture.url);
    let html = await (await browser.get(authorizeUrl(client.client_id))).text();
    // Six wrong passwords, two by each name: each is checked, and counted in the throttle alone.
    for (let i = 0; i < 6; i += 1) {
      const before = await snapshot(fixture.server, { except: ['login_throttle'] });
      const failed = await browser.submit(html, { login: names[i % 3]!, password: 'wrong' }, '/connect/authorize/login');
      expect(failed.status).toBe(400);
      html = await failed.text();
      expect(html).toContain('The username or password is not correct.');
      expect(await snapshot(fixture.server, { except: ['login_throttle'] })).toBe(before);
    }
    // Now every name waits, even with the right password, and nothing at all is written.
    for (const name of names) {
      const before = await snapshot(fixture.server);
      const throttled = await browser.submit(html, { login: name, password: carol.password }, '/connect/authorize/login');
      expect(throttled.status).toBe(429);
      expect(throttled.headers.get('retry-after')).toBe('1');
      html = await throttled.text();
      expect(html).toContain('Too many failed attempts. Try again later.');
      expect(await snapshot(fixture.server)).toBe(before);
    }
  });

  it('is protected against framing and keeps an HttpOnly SameSite=Lax session cookie', async () => {
    const browser = new Browser(fixture.url);
    const page = await browser.get(authorizeUrl(client.client_id));
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.headers.get('cache-control')).toBe('no-store');
    const html = await page.text();
    const after = await browser.submit(html, { login: USER.username, password: USER.password }, '/connect/authorize/login');
    const cookie = after.headers.getSetCookie().find((header) => header.startsWith('idp_session='))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).not.toMatch(/Secure/);
  });

  it('refuses a form without the CSRF token', async () => {
    const browser = new Browser(fixture.url);
    const html = await (await browser.get(authorizeUrl(client.client_id))).text();
    const response = await browser.submit(html, { login: USER.username, password: USER.password, csrf_token: 'forged' }, '/connect/authorize/login');
    expect(response.status).toBe(403);
    expect(await response.text()).toContain('data-error="csrf"');
  });

  it('refuses a form from another browser (CSRF cookie missing)', async () => {
    const html = await (await new Browser(fixture.url).get(authorizeUrl(client.client_id))).text();
    const response = await new Browser(fixture.url).submit(html, { login: USER.username, password: USER.password }, '/connect/authorize/login');
    expect(response.status).toBe(403);
  });

  it('refuses an altered authorize request in the form', async () => {
    const browser = new Browser(fixture.url);
    const html = await (await browser.get(authorizeUrl(client.client_id))).text();
    const sealed = formOf(html).fields.interaction!;
    const response = await browser.submit(html, { login: USER.username, password: USER.password, interaction: `x${sealed}` }, '/connect/authorize/login');
    expect(response.status).toBe(403);
  });

  it('is in German, French or Spanish by ui_locales, and in English for other languages', async () => {
    const text = async (locales: string) => (await new Browser(fixture.url).get(authorizeUrl(client.client_id, { ui_locales: locales }))).text();
    expect(await text('de-CH en')).toContain('<html lang="de">');
    expect(await text('de')).toContain('Benutzername oder E-Mail');
    expect(await text('fr')).toContain('Mot de passe');
    expect(await text('es')).toContain('Contraseña');
    expect(await text('xx')).toContain('Username or email');
  });

  it('shows tenant:NAME and signs in only members of that organization at admin clients', async () => {
    const browser = new Browser(fixture.url);
    const { verifier, challenge } = pkcePair();
    const cliRedirect = 'http://127.0.0.1:4444/cb';
    const url = `/connect/authorize?${new URLSearchParams({ client_id: 'admin-cli', redirect_uri: cliRedirect, response_type: 'code', scope: 'openid profile', code_challenge: challenge, code_challenge_method: 'S256', acr_values: 'tenant:acme' })}`;
    const html = await (await browser.get(url)).text();
    expect(html).toContain('Organization: acme');
    await fetch(`${fixture.url}/management/orgs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ organization: 'initech', username: 'peter', name: 'Peter', email: 'peter@example.com', password: 'peters-password' }),
    });
    const refused = await browser.submit(html, { login: 'peter', password: 'peters-password' }, '/connect/authorize/login');
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('not a member of the organization acme');
    const accepted = await browser.submit(html, { login: ADMIN.username, password: ADMIN.password }, '/connect/authorize/login');
    expect(redirectOf(accepted).url.origin).toBe('http://127.0.0.1:4444');
    const admin = await exchange(accepted, { client_id: 'admin-cli' }, { redirect_uri: cliRedirect, code_verifier: verifier });
    expect(admin.id).toMatchObject({ aud: 'admin-cli', preferred_username: ADMIN.username });
  });
});
