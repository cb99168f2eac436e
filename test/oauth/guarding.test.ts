/** Password throttling, the audit trail, userinfo and introspection rules. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { expectOAuthError, expectRefusal, expectRefusedUnchanged, ORG, type Clock, type TestApp, type TestResponse } from '../helpers.js';
import { basic, createAppUser, createTenant, createTenantApp, registerClient, token, type Tenant } from './fixtures.js';
import { findAdminUserIn } from '../../src/management/admin-users.js';

let t: TestApp;
let clock: Clock;
let tenant: Tenant;
beforeEach(async () => {
  ({ t, tenant, clock } = await createTenantApp());
});
afterEach(() => t.close());

const login = (username: string, password: string) => token(t, { grant_type: 'password', client_id: 'admin-cli', username, password, scope: 'api' });

/** A wrong password is refused and counted: the throttle is the one table it may write. */
async function expectWrongPassword(send: () => Promise<TestResponse>): Promise<void> {
  expectOAuthError(await expectRefusedUnchanged(t, send, 400, 'invalid_grant', { except: ['login_throttle'] }), 400, 'invalid_grant');
}

/** A throttled attempt is refused before any password is checked, so it writes nothing, not even a count. */
async function expectThrottled(send: () => Promise<TestResponse>, retryAfter: string): Promise<void> {
  const res = await expectRefusedUnchanged(t, send, 429, 'too_many_requests');
  expectOAuthError(res, 429, 'too_many_requests');
  expect(res.headers.get('retry-after')).toBe(retryAfter);
}

describe('password throttling', () => {
  it('backs off exponentially after five failures, answers 429 with Retry-After, and resets on success', async () => {
    for (let i = 0; i < 6; i += 1) await expectWrongPassword(() => login('alice', 'wrong'));
    await expectThrottled(() => login('alice', ORG.password), '1');
    // The Usergrid endpoint shares the same counters.
    await expectThrottled(() => t.request('POST', '/management/token', { json: { grant_type: 'password', username: 'alice', password: ORG.password } }), '1');
    clock.now += 1100;
    await expectWrongPassword(() => login('alice', 'wrong'));
    await expectThrottled(() => login('alice', ORG.password), '2');
    clock.now += 2100;
    expect((await login('alice', ORG.password)).status).toBe(200);
    await expectWrongPassword(() => login('alice', 'wrong'));
    expect((await login('alice', ORG.password)).status).toBe(200);
  });

  it('throttles a username that does not exist exactly like one that does', async () => {
    for (let i = 0; i < 6; i += 1) await expectWrongPassword(() => login('nobody', 'wrong'));
    await expectThrottled(() => login('nobody', 'anything'), '1');
  });

  it('throttles app users per application and account', async () => {
    await createAppUser(t, tenant.appUuid, 'fred', 'fred-password');
    const attempt = (password: string) => t.request('POST', '/acme/sandbox/token', { json: { grant_type: 'password', username: 'fred', password } });
    for (let i = 0; i < 6; i += 1) await expectWrongPassword(() => attempt('wrong'));
    await expectThrottled(() => attempt('fred-password'), '1');
    // Admin accounts are another realm: alice is unaffected.
    expect((await login('alice', ORG.password)).status).toBe(200);
  });

  it('throttles one client address across many accounts', async () => {
    // Twenty-one failures, none against the same account twice, are all checked: the address's budget.
    for (let i = 0; i < 21; i += 1) await expectWrongPassword(() => login(`user${i}`, 'wrong'));
    await expectThrottled(() => login('alice', ORG.password), '1');
  });

  it("counts an admin's username, email and uuid against one budget, at both token endpoints", async () => {
    const uuid = (await findAdminUserIn(t.deps.db, 'alice'))!.uuid;
    const names = ['alice', 'Alice@Example.com', uuid];
    const usergrid = (username: string, password: string) => t.request('POST', '/management/token', { json: { grant_type: 'password', username, password } });
    // Six wrong passwords, two by each name, alternating between /connect/token and /management/token.
    for (let i = 0; i < 6; i += 1) await expectWrongPassword(() => (i % 2 === 0 ? login : usergrid)(names[i % 3]!, 'wrong'));
    for (const name of names) {
      await expectThrottled(() => login(name, ORG.password), '1');
      await expectThrottled(() => usergrid(name, ORG.password), '1');
    }
    clock.now += 1100;
    // A success by any name clears the one count.
    expect((await usergrid(uuid, ORG.password)).status).toBe(200);
    for (let i = 0; i < 5; i += 1) await expectWrongPassword(() => login(names[i % 3]!, 'wrong'));
    expect((await login('alice@example.com', ORG.password)).status).toBe(200);
  });

  it("counts an app user's username, email and uuid against one budget, at both token endpoints", async () => {
    const uuid = await createAppUser(t, tenant.appUuid, 'fred', 'fred-password', { email: 'fred@example.com' });
    const client = await registerClient(t, tenant, { token_endpoint_auth_method: 'none', grant_types: ['password'] });
    const usergrid = (username: string, password: string) => t.request('POST', '/acme/sandbox/token', { json: { grant_type: 'password', username, password } });
    const oauth = (username: string, password: string) => token(t, { grant_type: 'password', client_id: client.client_id, username, password });
    const names = ['fred', 'FRED@example.com', uuid];
    for (let i = 0; i < 6; i += 1) await expectWrongPassword(() => (i % 2 === 0 ? oauth : usergrid)(names[i % 3]!, 'wrong'));
    for (const name of names) {
      await expectThrottled(() => oauth(name, 'fred-password'), '1');
      await expectThrottled(() => usergrid(name, 'fred-password'), '1');
    }
    clock.now += 1100;
    expect((await oauth('fred@example.com', 'fred-password')).status).toBe(200);
    for (let i = 0; i < 5; i += 1) await expectWrongPassword(() => usergrid(names[i % 3]!, 'wrong'));
    expect((await usergrid('fred', 'fred-password')).status).toBe(200);
  });

  it("keeps a name that addresses no account apart from every account's budget", async () => {
    for (let i = 0; i < 6; i += 1) await expectWrongPassword(() => login('alice@example.org', 'wrong'));
    await expectThrottled(() => login('alice@example.org', ORG.password), '1');
    expect((await login('alice', ORG.password)).status).toBe(200);
  });
});

