/**
 * The device authorization grant (RFC 8628) over raw HTTP against a real server on a test clock:
 * /connect/deviceauthorization and its refusals, the /device pages driven by the cookie-keeping
 * browser of the authorize tests (code entry, sign-in, second factor, consent, allow or deny),
 * and the token endpoint's answers to the polling device: authorization_pending, slow_down,
 * expired_token, access_denied, then tokens once, as the authorization code path issues them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { TOTP } from 'otpauth';
import { expectOAuthError, expectRefusedUnchanged, readResponse, snapshot, type Clock, type TestResponse } from '../helpers.js';
import { api, Browser, createClient, createFixture, startIdp, USER, type Fixture, type RegisteredClient } from '../authorize/support.js';
import { basic } from './fixtures.js';
import type { DeviceAuthorizationResponse as DeviceAuthorization } from '../../src/identity/authorize/device-authorizations.js';

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const USER_CODE = /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/;

const clock: Clock = { now: Date.now() };
let fixture: Fixture;
/** A public client allowed the device grant and refresh tokens (a TV app). */
let tv: RegisteredClient;
/** A confidential client allowed the device grant, which asks no consent of its other grants. */
let box: RegisteredClient;
/** A client without the device grant. */
let web: RegisteredClient;

beforeAll(async () => {
  fixture = await createFixture(await startIdp({ now: () => clock.now }));
  const device = { grant_types: [DEVICE_GRANT, 'refresh_token'], redirect_uris: [], response_types: [] };
  tv = await createClient(fixture, { ...device, client_name: 'Living-room TV', token_endpoint_auth_method: 'none' });
  box = await createClient(fixture, { ...device, client_name: 'Set-top box', token_endpoint_auth_method: 'client_secret_basic', require_consent: false });
  web = await createClient(fixture);
});
afterAll(() => fixture.server.close());

