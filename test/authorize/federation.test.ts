/**
 * acr_values=idp:NAME end to end: a second idp on another port (and host name, so the two keep
 * their own cookies) is the external OpenID provider. The code flow with PKCE and nonce runs
 * against it, and the returning user is created once and then found again by iss + sub.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { TOTP } from 'otpauth';
import type { RunningServer } from '../../server/serve.js';
import { startTestServer } from '../database.js';
import { findAppUserByLogin } from '../../src/identity/sign-in/authenticate.js';
import { SoftAuthenticator } from './soft-authenticator.js';
import {
  api,
  authorizeAsUser,
  Browser,
  createAppUser,
  createClient,
  createFixture,
  decodeEntities,
  exchangeCode,
  passkeyEnrollmentOf,
  redirectOf,
  REDIRECT,
  startIdp,
  USER,
  type Fixture,
  type RegisteredClient,
} from './support.js';

const ERIN = { username: 'erin', email: 'erin@partner.example', name: 'Erin External', password: 'erins-password-1' };

let home: Fixture;
let partner: Fixture;
let client: RegisteredClient;

beforeAll(async () => {
  home = await createFixture(await startIdp());
  const external: RunningServer = await startTestServer({ host: 'localhost', port: '0' });
  partner = await createFixture(external);
  await createAppUser(partner, ERIN);
  const rp = await createClient(partner, {
    redirect_uris: [`${home.url}/connect/federation/callback`],
    grant_types: ['authorization_code'],
    response_types: ['code'],
    require_consent: false,
    scope: 'openid profile email',
  });
  await api(home, 'POST', '/management/orgs/acme/apps/shop/identity-providers', {
    name: 'partner',
    issuer: partner.url,
    client_id: rp.client_id,
    client_secret: rp.client_secret,
  });
  client = await createClient(home, { require_pkce: false, require_consent: false, identity_providers: ['partner'] });
});
afterAll(async () => {
  await home.server.close();
  await partner.server.close();
});

function authorizeUrl(extra: Record<string, string> = {}): string {
  return `/connect/authorize?${new URLSearchParams({ client_id: client.client_id, redirect_uri: REDIRECT, response_type: 'code', scope: 'openid profile email', state: 'fed', nonce: 'home-nonce', acr_values: 'idp:partner', ...extra })}`;
}

/** Through the partner's sign-in (as `who`) and back; returns the answer to the callback. */
async function federate(browser: Browser, who = ERIN): Promise<Response> {
  const start = await browser.get(authorizeUrl());
  const away = redirectOf(start);
  expect(away.url.origin).toBe(partner.url);
  expect(away.query.get('code_challenge_method')).toBe('S256');
  expect(away.query.get('nonce')).toBeTruthy();
  expect(away.query.get('redirect_uri')).toBe(`${home.url}/connect/federation/callback`);
  const back = await authorizeAsUser(browser, away.url.toString(), who);
  expect(redirectOf(back).url.pathname).toBe('/connect/federation/callback');
  return browser.get(back.headers.get('location')!);
}

async function exchange(code: string): Promise<Record<string, unknown>> {
  return decodeJwt((await exchangeCode(home, client, code)).id_token);
}