describe('audit', () => {
  it('writes one line per token issued (at debug) or refused (at info), without secrets', async () => {
    t.deps.logger.level = 'debug';
    const debug = vi.spyOn(t.deps.logger, 'debug').mockImplementation(() => undefined);
    const info = vi.spyOn(t.deps.logger, 'info').mockImplementation(() => undefined);
    await token(t, { grant_type: 'client_credentials', client_id: tenant.app.client_id, client_secret: tenant.app.client_secret });
    await login('alice', 'wrong-password');
    await t.request('POST', '/management/token', { json: { grant_type: 'password', username: 'alice', password: ORG.password } });
    const events = (spy: typeof info) =>
      spy.mock.calls.map(([fields]) => fields as unknown as Record<string, unknown>).filter((fields) => typeof fields === 'object' && 'event' in fields);
    expect(events(debug)).toEqual([
      expect.objectContaining({
        event: 'token_issued',
        endpoint: '/connect/token',
        grant_type: 'client_credentials',
        client_id: tenant.app.client_id,
        subject_kind: 'application',
        scope: 'api',
      }),
      expect.objectContaining({ event: 'token_issued', endpoint: '/management/token', grant_type: 'password', client_id: 'admin-cli', subject_kind: 'admin' }),
    ]);
    expect(events(info)).toEqual([
      expect.objectContaining({ event: 'token_refused', endpoint: '/connect/token', grant_type: 'password', client_id: 'admin-cli', error: 'invalid_grant' }),
    ]);
    const lines = [...events(debug), ...events(info)];
    const text = JSON.stringify(lines);
    for (const secret of [tenant.app.client_secret, 'wrong-password', ORG.password, 'eyJ']) expect(text).not.toContain(secret);
  });
});

describe('security events', () => {
  it('writes a warn line when a used refresh token comes back, and when a disabled account signs in', async () => {
    const warn = vi.spyOn(t.deps.logger, 'warn').mockImplementation(() => undefined);
    const first = await token(t, { grant_type: 'password', client_id: 'admin-cli', username: 'alice', password: ORG.password, scope: 'offline_access api' });
    const refresh = { grant_type: 'refresh_token', client_id: 'admin-cli', refresh_token: first.body.refresh_token };
    expect((await token(t, refresh)).status).toBe(200);
    expectOAuthError(await token(t, refresh), 400, 'invalid_grant');
    const fred = await createAppUser(t, tenant.appUuid, 'fred', 'fred-password', { disabled: true });
    const disabled = await t.request('POST', '/acme/sandbox/token', { json: { grant_type: 'password', username: 'fred', password: 'fred-password' } });
    expectRefusal(disabled, 400, 'invalid_grant');
    const events = warn.mock.calls.map(([fields]) => fields as unknown as Record<string, unknown>);
    expect(events).toEqual([
      expect.objectContaining({ event: 'refresh_token_reuse', client_id: 'admin-cli', family: expect.any(String) }),
      expect.objectContaining({ event: 'disabled_account_sign_in', realm: 'app_user', subject: fred }),
    ]);
    expect(JSON.stringify(events)).not.toContain(first.body.refresh_token);
  });
});