async function post(path: string, form: Record<string, string>, headers: Record<string, string> = {}): Promise<TestResponse> {
  const response = await fetch(`${fixture.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  });
  return readResponse(response);
}

/** What a client sends: its client_id in the form when public, HTTP Basic when confidential. */
function asClient(client: RegisteredClient, form: Record<string, string>): [Record<string, string>, Record<string, string>] {
  if (client.client_secret === undefined) return [{ ...form, client_id: client.client_id }, {}];
  return [form, { authorization: basic(client.client_id, client.client_secret) }];
}

async function startDevice(client: RegisteredClient = tv, scope = 'openid profile offline_access api'): Promise<DeviceAuthorization> {
  const res = await post('/connect/deviceauthorization', ...asClient(client, { scope }));
  expect(res.status, res.text).toBe(200);
  return res.body as DeviceAuthorization;
}

function poll(device: DeviceAuthorization, client: RegisteredClient = tv): Promise<TestResponse> {
  return post('/connect/token', ...asClient(client, { grant_type: DEVICE_GRANT, device_code: device.device_code }));
}

/** The code the entry page shows filled in. */
function filledIn(html: string): string {
  return html.match(/name="user_code" value="([^"]*)"/)?.[1] ?? '';
}

/** Confirms the code of the complete verification URI as shown; returns the page that follows. */
async function confirmCode(browser: Browser, device: DeviceAuthorization): Promise<string> {
  const entry = await (await browser.get(device.verification_uri_complete)).text();
  return (await browser.submit(entry, { user_code: filledIn(entry) }, '/device')).text();
}

/** The user's side: enters the code (as shown, or `typed`), signs in; returns the page that follows. */
async function enterCodeAndSignIn(browser: Browser, device: DeviceAuthorization, user = USER, typed?: string): Promise<string> {
  const entry = await browser.get(typed === undefined ? device.verification_uri_complete : device.verification_uri);
  expect(entry.status).toBe(200);
  const entryHtml = await entry.text();
  const code = await browser.submit(entryHtml, { user_code: typed ?? filledIn(entryHtml) }, '/device');
  const html = await code.text();
  if (!html.includes('action="/connect/authorize/login"')) return html;
  const signedIn = await browser.submit(html, { login: user.username, password: user.password }, '/connect/authorize/login');
  return signedIn.text();
}

async function decide(browser: Browser, consentPage: string, decision: 'allow' | 'deny'): Promise<{ status: number; html: string }> {
  expect(consentPage).toContain('action="/connect/authorize/consent"');
  const done = await browser.submit(consentPage, { decision }, '/connect/authorize/consent');
  return { status: done.status, html: await done.text() };
}

describe('discovery', () => {
  it('names the device authorization endpoint and the grant type', async () => {
    const document = await (await fetch(`${fixture.url}/.well-known/openid-configuration`)).json();
    expect(document.device_authorization_endpoint).toBe(`${fixture.url}/connect/deviceauthorization`);
    expect(document.grant_types_supported).toContain(DEVICE_GRANT);
  });
});

describe('POST /connect/deviceauthorization', () => {
  it('answers a public client with a device code, a short user code and where to enter it; stores neither code', async () => {
    const res = await post('/connect/deviceauthorization', { client_id: tv.client_id, scope: 'openid api' });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const device = res.body as DeviceAuthorization;
    expect(device.user_code).toMatch(USER_CODE);
    expect(device.device_code.length).toBeGreaterThanOrEqual(43);
    expect(device.verification_uri).toBe(`${fixture.url}/device`);
    expect(device.verification_uri_complete).toBe(`${fixture.url}/device?user_code=${device.user_code}`);
    expect(device).toMatchObject({ expires_in: 600, interval: 5 });
    const stored = await snapshot(fixture.server);
    expect(stored).not.toContain(device.device_code);
    expect(stored).not.toContain(device.user_code.replace('-', ''));
  });

  it('authenticates a confidential client as the token endpoint does', async () => {
    expect((await startDevice(box)).user_code).toMatch(USER_CODE);
  });

  it.each([
    ['a client without the device grant', () => asClient(web, {}), 400, 'unauthorized_client'],
    ['an unknown scope', () => asClient(tv, { scope: 'openid admin' }), 400, 'invalid_scope'],
    ['an unknown client', () => [{ client_id: 'nobody' }, {}], 401, 'invalid_client'],
    ['a wrong secret', () => asClient({ ...box, client_secret: 'guess' }, {}), 401, 'invalid_client'],
    ['no client at all', () => [{ scope: 'openid' }, {}], 401, 'invalid_client'],
  ] as const)('refuses %s, storing nothing', async (_, request, status, error) => {
    const [form, headers] = request() as [Record<string, string>, Record<string, string>];
    const res = await expectRefusedUnchanged(fixture.server, () => post('/connect/deviceauthorization', form, headers), status, error);
    expectOAuthError(res, status, error);
  });

  it('takes only a form, and only POST', async () => {
    const json = await readResponse(
      await fetch(`${fixture.url}/connect/deviceauthorization`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_id: tv.client_id }),
      }),
    );
    expectOAuthError(json, 400, 'invalid_request');
    const get = await readResponse(await fetch(`${fixture.url}/connect/deviceauthorization`));
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });
});

describe('polling the token endpoint', () => {
  it('is pending until the user decides; too fast is slow_down, and each one adds five seconds', async () => {
    const device = await startDevice();
    expectOAuthError(await poll(device), 400, 'authorization_pending');
    clock.now += 2_000;
    expectOAuthError(await poll(device), 400, 'slow_down');
    // The interval is now 10 s: 6 s later is still too soon, and makes it 15 s.
    clock.now += 6_000;
    const again = await poll(device);
    expectOAuthError(again, 400, 'slow_down');
    expect(again.body.error_description).toContain('15 s');
    clock.now += 15_000;
    expectOAuthError(await poll(device), 400, 'authorization_pending');
  });

  it('is expired_token once the code has expired', async () => {
    const device = await startDevice();
    clock.now += device.expires_in * 1000;
    expectOAuthError(await poll(device), 400, 'expired_token');
  });

  it('refuses an unknown device code, another client, and a missing one', async () => {
    const device = await startDevice();
    expectOAuthError(await poll({ ...device, device_code: 'not-a-code' }), 400, 'invalid_grant');
    expectOAuthError(await poll(device, box), 400, 'invalid_grant');
    expectOAuthError(await post('/connect/token', { grant_type: DEVICE_GRANT, client_id: tv.client_id }), 400, 'invalid_request');
    // A client registered without the grant may not use it.
    expectOAuthError(await poll(device, web), 400, 'unauthorized_client');
  });
});

describe('the /device pages', () => {
  it('fill in the code of the complete URI, sign in, ask consent naming the client, and hand the device tokens once', async () => {
    const device = await startDevice();
    const browser = new Browser(fixture.url);
    const entry = await browser.get(device.verification_uri_complete);
    const entryHtml = await entry.text();
    // Filled in, still to be confirmed by the user: nothing happened yet.
    expect(filledIn(entryHtml)).toBe(device.user_code);
    expect(entry.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expectOAuthError(await poll(device), 400, 'authorization_pending');

    const signInPage = await (await browser.submit(entryHtml, { user_code: filledIn(entryHtml) }, '/device')).text();
    expect(signInPage).toContain('Living-room TV');
    const consent = await (await browser.submit(signInPage, { login: USER.username, password: USER.password }, '/connect/authorize/login')).text();
    expect(consent).toContain('Living-room TV');
    expect(consent).toContain('Allow this only if you started signing in on a device yourself');
    const done = await decide(browser, consent, 'allow');
    expect(done.status).toBe(200);
    expect(done.html).toContain('You may return to your device');

    clock.now += 5_000;
    const res = await poll(device);
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toMatchObject({ token_type: 'Bearer', scope: 'openid profile offline_access api', refresh_token: expect.any(String) });
    const id = decodeJwt(res.body.id_token);
    expect(id).toMatchObject({ sub: fixture.userUuid, aud: tv.client_id, amr: ['pwd'], acr: 'urn:idp:acr:pwd' });
    expect(decodeJwt(res.body.access_token)).toMatchObject({ sub: fixture.userUuid, amr: ['pwd'] });
    const me = await fetch(`${fixture.url}/connect/userinfo`, { headers: { authorization: `Bearer ${res.body.access_token}` } });
    expect((await me.json()).preferred_username).toBe(USER.username);

    // Single use: the code is spent, and the refresh token works as any other.
    clock.now += 5_000;
    expectOAuthError(await poll(device), 400, 'invalid_grant');
    const refreshed = await post('/connect/token', { grant_type: 'refresh_token', refresh_token: res.body.refresh_token, client_id: tv.client_id });
    expect(refreshed.status, refreshed.text).toBe(200);
  });

  it('take the code typed in lower case without its hyphen; a signed-in browser goes straight to consent, which a device always asks', async () => {
    const browser = new Browser(fixture.url);
    const first = await startDevice(box);
    await decide(browser, await enterCodeAndSignIn(browser, first), 'allow');
    const second = await startDevice(box);
    const consent = await enterCodeAndSignIn(browser, second, USER, second.user_code.replace('-', '').toLowerCase());
    expect(consent).not.toContain('action="/connect/authorize/login"');
    await decide(browser, consent, 'allow');
    clock.now += 5_000;
    const res = await poll(second, box);
    expect(res.status, res.text).toBe(200);
  });

  it('deny: the device hears access_denied', async () => {
    const device = await startDevice();
    const browser = new Browser(fixture.url);
    const done = await decide(browser, await enterCodeAndSignIn(browser, device), 'deny');
    expect(done.html).toContain('The device was not given access');
    clock.now += 5_000;
    expectOAuthError(await poll(device), 400, 'access_denied');
  });

  it('a code that expires during the sign-in cannot be allowed', async () => {
    const device = await startDevice();
    const browser = new Browser(fixture.url);
    const signIn = await confirmCode(browser, device);
    clock.now += device.expires_in * 1000;
    const late = await browser.submit(signIn, { login: USER.username, password: USER.password }, '/connect/authorize/login');
    expect(late.status).toBe(400);
    expect(await late.text()).toContain('This code has expired');
    expectOAuthError(await poll(device), 400, 'expired_token');
  });

  it('a user with a second factor gives it, and the tokens say mfa', async () => {
    const dora = { ...USER, username: 'dora', email: 'dora@example.com', password: 'doras-password-1' };
    const doraUuid = String((await api(fixture, 'POST', '/acme/shop/users', dora)).entities[0]!.uuid);
    const enrolled = await api(fixture, 'POST', '/acme/shop/users/dora/factors', { type: 'totp' });
    const { id, secret } = enrolled.entities[0] as { id: string; secret: string };
    const totp = new TOTP({ secret, algorithm: 'SHA1', digits: 6, period: 30 });
    await api(fixture, 'POST', `/acme/shop/users/dora/factors/${id}/verify`, { code: totp.generate({ timestamp: clock.now }) });

    const device = await startDevice();
    const browser = new Browser(fixture.url);
    const second = await enterCodeAndSignIn(browser, device, dora);
    expect(second).toContain('autocomplete="one-time-code"');
    const consent = await (await browser.submit(second, { otp: totp.generate({ timestamp: clock.now + 30_000 }) }, '/connect/authorize/otp')).text();
    await decide(browser, consent, 'allow');
    clock.now += 5_000;
    const res = await poll(device);
    expect(res.status, res.text).toBe(200);
    expect(decodeJwt(res.body.id_token)).toMatchObject({ sub: doraUuid, amr: ['pwd', 'otp', 'mfa'], acr: 'urn:idp:acr:mfa' });
  });

  it('refuse a form without its CSRF token', async () => {
    const res = await post('/device', { user_code: 'BCDF-GHJK' });
    expect(res.status).toBe(403);
    expect(res.text).toContain('data-error="csrf"');
  });

  it('show a wrong code again with an alert, and throttle an address that keeps guessing', async () => {
    const device = await startDevice();
    const browser = new Browser(fixture.url);
    const page = await (await browser.get('/device')).text();
    // Ten mistakes are free; the eleventh starts the wait.
    for (let attempt = 0; attempt < 11; attempt++) {
      const wrong = await browser.submit(page, { user_code: attempt % 2 ? 'BCDF-GHJK' : 'not a code' }, '/device');
      expect(wrong.status).toBe(400);
      expect(await wrong.text()).toContain('This code is not valid, or has expired');
    }
    const blocked = await browser.submit(page, { user_code: 'BCDF-GHJK' }, '/device');
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    // While it waits, even the right code is not looked at.
    const right = await browser.submit(page, { user_code: device.user_code }, '/device');
    expect(right.status).toBe(429);
    expect(await right.text()).toContain('Too many failed attempts');
    clock.now += 60_000;
    const later = await browser.submit(page, { user_code: device.user_code }, '/device');
    expect(await later.text()).toContain('action="/connect/authorize/login"');
  });
});

describe('client registration', () => {
  it('accepts the device grant without redirect URIs', async () => {
    const res = await api(fixture, 'POST', '/management/orgs/acme/apps/shop/clients', {
      client_name: 'CLI',
      grant_types: [DEVICE_GRANT],
      token_endpoint_auth_method: 'none',
    });
    expect(res.entities[0]).toMatchObject({ grant_types: [DEVICE_GRANT], redirect_uris: [] });
  });
});
