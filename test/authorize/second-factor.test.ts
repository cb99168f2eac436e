/**
 * The sign-in page's second step (docs/api.md#second-factors), driven through the pages' forms:
 * a user with a TOTP factor gives the password, then a code, and only then is signed in; the
 * codes the tests type are computed from the secret enrollment handed out, at the server's clock.
 * The tokens of the code flow say how the user signed in (`amr`, `acr`), and refreshes keep it;
 * wrong codes feed the sign-in throttle; a recovery code works once; `acr_values` asks a
 * password-only session for the second factor (step-up); the form is CSRF-protected and bound to
 * its browser; each use or failure is an event of the application.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { TOTP } from 'otpauth';
import { api, Browser, exchangeCode, formOf, redirectOf, REDIRECT, startSignInFixture, type Fixture, type RegisteredClient } from './support.js';
import { basic } from '../oauth/fixtures.js';
import type { Clock } from '../helpers.js';

let fixture: Fixture;
let client: RegisteredClient;
// The server's clock: TOTP codes are computed at its time, and the wait of a sign-in is measured on it.
const clock: Clock = { now: Math.floor(Date.now() / 30_000) * 30_000 + 15_000 };

beforeAll(async () => {
  ({ fixture, client } = await startSignInFixture(clock, 'openid profile offline_access'));
});
afterAll(() => fixture.server.close());

interface Person {
  username: string;
  email: string;
  name: string;
  password: string;
  uuid: string;
}

let serial = 0;
/** A new app user of shop, made through the API, for each test: throttle counts and spent codes do not leak between tests. */
async function newPerson(): Promise<Person> {
  serial += 1;
  const person = { username: `carol${serial}`, email: `carol${serial}@example.com`, name: 'Carol', password: `carols-password-${serial}` };
  const created = await api(fixture, 'POST', '/acme/shop/users', person);
  return { ...person, uuid: String(created.entities[0]!.uuid) };
}

/** The code an authenticator app shows for `secret` at the server's time. */
function totpCode(secret: string): string {
  return new TOTP({ secret, algorithm: 'SHA1', digits: 6, period: 30 }).generate({ timestamp: clock.now });
}

/** The next 30-second step: a TOTP code works once, the next one comes a step later. */
function nextStep(): void {
  clock.now += 30_000;
}

/** Enrolls and activates a TOTP factor for `person` over the API, as the application's administrator. */
async function enrollTotp(person: Person): Promise<{ secret: string; recovery: string[] }> {
  const base = `/acme/shop/users/${person.username}/factors`;
  const enrolled = await api(fixture, 'POST', base, { type: 'totp' });
  const { id, secret } = enrolled.entities[0] as { id: string; secret: string };
  const verified = await api(fixture, 'POST', `${base}/${id}/verify`, { code: totpCode(secret) });
  nextStep();
  return { secret, recovery: verified.entities[0]!.recovery_codes as string[] };
}

function authorizeUrl(extra: Record<string, string> = {}): string {
  return `/connect/authorize?${new URLSearchParams({ client_id: client.client_id, redirect_uri: REDIRECT, response_type: 'code', scope: 'openid profile offline_access', state: 'st', ...extra })}`;
}

/** Opens the sign-in page and posts the password; the answer (the code page, or the redirect). */
async function givePassword(browser: Browser, person: Person, extra: Record<string, string> = {}): Promise<Response> {
  const page = await browser.get(authorizeUrl(extra));
  return browser.submit(await page.text(), { login: person.username, password: person.password }, '/connect/authorize/login');
}

/** Exchanges the code of a redirect; the tokens with the claims of the ID token and access token. */
async function exchange(response: Response) {
  const code = redirectOf(response).query.get('code');
  expect(code, 'the redirect carries a code').toEqual(expect.any(String));
  const tokens = await exchangeCode(fixture, client, code!);
  return { ...tokens, id: decodeJwt(tokens.id_token), access: decodeJwt(tokens.access_token) };
}

const MFA = { amr: ['pwd', 'otp', 'mfa'], acr: 'urn:idp:acr:mfa' };
const PWD = { amr: ['pwd'], acr: 'urn:idp:acr:pwd' };

