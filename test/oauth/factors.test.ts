/**
 * Second factors (docs/api.md#second-factors): enrolling and activating TOTP factors for app
 * users and admin users, recovery codes, who may see and remove them, password grants that
 * demand them on all three token endpoints, the throttle on wrong codes, and the `amr` / `acr`
 * the tokens then carry. Codes are computed here from the secret the server handed out, at the
 * test clock's time.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TOTP } from 'otpauth';
import { expectOAuthError, expectRefusal, expectRefusedUnchanged, ORG, type Clock, type TestApp, type TestResponse } from '../helpers.js';
import { basic, claimsOf, createTenantApp, token, type Tenant } from './fixtures.js';

let t: TestApp;
let clock: Clock;
let tenant: Tenant;
beforeEach(async () => {
  ({ t, tenant, clock } = await createTenantApp());
  // Halfway into a 30-second step, so that ±1 step is exactly ±30 s.
  clock.now = Math.floor(clock.now / 30_000) * 30_000 + 15_000;
});
afterEach(() => t.close());

const APP = '/acme/sandbox';
const FRED = { username: 'fred', password: 'fred-password' };

/** An app user of sandbox, made through the data API as an administrator. */
async function createUser(username: string, password: string): Promise<void> {
  const res = await t.request('POST', `${APP}/users`, { json: { username, password }, token: tenant.adminToken });
  expect(res.status, res.text).toBe(200);
}

/** The code an authenticator app shows for `secret`, `steps` steps from the clock's time. */
function totpCode(secret: string, steps = 0): string {
  return new TOTP({ secret, algorithm: 'SHA1', digits: 6, period: 30 }).generate({ timestamp: clock.now + steps * 30_000 });
}

async function fredToken(extra: Record<string, string> = {}): Promise<TestResponse> {
  return t.request('POST', `${APP}/token`, { json: { grant_type: 'password', ...FRED, ...extra } });
}

/** Enrolls and activates a TOTP factor at `base` (…/users/{user}/factors); returns its secret, id and recovery codes. */
async function activateTotp(base: string, bearer: string): Promise<{ secret: string; id: string; recovery: string[] | undefined }> {
  const enrolled = await t.request('POST', base, { json: { type: 'totp' }, token: bearer });
  expect(enrolled.status, enrolled.text).toBe(201);
  const { id, secret } = enrolled.body.entities[0];
  const verified = await t.request('POST', `${base}/${id}/verify`, { json: { code: totpCode(secret) }, token: bearer });
  expect(verified.status, verified.text).toBe(200);
  // The code that activated the factor is spent: the next one comes a step later.
  clock.now += 30_000;
  return { secret, id, recovery: verified.body.entities[0].recovery_codes };
}