describe('federation with an external OpenID provider', () => {
  it('signs in through the provider, creates the user, and finds them again by iss + sub', async () => {
    const first = await federate(new Browser(home.url));
    const { query } = redirectOf(first);
    expect(query.get('state')).toBe('fed');
    const claims = await exchange(query.get('code')!);
    expect(claims).toMatchObject({ preferred_username: 'erin', email: 'erin@partner.example', nonce: 'home-nonce' });
    const user = await findAppUserByLogin(home.server.deps, home.appUuid, 'erin');
    expect(user?.uuid).toBe(claims.sub);
    expect(user?.properties).toMatchObject({ username: 'erin', email: 'erin@partner.example' });

    const second = await federate(new Browser(home.url));
    expect((await exchange(redirectOf(second).query.get('code')!)).sub).toBe(claims.sub);
  });

  it('a federated session signs in silently for idp:partner; a password session does not count', async () => {
    const browser = new Browser(home.url);
    const federated = await exchange(redirectOf(await federate(browser)).query.get('code')!);
    const silent = await exchange(redirectOf(await browser.get(authorizeUrl({ prompt: 'none' }))).query.get('code')!);
    expect(silent).toMatchObject({ sub: federated.sub, preferred_username: 'erin', auth_time: federated.auth_time });

    const passwordBrowser = new Browser(home.url);
    await authorizeAsUser(
      passwordBrowser,
      `/connect/authorize?${new URLSearchParams({ client_id: client.client_id, redirect_uri: REDIRECT, response_type: 'code', scope: 'openid' })}`,
      USER,
    );
    expect(redirectOf(await passwordBrowser.get(authorizeUrl({ prompt: 'none' }))).query.get('error')).toBe('interaction_required');
  });

  it('the sign-in page offers the providers the client may use', async () => {
    const html = await (
      await new Browser(home.url).get(
        `/connect/authorize?${new URLSearchParams({ client_id: client.client_id, redirect_uri: REDIRECT, response_type: 'code', scope: 'openid' })}`,
      )
    ).text();
    expect(html).toContain('Sign in with partner');
    expect(html).toContain('acr_values=idp%3Apartner');
  });

  it('a provider that cannot be reached is temporarily_unavailable for the client', async () => {
    await api(home, 'POST', '/management/orgs/acme/apps/shop/identity-providers', { name: 'gone', issuer: 'http://127.0.0.1:1', client_id: 'x' });
    const gone = await createClient(home, { require_pkce: false, identity_providers: ['gone'] });
    const url = `/connect/authorize?${new URLSearchParams({ client_id: gone.client_id, redirect_uri: REDIRECT, response_type: 'code', scope: 'openid', state: 'g', acr_values: 'idp:gone' })}`;
    const { query } = redirectOf(await new Browser(home.url).get(url));
    expect(query.get('error')).toBe('temporarily_unavailable');
    expect(query.get('state')).toBe('g');
  });

  it('a callback with an unknown state shows the error page', async () => {
    const response = await new Browser(home.url).get('/connect/federation/callback?code=x&state=forged');
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('data-error="federation_failed"');
  });

  it('the provider refusing sends access_denied to the client', async () => {
    const browser = new Browser(home.url);
    const away = redirectOf(await browser.get(authorizeUrl()));
    const response = await browser.get(`/connect/federation/callback?error=access_denied&state=${away.query.get('state')}`);
    const { query } = redirectOf(response);
    expect(query.get('error')).toBe('access_denied');
    expect(query.get('state')).toBe('fed');
  });
});

