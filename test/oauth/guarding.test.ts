/** Password throttling, the audit trail, userinfo and introspection rules. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ORG, type Clock, type TestApp } from '../helpers.js';
import { basic, createAppUser, createTenant, createTenantApp, registerClient, token, type Tenant } from './fixtures.js';

let t: TestApp;
let clock: Clock;
let tenant: Tenant;
beforeEach(async () => {
  ({ t, tenant, clock } = await createTenantApp());
});
afterEach(() => t.close());

const login = (username: string, password: string) => token(t, { grant_type: 'password', client_id: 'admin-cli', username, password, scope: 'api' });

describe('password throttling', () => {
  it('backs off exponentially after five failures, answers 429 with Retry-After, and resets on success', async () => {
    for (let i = 0; i < 6; i += 1) expect((await login('alice', 'wrong')).body.error).toBe('invalid_grant');
    const blocked = await login('alice', ORG.password);
    expect(blocked.status).toBe(429);
    expect(blocked.body.error).toBe('too_many_requests');
    expect(blocked.headers.get('retry-after')).toBe('1');
    expect(blocked.headers.get('cache-control')).toBe('no-store');
    // The Usergrid endpoint shares the same counters.
    const usergrid = await t.request('POST', '/management/token', { json: { grant_type: 'password', username: 'alice', password: ORG.password } });
    expect(usergrid.status).toBe(429);
    expect(usergrid.headers.get('cache-control')).toBe('no-store');
    clock.now += 1100;
    expect((await login('alice', 'wrong')).status).toBe(400);
    const longer = await login('alice', ORG.password);
    expect(longer.status).toBe(429);
    expect(longer.headers.get('retry-after')).toBe('2');
    clock.now += 2100;
    expect((await login('alice', ORG.password)).status).toBe(200);
    expect((await login('alice', 'wrong')).status).toBe(400);
    expect((await login('alice', ORG.password)).status).toBe(200);
  });

  it('throttles a username that does not exist exactly like one that does', async () => {
    for (let i = 0; i < 6; i += 1) expect((await login('nobody', 'wrong')).body.error).toBe('invalid_grant');
    const res = await login('nobody', 'anything');
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('1');
  });

  it('throttles app users per application and account', async () => {
    await createAppUser(t, tenant.appUuid, 'fred', 'fred-password');
    const attempt = (password: string) => t.request('POST', '/acme/sandbox/token', { json: { grant_type: 'password', username: 'fred', password } });
    for (let i = 0; i < 6; i += 1) expect((await attempt('wrong')).status).toBe(400);
    expect((await attempt('fred-password')).status).toBe(429);
    // Admin accounts are another realm: alice is unaffected.
    expect((await login('alice', ORG.password)).status).toBe(200);
  });

  it('throttles one client address across many accounts', async () => {
    for (let i = 0; i < 21; i += 1) await login(`user${i}`, 'wrong');
    expect((await login('alice', ORG.password)).status).toBe(429);
  });
});

describe('audit', () => {
  it('writes one line per token issued or refused, without secrets', async () => {
    const info = vi.spyOn(t.deps.logger, 'info');
    await token(t, { grant_type: 'client_credentials', client_id: tenant.app.client_id, client_secret: tenant.app.client_secret });
    await login('alice', 'wrong-password');
    await t.request('POST', '/management/token', { json: { grant_type: 'password', username: 'alice', password: ORG.password } });
    const lines = info.mock.calls.map(([fields]) => fields as Record<string, unknown>).filter((fields) => typeof fields === 'object' && 'event' in fields);
    expect(lines).toEqual([
      expect.objectContaining({ event: 'token_issued', endpoint: '/connect/token', grant_type: 'client_credentials', client_id: tenant.app.client_id, subject_kind: 'application', scope: 'api' }),
      expect.objectContaining({ event: 'token_refused', endpoint: '/connect/token', grant_type: 'password', client_id: 'admin-cli', error: 'invalid_grant' }),
      expect.objectContaining({ event: 'token_issued', endpoint: '/management/token', grant_type: 'password', client_id: 'admin-cli', subject_kind: 'admin' }),
    ]);
    const text = JSON.stringify(lines);
    for (const secret of [tenant.app.client_secret, 'wrong-password', ORG.password, 'eyJ']) expect(text).not.toContain(secret);
  });
});

describe('userinfo', () => {
  it('answers GET and POST with the claims of the granted scopes', async () => {
    const res = await token(t, { grant_type: 'password', client_id: 'admin-cli', username: 'alice', password: ORG.password, scope: 'openid email' });
    const get = await t.request('GET', '/connect/userinfo', { token: res.body.access_token });
    expect(get.status).toBe(200);
    expect(get.body).toEqual({ sub: expect.any(String), email: 'alice@example.com' });
    const post = await t.request('POST', '/connect/userinfo', { form: { access_token: res.body.access_token } });
    expect(post.body).toEqual(get.body);
  });

  it('is 401 invalid_token without a valid token and 403 insufficient_scope without openid', async () => {
    const missing = await t.request('GET', '/connect/userinfo');
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect((await t.request('GET', '/connect/userinfo', { token: 'nope' })).body.error).toBe('invalid_token');
    const apiOnly = await login('alice', ORG.password);
    const res = await t.request('GET', '/connect/userinfo', { token: apiOnly.body.access_token });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('insufficient_scope');
    expect(res.headers.get('www-authenticate')).toContain('insufficient_scope');
  });
});

describe('introspection and revocation', () => {
  it("shows a token only to clients of its own tenant, and not to public clients", async () => {
    const admin = await login('alice', ORG.password);
    const viaOrg = await t.request('POST', '/connect/introspect', { form: { token: admin.body.access_token }, headers: { authorization: basic(tenant.org.client_id, tenant.org.client_secret) } });
    expect(viaOrg.status).toBe(200);
    expect(viaOrg.body).toEqual({ active: false });
    const appToken = await token(t, { grant_type: 'client_credentials', client_id: tenant.app.client_id, client_secret: tenant.app.client_secret });
    const seen = await t.request('POST', '/connect/introspect', { form: { token: appToken.body.access_token }, headers: { authorization: basic(tenant.org.client_id, tenant.org.client_secret) } });
    expect(seen.body).toMatchObject({ active: true, client_id: tenant.app.client_id, scope: 'api' });
    expect(seen.headers.get('cache-control')).toBe('no-store');
    const other = await createTenant(t, { ...ORG, organization: 'globex', username: 'bob', email: 'bob@example.com' }, 'shop');
    const hidden = await t.request('POST', '/connect/introspect', { form: { token: appToken.body.access_token }, headers: { authorization: basic(other.org.client_id, other.org.client_secret) } });
    expect(hidden.body).toEqual({ active: false });
    const publicClient = await t.request('POST', '/connect/introspect', { form: { token: appToken.body.access_token, client_id: 'admin-cli' } });
    expect(publicClient.status).toBe(401);
    expect(publicClient.body.error).toBe('invalid_client');
    const noToken = await t.request('POST', '/connect/introspect', { form: {}, headers: { authorization: basic(tenant.org.client_id, tenant.org.client_secret) } });
    expect(noToken.body.error).toBe('invalid_request');
  });

  it("lets a public client revoke its own refresh token, and refuses another client's", async () => {
    const admin = await token(t, { grant_type: 'password', client_id: 'admin-cli', username: 'alice', password: ORG.password });
    const foreign = await t.request('POST', '/connect/revocation', { form: { token: admin.body.refresh_token }, headers: { authorization: basic(tenant.app.client_id, tenant.app.client_secret) } });
    expect(foreign.status).toBe(400);
    expect(foreign.body.error).toBe('unauthorized_client');
    const own = await t.request('POST', '/connect/revocation', { form: { token: admin.body.refresh_token, client_id: 'admin-cli', token_type_hint: 'refresh_token' } });
    expect(own.status).toBe(200);
    expect((await t.request('GET', '/management/orgs/acme', { token: admin.body.access_token })).status).toBe(401);
    expect((await token(t, { grant_type: 'refresh_token', client_id: 'admin-cli', refresh_token: admin.body.refresh_token })).body.error).toBe('invalid_grant');
  });

  it('revokes one access token by its id and leaves the grant alone', async () => {
    await createAppUser(t, tenant.appUuid, 'fred', 'fred-password');
    const client = await registerClient(t, tenant, { token_endpoint_auth_method: 'none', grant_types: ['password', 'refresh_token'] });
    const first = await token(t, { grant_type: 'password', client_id: client.client_id, username: 'fred', password: 'fred-password' });
    expect((await t.request('GET', '/connect/userinfo', { token: first.body.access_token })).status).toBe(200);
    const revoked = await t.request('POST', '/connect/revocation', { form: { token: first.body.access_token, client_id: client.client_id } });
    expect(revoked.status).toBe(200);
    expect((await t.request('GET', '/connect/userinfo', { token: first.body.access_token })).status).toBe(401);
    const refreshed = await token(t, { grant_type: 'refresh_token', client_id: client.client_id, refresh_token: first.body.refresh_token });
    expect(refreshed.status, refreshed.text).toBe(200);
  });
});