describe('enrolling a TOTP factor', () => {
  let fred: string;
  beforeEach(async () => {
    await createUser(FRED.username, FRED.password);
    fred = (await fredToken()).body.access_token;
  });

  it('answers 201 pending with the secret, otpauth URI and QR code, never cached', async () => {
    const res = await t.request('POST', `${APP}/users/me/factors`, { json: { type: 'totp' }, token: fred });
    expect(res.status, res.text).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const factor = res.body.entities[0];
    expect(factor).toMatchObject({ type: 'totp', status: 'pending', id: expect.any(String) });
    expect(factor.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(factor.otpauth_uri).toBe(`otpauth://totp/sandbox:fred?issuer=sandbox&secret=${factor.secret}&algorithm=SHA1&digits=6&period=30`);
    expect(factor.qr_svg).toMatch(/^<svg[^>]*>.*<\/svg>\s*$/s);
  });

  it('activates with a code of the secret, with ten recovery codes the first time only', async () => {
    const first = await activateTotp(`${APP}/users/fred/factors`, fred);
    expect(first.recovery).toHaveLength(10);
    expect(new Set(first.recovery).size).toBe(10);
    const enrolled = await t.request('POST', `${APP}/users/fred/factors`, { json: { type: 'totp' }, token: fred });
    const { id, secret } = enrolled.body.entities[0];
    const second = await t.request('POST', `${APP}/users/fred/factors/${id}/verify`, { json: { code: totpCode(secret) }, token: fred });
    expect(second.status, second.text).toBe(200);
    expect(second.body.entities[0]).toMatchObject({ status: 'active' });
    expect(second.body.entities[0].recovery_codes).toBeUndefined();
  });

  it('never lists a secret or URI after enrollment', async () => {
    const { id } = await activateTotp(`${APP}/users/fred/factors`, fred);
    const list = await t.request('GET', `${APP}/users/fred/factors`, { token: fred });
    expect(list.status, list.text).toBe(200);
    expect(list.body.entities).toEqual([
      { id, type: 'totp', status: 'active', name: null, last_used: null, created: expect.any(Number), modified: expect.any(Number) },
    ]);
    const one = await t.request('GET', `${APP}/users/fred/factors/${id}`, { token: fred });
    expect(one.body.entities).toEqual(list.body.entities);
    expect(one.text).not.toMatch(/secret|otpauth|recovery/);
  });

  it('refuses a wrong code, a missing code and an unknown type, storing nothing', async () => {
    const enrolled = await t.request('POST', `${APP}/users/fred/factors`, { json: { type: 'totp' }, token: fred });
    const { id, secret } = enrolled.body.entities[0];
    const verify = (json: unknown) => () => t.request('POST', `${APP}/users/fred/factors/${id}/verify`, { json, token: fred });
    await expectRefusedUnchanged(t, verify({ code: totpCode(secret, 2) }), 400, 'illegal_argument');
    await expectRefusedUnchanged(t, verify({}), 400, 'required_property_not_found');
    await expectRefusedUnchanged(t, () => t.request('POST', `${APP}/users/fred/factors`, { json: { type: 'sms' }, token: fred }), 400, 'illegal_argument');
    const list = await t.request('GET', `${APP}/users/fred/factors`, { token: fred });
    expect(list.body.entities.map((f: { status: string }) => f.status)).toEqual(['pending']);
  });

  it("keeps other users and other applications' callers out (403/404), storing nothing", async () => {
    await createUser('wilma', 'wilma-password');
    const wilma = (await t.request('POST', `${APP}/token`, { json: { grant_type: 'password', username: 'wilma', password: 'wilma-password' } })).body
      .access_token;
    const { id } = await activateTotp(`${APP}/users/fred/factors`, fred);
    await expectRefusedUnchanged(t, () => t.request('GET', `${APP}/users/fred/factors`, { token: wilma }), 403, 'forbidden');
    await expectRefusedUnchanged(t, () => t.request('POST', `${APP}/users/fred/factors`, { json: { type: 'totp' }, token: wilma }), 403, 'forbidden');
    await expectRefusedUnchanged(t, () => t.request('DELETE', `${APP}/users/fred/factors/${id}`, { token: wilma }), 403, 'forbidden');
    // Wilma's own path does not reach Fred's factor by its id.
    await expectRefusedUnchanged(t, () => t.request('DELETE', `${APP}/users/wilma/factors/${id}`, { token: wilma }), 404, 'entity_not_found');
    await expectRefusedUnchanged(t, () => t.request('GET', `${APP}/users/fred/factors`), 401, 'unauthorized');
  });
});

describe('removing a factor', () => {
  let fred: string;
  let id: string;
  beforeEach(async () => {
    await createUser(FRED.username, FRED.password);
    fred = (await fredToken()).body.access_token;
    ({ id } = await activateTotp(`${APP}/users/fred/factors`, fred));
  });

  it('lets the user remove it within five minutes of signing in', async () => {
    clock.now += 4 * 60_000;
    const res = await t.request('DELETE', `${APP}/users/fred/factors/${id}`, { token: fred });
    expect(res.status, res.text).toBe(200);
    expect((await t.request('GET', `${APP}/users/fred/factors`, { token: fred })).body.entities).toEqual([]);
    // No active factor left: a password alone signs in again.
    expect((await fredToken()).status).toBe(200);
  });

  it('asks the user to sign in again after that (RFC 9470), and lets an administrator always', async () => {
    clock.now += 6 * 60_000;
    const stale = await expectRefusedUnchanged(
      t,
      () => t.request('DELETE', `${APP}/users/fred/factors/${id}`, { token: fred }),
      401,
      'insufficient_user_authentication',
    );
    expect(stale.headers.get('www-authenticate')).toContain('max_age=300');
    const res = await t.request('DELETE', `${APP}/users/fred/factors/${id}`, { token: tenant.adminToken });
    expect(res.status, res.text).toBe(200);
  });
});

describe('password grants of a user with a factor', () => {
  let secret: string;
  let recovery: string[];
  beforeEach(async () => {
    await createUser(FRED.username, FRED.password);
    const fred = (await fredToken()).body.access_token;
    const activated = await activateTotp(`${APP}/users/fred/factors`, fred);
    secret = activated.secret;
    recovery = activated.recovery!;
  });

  it('POST /{org}/{app}/token: refuses without otp or with a wrong one, signs in with a code once', async () => {
    const without = await fredToken();
    expectRefusal(without, 400, 'invalid_grant');
    expect(without.body.error_description).toMatch(/second factor is required/);
    const wrong = await fredToken({ otp: totpCode(secret, 3) });
    expectRefusal(wrong, 400, 'invalid_grant');
    expect(wrong.body.error_description).toMatch(/otp\) is not correct/);
    const code = totpCode(secret);
    const res = await fredToken({ otp: code });
    expect(res.status, res.text).toBe(200);
    expect(claimsOf(res.body.access_token)).toMatchObject({ amr: ['pwd', 'otp', 'mfa'], acr: 'urn:idp:acr:mfa', auth_time: Math.floor(clock.now / 1000) });
    // The same code again, even within its step, is a replay.
    expectRefusal(await fredToken({ otp: code }), 400, 'invalid_grant');
  });

  it('accepts the codes of the steps beside the current one, not two away', async () => {
    // Past the step whose code activated the factor, so that the step before is unspent.
    clock.now += 30_000;
    expectRefusal(await fredToken({ otp: totpCode(secret, -2) }), 400, 'invalid_grant');
    expectRefusal(await fredToken({ otp: totpCode(secret, 2) }), 400, 'invalid_grant');
    expect((await fredToken({ otp: totpCode(secret, -1) })).status).toBe(200);
    expect((await fredToken({ otp: totpCode(secret, 1) })).status).toBe(200);
    // A later step's code was accepted: the earlier steps' codes are spent too.
    expectRefusal(await fredToken({ otp: totpCode(secret, 0) }), 400, 'invalid_grant');
  });

  it('takes each recovery code once, in any case and with or without its dash', async () => {
    const res = await fredToken({ otp: recovery[0].toUpperCase() });
    expect(res.status, res.text).toBe(200);
    expect(claimsOf(res.body.access_token)).toMatchObject({ amr: ['pwd', 'otp', 'mfa'], acr: 'urn:idp:acr:mfa' });
    expectRefusal(await fredToken({ otp: recovery[0] }), 400, 'invalid_grant');
    expect((await fredToken({ otp: recovery[1].replace('-', '') })).status).toBe(200);
  });

  it('/connect/token: otp is a parameter of the password grant; amr, acr and auth_time survive refresh and show in introspection', async () => {
    const form = { grant_type: 'password', username: FRED.username, password: FRED.password, scope: 'openid offline_access api' };
    const app = basic(tenant.app.client_id, tenant.app.client_secret);
    const without = await token(t, form, { authorization: app });
    expectOAuthError(without, 400, 'invalid_grant');
    expect(without.body.error_description).toMatch(/second factor is required/);
    const res = await token(t, { ...form, otp: totpCode(secret) }, { authorization: app });
    expect(res.status, res.text).toBe(200);
    const signedIn = { amr: ['pwd', 'otp', 'mfa'], acr: 'urn:idp:acr:mfa', auth_time: Math.floor(clock.now / 1000) };
    expect(claimsOf(res.body.id_token)).toMatchObject(signedIn);
    expect(claimsOf(res.body.access_token)).toMatchObject(signedIn);
    clock.now += 60_000;
    const refreshed = await token(t, { grant_type: 'refresh_token', refresh_token: res.body.refresh_token }, { authorization: app });
    expect(refreshed.status, refreshed.text).toBe(200);
    expect(claimsOf(refreshed.body.id_token)).toMatchObject(signedIn);
    expect(claimsOf(refreshed.body.access_token)).toMatchObject(signedIn);
    const introspected = await t.request('POST', '/connect/introspect', { form: { token: refreshed.body.access_token }, headers: { authorization: app } });
    expect(introspected.body).toMatchObject({ active: true, ...signedIn });
  });

  it('counts wrong codes toward the guessing throttle, and a right password does not clear them', async () => {
    for (let attempt = 0; attempt < 5; attempt++)
      expectRefusal(await fredToken({ otp: '000000' === totpCode(secret) ? '111111' : '000000' }), 400, 'invalid_grant');
    const throttled = await fredToken({ otp: totpCode(secret, 3) });
    expectRefusal(throttled, 400, 'invalid_grant');
    const blocked = await fredToken({ otp: totpCode(secret) });
    expectRefusal(blocked, 429, 'too_many_requests');
    expect(blocked.headers.get('retry-after')).toBe('1');
  });
});