describe('federation when the application requires a second factor', () => {
  const FRANK = { username: 'frank', email: 'frank@partner.example', name: 'Frank External', password: 'franks-password-1' };
  const setting = (secondFactorRequired: boolean | null) =>
    fetch(`${home.url}/management/orgs/acme/apps/shop`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${home.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ secondFactorRequired }),
    });
  const hasSessionCookie = (response: Response) => response.headers.getSetCookie().some((cookie) => cookie.startsWith('idp_session='));
  const idTokenOf = async (response: Response) => exchange(redirectOf(response).query.get('code')!);
  /** Back from the provider as Frank: a page of this server, with no session yet. */
  async function heldAfterProvider(browser: Browser): Promise<string> {
    const returned = await federate(browser, FRANK);
    expect(returned.status).toBe(200);
    expect(hasSessionCookie(returned)).toBe(false);
    return returned.text();
  }

  beforeAll(async () => {
    await createAppUser(partner, FRANK);
    expect((await setting(true)).status).toBe(200);
  });
  afterAll(async () => {
    await setting(null);
  });

  it('has a user without a factor set one up after the provider, then issues fed, otp, mfa; the next time asks for the factor', async () => {
    const browser = new Browser(home.url);
    const page = await heldAfterProvider(browser);
    expect(page).toContain('Set up two-step verification');
    expect(page).toContain('action="/connect/authorize/enroll"');
    // Not signed in (not even through the provider's session) until the factor is set up.
    expect(redirectOf(await browser.get(authorizeUrl({ prompt: 'none' }))).query.get('error')).toBe('login_required');
    const user = await findAppUserByLogin(home.server.deps, home.appUuid, 'frank');
    expect(user).toBeDefined();
    expect((await api(home, 'GET', `/acme/shop/users/${user!.uuid}/factors`)).entities).toMatchObject([{ type: 'totp', status: 'pending' }]);

    const secret = decodeEntities(/<code id="totp-secret">([A-Z2-7]+)<\/code>/.exec(page)![1]!);
    const code = new TOTP({ secret, algorithm: 'SHA1', digits: 6, period: 30 }).generate({ timestamp: Date.now() });
    const done = await browser.submit(page, { otp: code }, '/connect/authorize/enroll');
    expect(done.status).toBe(200);
    const codesPage = await done.text();
    const codes = [...codesPage.matchAll(/<li><code>([^<]+)<\/code><\/li>/g)].map((match) => match[1]!);
    expect(codes).toHaveLength(10);
    const enrolled = await idTokenOf(await browser.submit(codesPage, {}, '/connect/authorize/enrolled'));
    expect(enrolled).toMatchObject({ sub: user!.uuid, amr: ['fed', 'otp', 'mfa'], acr: 'urn:idp:acr:mfa' });
    // The session is the provider's still: idp:partner signs in silently.
    expect(await idTokenOf(await browser.get(authorizeUrl({ prompt: 'none' })))).toMatchObject({ sub: user!.uuid, amr: ['fed', 'otp', 'mfa'] });

    // Through the provider again, in a new browser: the second-factor page, before any session.
    const next = new Browser(home.url);
    const askPage = await heldAfterProvider(next);
    expect(askPage).toContain('action="/connect/authorize/otp"');
    const wrong = await next.submit(askPage, { otp: 'not-a-code' }, '/connect/authorize/otp');
    expect(wrong.status).toBe(400);
    expect(hasSessionCookie(wrong)).toBe(false);
    const passed = await next.submit(await wrong.text(), { otp: codes[0]! }, '/connect/authorize/otp');
    expect(await idTokenOf(passed)).toMatchObject({ sub: user!.uuid, amr: ['fed', 'otp', 'mfa'], acr: 'urn:idp:acr:mfa' });
  });

  it('takes a passkey instead of the app after the provider: fed, hwk, mfa and acr phr', async () => {
    const GRACE = { username: 'grace', email: 'grace@partner.example', name: 'Grace External', password: 'graces-password-1' };
    await createAppUser(partner, GRACE);
    const browser = new Browser(home.url);
    const back = await federate(browser, GRACE);
    expect(back.status).toBe(200);
    const passkey = passkeyEnrollmentOf(browser, await back.text());
    const started = (await (await passkey.start({ name: 'Key' })).json()) as { id: string; options: Record<string, unknown> };
    const verified = await passkey.verify({ id: started.id, response: new SoftAuthenticator(home.url).create(started.options) });
    expect(verified.status).toBe(200);
    const { next } = (await verified.json()) as { next: string };
    const user = await findAppUserByLogin(home.server.deps, home.appUuid, 'grace');
    expect(await idTokenOf(await browser.get(next))).toMatchObject({ sub: user!.uuid, amr: ['fed', 'hwk', 'mfa'], acr: 'urn:idp:acr:phr' });
  });

  it("leaves the provider's sign-in as it is once the application no longer requires a factor", async () => {
    expect((await setting(false)).status).toBe(200);
    try {
      const claims = await idTokenOf(await federate(new Browser(home.url), FRANK));
      expect(claims.amr).toEqual(['fed']);
      expect(claims.acr).toBeUndefined();
    } finally {
      expect((await setting(true)).status).toBe(200);
    }
  });
});