/** The application's events about `person`. */
async function eventsOf(person: Person): Promise<Record<string, unknown>[]> {
  const listed = await api(fixture, 'GET', `/acme/shop/events?limit=100&ql=${encodeURIComponent(`select * where user = '${person.uuid}'`)}`);
  return listed.entities;
}

describe('signing in with a second factor on the page', () => {
  let person: Person;
  let secret: string;
  beforeEach(async () => {
    person = await newPerson();
    ({ secret } = await enrollTotp(person));
  });

  it('asks for the code after the password, with no session before it; the tokens say pwd, otp, mfa and survive refresh', async () => {
    const browser = new Browser(fixture.url);
    const step = await givePassword(browser, person);
    expect(step.status).toBe(200);
    expect(step.headers.getSetCookie().some((cookie) => cookie.startsWith('idp_session='))).toBe(false);
    const html = await step.text();
    expect(html).toMatch(/<input type="text" id="otp" name="otp" autocomplete="one-time-code" inputmode="numeric"[^>]*>/);
    expect(html).toContain('action="/connect/authorize/otp"');

    // Half signed in is not signed in: /connect/authorize still has no session.
    expect(redirectOf(await browser.get(authorizeUrl({ prompt: 'none' }))).query.get('error')).toBe('login_required');

    const tokens = await exchange(await browser.submit(html, { otp: totpCode(secret) }, '/connect/authorize/otp'));
    expect(tokens.id).toMatchObject({ sub: person.uuid, ...MFA, auth_time: expect.any(Number) });
    expect(tokens.access).toMatchObject({ sub: person.uuid, ...MFA });

    const refreshed = await fetch(`${fixture.url}/connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(client.client_id, client.client_secret!) },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token! }),
    });
    const again = (await refreshed.json()) as { id_token: string; access_token: string };
    expect(decodeJwt(again.id_token)).toMatchObject(MFA);
    expect(decodeJwt(again.access_token)).toMatchObject(MFA);

    // Single sign-on afterwards carries the same sign-in.
    const silent = await exchange(await browser.get(authorizeUrl({ prompt: 'none' })));
    expect(silent.id).toMatchObject({ ...MFA, auth_time: tokens.id.auth_time });
  });

  it('refuses a wrong code on the page, starts no session, and records the failure and the use as events', async () => {
    const browser = new Browser(fixture.url);
    const html = await (await givePassword(browser, person)).text();
    const wrong = await browser.submit(html, { otp: '000000' === totpCode(secret) ? '111111' : '000000' }, '/connect/authorize/otp');
    expect(wrong.status).toBe(400);
    expect(wrong.headers.getSetCookie().some((cookie) => cookie.startsWith('idp_session='))).toBe(false);
    const again = await wrong.text();
    expect(again).toContain('role="alert"');
    expect(again).toContain('The code is not correct, or was used already.');
    // The form shown again still works.
    expect(redirectOf(await browser.submit(again, { otp: totpCode(secret) }, '/connect/authorize/otp')).query.get('code')).toBeTruthy();
    const events = await eventsOf(person);
    expect(events.map((event) => `${event.action} ${event.via ?? ''}`.trim()).sort()).toEqual([
      'factor_activated',
      'factor_enrolled',
      'second_factor_failed page',
      'second_factor_used page',
    ]);
    expect(events.find((event) => event.action === 'second_factor_used')).toMatchObject({
      category: 'security',
      factor_type: 'totp',
      factor: expect.any(String),
    });
    expect(JSON.stringify(events)).not.toContain(secret);
  });

  it('counts wrong codes toward the sign-in throttle: 429 with Retry-After, then even the right code waits', async () => {
    const browser = new Browser(fixture.url);
    let html = await (await givePassword(browser, person)).text();
    const wrong = totpCode(secret) === '123456' ? '654321' : '123456';
    for (let attempt = 0; attempt < 5; attempt++) {
      const refused = await browser.submit(html, { otp: wrong }, '/connect/authorize/otp');
      expect(refused.status).toBe(400);
      html = await refused.text();
    }
    // The sixth failure waits a second; the next attempt is refused before the code is looked at.
    expect((await browser.submit(html, { otp: wrong }, '/connect/authorize/otp')).status).toBe(400);
    const throttled = await browser.submit(html, { otp: totpCode(secret) }, '/connect/authorize/otp');
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await throttled.text()).toContain('Too many failed attempts.');
    // The password form counts the same: the account waits there too.
    expect((await givePassword(new Browser(fixture.url), person)).status).toBe(429);
    clock.now += 2000;
    expect(redirectOf(await browser.submit(html, { otp: totpCode(secret) }, '/connect/authorize/otp')).query.get('code')).toBeTruthy();
  });

  it('takes a recovery code instead, after "use a recovery code", once', async () => {
    const { recovery } = await enrollTotp(await newPerson());
    person = await newPerson();
    const codes = (await enrollTotp(person)).recovery;
    expect(codes).not.toEqual(recovery);
    const browser = new Browser(fixture.url);
    const html = await (await givePassword(browser, person)).text();
    const switched = await browser.submit(html, { use: 'recovery' }, '/connect/authorize/otp');
    expect(switched.status).toBe(200);
    const form = await switched.text();
    expect(form).toContain('Recovery code');
    expect(form).toMatch(/<input type="text" id="otp" name="otp" autocomplete="one-time-code"[^>]*>/);
    const tokens = await exchange(await browser.submit(form, { otp: codes[0]!.toUpperCase() }, '/connect/authorize/otp'));
    expect(tokens.id).toMatchObject(MFA);
    expect((await eventsOf(person)).find((event) => event.action === 'recovery_code_used')).toMatchObject({ via: 'page', user: person.uuid });

    // Spent: the same code in another browser is refused; another user's code is not this user's.
    const other = new Browser(fixture.url);
    const second = await (await givePassword(other, person)).text();
    expect((await other.submit(second, { otp: codes[0]! }, '/connect/authorize/otp')).status).toBe(400);
    expect((await other.submit(second, { otp: recovery[0]! }, '/connect/authorize/otp')).status).toBe(400);
    expect(redirectOf(await other.submit(second, { otp: codes[1]! }, '/connect/authorize/otp')).query.get('code')).toBeTruthy();
  });

  it('refuses the code form without its CSRF token, in another browser, or once it is five minutes old', async () => {
    const browser = new Browser(fixture.url);
    const html = await (await givePassword(browser, person)).text();
    const { fields } = formOf(html, '/connect/authorize/otp');
    const noToken = await browser.post('/connect/authorize/otp', { interaction: fields.interaction!, otp: totpCode(secret) });
    expect(noToken.status).toBe(403);
    expect(await noToken.text()).toContain('This form has expired or did not come from this site.');

    // Another browser with a valid token of its own cannot finish this browser's sign-in.
    const thief = new Browser(fixture.url);
    const own = formOf(await (await thief.get(authorizeUrl())).text(), '/connect/authorize/login').fields.csrf_token!;
    const stolen = await thief.post('/connect/authorize/otp', { interaction: fields.interaction!, csrf_token: own, otp: totpCode(secret) });
    expect(stolen.status).toBe(403);
    expect(stolen.headers.getSetCookie().some((cookie) => cookie.startsWith('idp_session='))).toBe(false);

    clock.now += 5 * 60_000 + 1;
    const late = await browser.submit(html, { otp: totpCode(secret) }, '/connect/authorize/otp');
    expect(late.status).toBe(400);
    const page = await late.text();
    expect(page).toContain('action="/connect/authorize/login"');
    expect(page).toContain('The sign-in took too long. Sign in again.');
  });

  it('speaks the language of ui_locales', async () => {
    const html = await (await givePassword(new Browser(fixture.url), person, { ui_locales: 'de' })).text();
    expect(html).toContain('<h1>Bestätigung in zwei Schritten</h1>');
    expect(html).toContain('Einen Wiederherstellungscode verwenden');
  });
});

describe('acr_values=urn:idp:acr:mfa (step-up)', () => {
  it('asks a password-only session for the second factor, then issues urn:idp:acr:mfa', async () => {
    const person = await newPerson();
    const browser = new Browser(fixture.url);
    // Signed in with a password alone, before the factor existed.
    const before = await exchange(await givePassword(browser, person));
    expect(before.id).toMatchObject(PWD);
    const { secret } = await enrollTotp(person);

    // Without acr_values the session is good as it is.
    expect((await exchange(await browser.get(authorizeUrl()))).id).toMatchObject(PWD);
    // prompt=none cannot ask for the code.
    expect(redirectOf(await browser.get(authorizeUrl({ acr_values: 'urn:idp:acr:mfa', prompt: 'none' }))).query.get('error')).toBe('interaction_required');

    const step = await browser.get(authorizeUrl({ acr_values: 'urn:idp:acr:mfa' }));
    expect(step.status).toBe(200);
    const html = await step.text();
    expect(html).toContain('action="/connect/authorize/otp"');
    const wrong = await browser.submit(html, { otp: totpCode(secret) === '000000' ? '111111' : '000000' }, '/connect/authorize/otp');
    expect(wrong.status).toBe(400);
    const after = await exchange(await browser.submit(await wrong.text(), { otp: totpCode(secret) }, '/connect/authorize/otp'));
    expect(after.id).toMatchObject({ sub: person.uuid, ...MFA });
    expect(after.id.auth_time).toBeGreaterThanOrEqual(before.id.auth_time as number);
    // The session is stepped up: the next request for mfa is silent.
    expect((await exchange(await browser.get(authorizeUrl({ acr_values: 'urn:idp:acr:mfa', prompt: 'none' })))).id).toMatchObject(MFA);
  });

  it('issues the acr achieved to a user who has no factor (acr_values is voluntary, OIDC Core 3.1.2.1)', async () => {
    const person = await newPerson();
    const browser = new Browser(fixture.url);
    const tokens = await exchange(await givePassword(browser, person, { acr_values: 'urn:idp:acr:mfa' }));
    expect(tokens.id).toMatchObject(PWD);
    expect((await exchange(await browser.get(authorizeUrl({ acr_values: 'urn:idp:acr:mfa', prompt: 'none' })))).id).toMatchObject(PWD);
  });
});

describe('the claims parameter: an essential acr (OIDC Core 5.5.1.1)', () => {
  const essential = (values: string[]) => JSON.stringify({ id_token: { acr: { essential: true, values } } });

  it('forces the second factor as acr_values does', async () => {
    const person = await newPerson();
    const browser = new Browser(fixture.url);
    expect((await exchange(await givePassword(browser, person))).id).toMatchObject(PWD);
    const { secret } = await enrollTotp(person);
    const step = await browser.get(authorizeUrl({ claims: essential(['urn:idp:acr:mfa']) }));
    expect(step.status).toBe(200);
    const html = await step.text();
    expect(html).toContain('action="/connect/authorize/otp"');
    const after = await exchange(await browser.submit(html, { otp: totpCode(secret) }, '/connect/authorize/otp'));
    expect(after.id).toMatchObject({ sub: person.uuid, ...MFA });
  });

  it('fails the sign-in of a user who cannot reach it, with access_denied; a voluntary one gets the acr achieved', async () => {
    const person = await newPerson();
    const browser = new Browser(fixture.url);
    const refused = redirectOf(await givePassword(browser, person, { claims: essential(['urn:idp:acr:mfa']) }));
    expect(refused.query.get('error')).toBe('access_denied');
    expect(refused.query.get('error_description')).toContain('urn:idp:acr:mfa');
    expect(refused.query.get('code')).toBeNull();
    const voluntary = JSON.stringify({ id_token: { acr: { values: ['urn:idp:acr:mfa'] } } });
    expect((await exchange(await browser.get(authorizeUrl({ claims: voluntary })))).id).toMatchObject(PWD);
    expect((await exchange(await browser.get(authorizeUrl({ claims: essential(['urn:idp:acr:pwd', 'urn:idp:acr:mfa']) })))).id).toMatchObject(PWD);
  });
});