describe('password only', () => {
  it('says pwd in amr and urn:idp:acr:pwd in acr', async () => {
    await createUser(FRED.username, FRED.password);
    const res = await fredToken();
    expect(claimsOf(res.body.access_token)).toMatchObject({ amr: ['pwd'], acr: 'urn:idp:acr:pwd' });
  });

  it('discovery lists the acr values', async () => {
    const res = await t.request('GET', '/.well-known/openid-configuration');
    expect(res.body.acr_values_supported).toEqual(['urn:idp:acr:pwd', 'urn:idp:acr:mfa', 'urn:idp:acr:phr']);
  });
});

describe("an admin user's factors", () => {
  const base = `/management/users/${ORG.username}/factors`;

  it('are enrolled by the admin themself and demanded by /management/token and admin-cli', async () => {
    const { secret } = await activateTotp(base, tenant.adminToken);
    const login = (extra: Record<string, string> = {}) =>
      t.request('POST', '/management/token', { json: { grant_type: 'password', username: ORG.username, password: ORG.password, ...extra } });
    const without = await login();
    expectRefusal(without, 400, 'invalid_grant');
    expect(without.body.error_description).toMatch(/second factor is required/);
    const res = await login({ otp: totpCode(secret) });
    expect(res.status, res.text).toBe(200);
    expect(claimsOf(res.body.access_token)).toMatchObject({ amr: ['pwd', 'otp', 'mfa'], acr: 'urn:idp:acr:mfa' });
    const cli = { grant_type: 'password', client_id: 'admin-cli', username: ORG.username, password: ORG.password };
    expectOAuthError(await token(t, cli), 400, 'invalid_grant');
    clock.now += 30_000;
    expect((await token(t, { ...cli, otp: totpCode(secret) })).status).toBe(200);
  });

  it('are out of reach of another organization’s admin', async () => {
    await activateTotp(base, tenant.adminToken);
    await t.request('POST', '/management/orgs', { json: { ...ORG, organization: 'globex', username: 'bob', email: 'bob@example.com' } });
    const bob = await t.request('POST', '/management/token', { json: { grant_type: 'password', username: 'bob', password: ORG.password } });
    await expectRefusedUnchanged(t, () => t.request('GET', base, { token: bob.body.access_token }), 403, 'forbidden');
    await expectRefusedUnchanged(t, () => t.request('POST', base, { json: { type: 'totp' }, token: bob.body.access_token }), 403, 'forbidden');
  });
});

