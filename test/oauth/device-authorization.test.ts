/**
 * The device authorization grant (RFC 8628) over raw HTTP against a real server on a test clock:
 * /connect/deviceauthorization and its refusals, the /device pages driven by the cookie-keeping
 * browser of the authorize tests (code entry, sign-in, second factor, consent, allow or deny),
 * and the token endpoint's answers to the polling device: authorization_pending, slow_down,
 * expired_token, access_denied, then tokens once, as the authorization code path issues them;
 * resource indicators (RFC 8707) asked for at the device authorization and narrowed at the poll,
 * and a DPoP proof (RFC 9449) at the poll binding the tokens.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { calculateJwkThumbprint, decodeJwt, exportJWK } from 'jose';
import * as oidc from 'openid-client';
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

async function post(path: string, form: Record<string, string> | URLSearchParams, headers: Record<string, string> = {}): Promise<TestResponse> {
  const response = await fetch(`${fixture.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  });
  return readResponse(response);
}

/**
 * What a client sends: its client_id in the form when public, HTTP Basic when confidential; each
 * of `resources` as a `resource` parameter of its own (RFC 8707 2).
 */
function asClient(client: RegisteredClient, form: Record<string, string>, resources: readonly string[] = []): [URLSearchParams, Record<string, string>] {
  const body = new URLSearchParams(client.client_secret === undefined ? { ...form, client_id: client.client_id } : form);
  for (const resource of resources) body.append('resource', resource);
  return [body, client.client_secret === undefined ? {} : { authorization: basic(client.client_id, client.client_secret) }];
}

async function startDevice(
  client: RegisteredClient = tv,
  scope = 'openid profile offline_access api',
  resources: readonly string[] = [],
): Promise<DeviceAuthorization> {
  const res = await post('/connect/deviceauthorization', ...asClient(client, { scope }, resources));
  expect(res.status, res.text).toBe(200);
  return res.body as DeviceAuthorization;
}

function poll(device: DeviceAuthorization, client: RegisteredClient = tv, resources: readonly string[] = []): Promise<TestResponse> {
  return post('/connect/token', ...asClient(client, { grant_type: DEVICE_GRANT, device_code: device.device_code }, resources));
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
    const [form, headers] = request() as [URLSearchParams | Record<string, string>, Record<string, string>];
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

const ORDERS = 'https://orders.example/api';
const BILLING = 'urn:example:billing';
const OTHER = 'https://other.example/';

/** A device the user allowed at /device, asking for `resources`. */
async function allowedDevice(resources: readonly string[], client = tv): Promise<DeviceAuthorization> {
  const device = await startDevice(client, 'openid offline_access api', resources);
  const browser = new Browser(fixture.url);
  expect((await decide(browser, await enterCodeAndSignIn(browser, device), 'allow')).status).toBe(200);
  clock.now += 5_000;
  return device;
}

describe('resource indicators (RFC 8707)', () => {
  it('the resources of the device authorization are the aud; the token request narrows them, never widens, and the refresh token keeps them', async () => {
    const device = await startDevice(tv, 'openid offline_access api', [ORDERS, BILLING]);
    // A resource the device did not ask for is refused at once, before the user decides.
    const early = await poll(device, tv, [OTHER]);
    expectOAuthError(early, 400, 'invalid_target');
    expect(early.body.error_description).toContain(OTHER);
    const browser = new Browser(fixture.url);
    await decide(browser, await enterCodeAndSignIn(browser, device), 'allow');
    clock.now += 5_000;
    // Refused, the authorization is not spent: the device may ask again within what it asked for.
    expectOAuthError(await poll(device, tv, [ORDERS, OTHER]), 400, 'invalid_target');
    const res = await poll(device, tv, [ORDERS]);
    expect(res.status, res.text).toBe(200);
    expect(decodeJwt(res.body.access_token).aud).toBe(ORDERS);
    // The refresh token may have any of the authorization's resources, and no other.
    const refresh = (resources: string[]) => {
      const body = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: res.body.refresh_token, client_id: tv.client_id });
      for (const resource of resources) body.append('resource', resource);
      return post('/connect/token', body);
    };
    expectOAuthError(await refresh([OTHER]), 400, 'invalid_target');
    const billing = await refresh([BILLING]);
    expect(billing.status, billing.text).toBe(200);
    expect(decodeJwt(billing.body.access_token).aud).toBe(BILLING);
  });

  it("a token request naming none gets all the device authorization named; a device authorization naming none takes the token request's", async () => {
    const named = await poll(await allowedDevice([ORDERS, BILLING]));
    expect(named.status, named.text).toBe(200);
    expect(decodeJwt(named.body.access_token).aud).toEqual([ORDERS, BILLING]);
    const unnamed = await poll(await allowedDevice([]), tv, [OTHER]);
    expect(unnamed.status, unnamed.text).toBe(200);
    expect(decodeJwt(unnamed.body.access_token).aud).toBe(OTHER);
  });

  it.each([
    ['a relative resource', ['/orders']],
    ['a resource with a fragment', [`${ORDERS}#top`]],
    ['more than ten resources', Array.from({ length: 11 }, (_, i) => `https://r${i}.example/`)],
  ])('refuses %s with invalid_target, storing nothing', async (_, resources) => {
    const res = await expectRefusedUnchanged(
      fixture.server,
      () => post('/connect/deviceauthorization', ...asClient(tv, { scope: 'openid' }, resources)),
      400,
      'invalid_target',
    );
    expectOAuthError(res, 400, 'invalid_target');
  });
});

describe('DPoP (RFC 9449)', () => {
  it("a proof at the token request binds the device's tokens to its key, and the refresh token to that key", async () => {
    const device = await allowedDevice([]);
    // openid-client makes the proofs, on the server's test clock, and answers its use_dpop_nonce.
    const metadata = { client_id: tv.client_id, [oidc.clockSkew]: Math.round((clock.now - Date.now()) / 1000) };
    const config = await oidc.discovery(new URL(fixture.url), tv.client_id, metadata, oidc.None(), { execute: [oidc.allowInsecureRequests] });
    const keyPair = await oidc.randomDPoPKeyPair();
    const tokens = await oidc.genericGrantRequest(config, DEVICE_GRANT, { device_code: device.device_code }, { DPoP: oidc.getDPoPHandle(config, keyPair) });
    expect(tokens.token_type).toBe('dpop');
    const jkt = await calculateJwkThumbprint(await exportJWK(keyPair.publicKey));
    expect(decodeJwt(tokens.access_token).cnf).toEqual({ jkt });
    const withOtherKey = oidc.getDPoPHandle(config, await oidc.randomDPoPKeyPair());
    await expect(oidc.refreshTokenGrant(config, tokens.refresh_token!, undefined, { DPoP: withOtherKey })).rejects.toMatchObject({ error: 'invalid_grant' });
    const bearer = await post('/connect/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: tv.client_id });
    expectOAuthError(bearer, 400, 'invalid_grant');
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