describe('userinfo', () => {
  it('answers GET and POST with the claims of the granted scopes', async () => {
    const res = await token(t, { grant_type: 'password', client_id: 'admin-cli', username: 'alice', password: ORG.password, scope: 'openid email' });
    const get = await t.request('GET', '/connect/userinfo', { token: res.body.access_token });
    expect(get.status).toBe(200);
    expect(get.body).toEqual({ sub: expect.any(String), email: 'alice@example.com', email_verified: false });
    const post = await t.request('POST', '/connect/userinfo', { form: { access_token: res.body.access_token } });
    expect(post.body).toEqual(get.body);
  });

  it('is 401 invalid_token without a valid token and 403 insufficient_scope without openid', async () => {
    const missing = await t.request('GET', '/connect/userinfo');
    expectOAuthError(missing, 401, 'invalid_token');
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expectOAuthError(await t.request('GET', '/connect/userinfo', { token: 'nope' }), 401, 'invalid_token');
    const apiOnly = await login('alice', ORG.password);
    const res = await t.request('GET', '/connect/userinfo', { token: apiOnly.body.access_token });
    expectOAuthError(res, 403, 'insufficient_scope');
    expect(res.headers.get('www-authenticate')).toContain('insufficient_scope');
  });
});

describe('introspection and revocation', () => {
  it('shows a token only to clients of its own tenant, and not to public clients', async () => {
    const admin = await login('alice', ORG.password);
    const viaOrg = await t.request('POST', '/connect/introspect', {
      form: { token: admin.body.access_token },
      headers: { authorization: basic(tenant.org.client_id, tenant.org.client_secret) },
    });
    expect(viaOrg.status).toBe(200);
    expect(viaOrg.body).toEqual({ active: false });
    const appToken = await token(t, { grant_type: 'client_credentials', client_id: tenant.app.client_id, client_secret: tenant.app.client_secret });
    const seen = await t.request('POST', '/connect/introspect', {
      form: { token: appToken.body.access_token },
      headers: { authorization: basic(tenant.org.client_id, tenant.org.client_secret) },
    });
    expect(seen.body).toMatchObject({ active: true, client_id: tenant.app.client_id, scope: 'api' });
    expect(seen.headers.get('cache-control')).toBe('no-store');
    const other = await createTenant(t, { ...ORG, organization: 'globex', username: 'bob', email: 'bob@example.com' }, 'shop');
    const hidden = await t.request('POST', '/connect/introspect', {
      form: { token: appToken.body.access_token },
      headers: { authorization: basic(other.org.client_id, other.org.client_secret) },
    });
    expect(hidden.body).toEqual({ active: false });
    const publicClient = await t.request('POST', '/connect/introspect', { form: { token: appToken.body.access_token, client_id: 'admin-cli' } });
    expectOAuthError(publicClient, 401, 'invalid_client');
    const noToken = await t.request('POST', '/connect/introspect', {
      form: {},
      headers: { authorization: basic(tenant.org.client_id, tenant.org.client_secret) },
    });
    expectOAuthError(noToken, 400, 'invalid_request');
  });

  it("lets a public client revoke its own refresh token, and refuses another client's", async () => {
    const admin = await token(t, { grant_type: 'password', client_id: 'admin-cli', username: 'alice', password: ORG.password });
    const foreign = () =>
      t.request('POST', '/connect/revocation', {
        form: { token: admin.body.refresh_token },
        headers: { authorization: basic(tenant.app.client_id, tenant.app.client_secret) },
      });
    expectOAuthError(await expectRefusedUnchanged(t, foreign, 400, 'unauthorized_client'), 400, 'unauthorized_client');
    const own = await t.request('POST', '/connect/revocation', {
      form: { token: admin.body.refresh_token, client_id: 'admin-cli', token_type_hint: 'refresh_token' },
    });
    expect(own.status).toBe(200);
    expectRefusal(await t.request('GET', '/management/orgs/acme', { token: admin.body.access_token }), 401, 'unauthorized');
    expectOAuthError(await token(t, { grant_type: 'refresh_token', client_id: 'admin-cli', refresh_token: admin.body.refresh_token }), 400, 'invalid_grant');
  });

  it('revokes one access token by its id and leaves the grant alone', async () => {
    await createAppUser(t, tenant.appUuid, 'fred', 'fred-password');
    const client = await registerClient(t, tenant, { token_endpoint_auth_method: 'none', grant_types: ['password', 'refresh_token'] });
    const first = await token(t, { grant_type: 'password', client_id: client.client_id, username: 'fred', password: 'fred-password' });
    expect((await t.request('GET', '/connect/userinfo', { token: first.body.access_token })).status).toBe(200);
    const revoked = await t.request('POST', '/connect/revocation', { form: { token: first.body.access_token, client_id: client.client_id } });
    expect(revoked.status).toBe(200);
    expectOAuthError(await t.request('GET', '/connect/userinfo', { token: first.body.access_token }), 401, 'invalid_token');
    const refreshed = await token(t, { grant_type: 'refresh_token', client_id: client.client_id, refresh_token: first.body.refresh_token });
    expect(refreshed.status, refreshed.text).toBe(200);
  });
});