describe('the audit trail of factors', () => {
  it("records an app user's enrollment, activation, uses, failures and removal as the application's events and log lines, nothing secret", async () => {
    const lines: unknown[] = [];
    for (const level of ['info', 'warn'] as const) vi.spyOn(t.deps.logger, level).mockImplementation(((line: unknown) => void lines.push(line)) as never);
    await createUser(FRED.username, FRED.password);
    const fred = (await fredToken()).body.access_token;
    const { secret, id, recovery } = await activateTotp(`${APP}/users/fred/factors`, fred);
    const wrong = totpCode(secret) === '000000' ? '111111' : '000000';
    expectRefusal(await fredToken({ otp: wrong }), 400, 'invalid_grant');
    expect((await fredToken({ otp: totpCode(secret) })).status).toBe(200);
    expect((await fredToken({ otp: recovery![0]! })).status).toBe(200);
    expect((await t.request('DELETE', `${APP}/users/fred/factors/${id}`, { token: tenant.adminToken })).status).toBe(200);

    const listed = await t.request('GET', `${APP}/events?limit=100`, { token: tenant.adminToken });
    const events = listed.body.entities as Record<string, unknown>[];
    const fredUuid = claimsOf(fred).sub;
    expect(events.map((event) => `${event.action} ${event.via ?? ''}`.trim()).sort()).toEqual([
      'factor_activated',
      'factor_enrolled',
      'factor_removed',
      'recovery_code_used grant',
      'second_factor_failed grant',
      'second_factor_used grant',
    ]);
    for (const event of events) expect(event).toMatchObject({ type: 'event', category: 'security', user: fredUuid, timestamp: expect.any(Number) });
    expect(events.find((event) => event.action === 'second_factor_used')).toMatchObject({ factor: id, factor_type: 'totp' });
    const logged = lines.filter((line) => typeof line === 'object' && line !== null && 'event' in line) as Record<string, unknown>[];
    expect(logged.map((line) => line.event)).toEqual(
      expect.arrayContaining(['factor_enrolled', 'second_factor_failed', 'second_factor_used', 'recovery_code_used']),
    );
    for (const text of [JSON.stringify(events), JSON.stringify(logged)]) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(recovery![0]!);
      expect(text).not.toMatch(/"(otp|code|password|secret)":/);
    }
  });

  it("records an admin user's in their management feed", async () => {
    const base = `/management/users/${ORG.username}/factors`;
    const { secret } = await activateTotp(base, tenant.adminToken);
    const login = await t.request('POST', '/management/token', {
      json: { grant_type: 'password', username: ORG.username, password: ORG.password, otp: totpCode(secret) },
    });
    expect(login.status, login.text).toBe(200);
    const feed = await t.request('GET', `/management/users/${ORG.username}/feed`, { token: login.body.access_token });
    expect(feed.status, feed.text).toBe(200);
    const verbs = (feed.body.entities as { verb: string }[]).map((entry) => entry.verb);
    expect(verbs).toEqual(expect.arrayContaining(['factor_enrolled', 'factor_activated', 'second_factor_used']));
    expect(feed.text).not.toContain(secret);
  });
});

describe('passkeys (WebAuthn)', () => {
  it('answers the options for navigator.credentials.create, and refuses a bad response storing nothing', async () => {
    await createUser(FRED.username, FRED.password);
    const fred = (await fredToken()).body.access_token;
    const res = await t.request('POST', `${APP}/users/fred/factors`, { json: { type: 'webauthn' }, token: fred });
    expect(res.status, res.text).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const factor = res.body.entities[0];
    expect(factor).toMatchObject({ type: 'webauthn', status: 'pending' });
    expect(factor.options).toMatchObject({
      rp: { name: 'sandbox', id: 'idp.test' },
      user: { name: 'fred' },
      challenge: expect.stringMatching(/^[\w-]+$/),
      attestation: 'none',
      pubKeyCredParams: expect.arrayContaining([{ type: 'public-key', alg: -7 }]),
    });
    const verify = (json: unknown) => () => t.request('POST', `${APP}/users/fred/factors/${factor.id}/verify`, { json, token: fred });
    await expectRefusedUnchanged(
      t,
      verify({ id: 'x', rawId: 'x', type: 'public-key', response: { clientDataJSON: 'e30', attestationObject: 'oA' } }),
      400,
      'illegal_argument',
    );
    await expectRefusedUnchanged(t, verify({}), 400, 'illegal_argument');
  });
});
