import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, expectOAuthError, expectRefusal, expectRefusedUnchanged, ORG, type TestApp } from '../helpers.js';
import { basic, createTenant, registerClient, token, type Tenant } from './fixtures.js';

let t: TestApp;
let tenant: Tenant;
const path = '/management/orgs/acme/apps/sandbox/clients';
beforeEach(async () => {
  t = await createTestApp();
  tenant = await createTenant(t);
});
afterEach(() => t.close());

describe('OAuth clients of an application', () => {
  it('registers a confidential client with RFC 7591 defaults and shows its secret once', async () => {
    const res = await t.request('POST', path, { json: { client_name: 'web', redirect_uris: ['https://app.example/cb'] }, token: tenant.adminToken });
    expect(res.status, res.text).toBe(200);
    const client = res.body.entities[0];
    expect(client).toMatchObject({
      type: 'client',
      client_name: 'web',
      redirect_uris: ['https://app.example/cb'],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      scope: 'openid profile email address phone offline_access api',
      token_endpoint_auth_method: 'client_secret_basic',
      require_pkce: false,
      require_consent: true,
      allow_plain_pkce: false,
      identity_providers: [],
      client_secret_expires_at: 0,
    });
    expect(client.client_secret).toEqual(expect.any(String));
    expect(res.body.credentials).toEqual({ client_id: client.client_id, client_secret: client.client_secret });
    // No cache may keep the secret, nor what only an administrator may read.
    expect(res.headers.get('cache-control')).toBe('no-store');
    const read = await t.request('GET', `${path}/${client.client_id}`, { token: tenant.adminToken });
    expect(read.status).toBe(200);
    expect(read.headers.get('cache-control')).toBe('no-store');
    expect(read.body.entities[0].client_secret).toBeUndefined();
    expect(read.text).not.toContain(client.client_secret);
    const list = await t.request('GET', path, { token: tenant.adminToken });
    expect(list.body.count).toBe(1);
    expect(list.headers.get('cache-control')).toBe('no-store');
  });

  it('registers a public client: no secret, PKCE required by default', async () => {
    const res = await t.request('POST', path, {
      json: { token_endpoint_auth_method: 'none', redirect_uris: ['com.example.app:/cb'] },
      token: tenant.adminToken,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.entities[0]).toMatchObject({ require_pkce: true, token_endpoint_auth_method: 'none' });
    expect(res.body.entities[0].client_secret).toBeUndefined();
  });

  it('replaces metadata with PUT, makes a secret when a public client becomes confidential, and deletes', async () => {
    const created = await t.request('POST', path, { json: { token_endpoint_auth_method: 'none', grant_types: ['password'] }, token: tenant.adminToken });
    const id = created.body.entities[0].client_id;
    const updated = await t.request('PUT', `${path}/${id}`, {
      json: { client_name: 'svc', grant_types: ['client_credentials'], token_endpoint_auth_method: 'client_secret_post' },
      token: tenant.adminToken,
    });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body.entities[0]).toMatchObject({ client_name: 'svc', grant_types: ['client_credentials'], response_types: [] });
    const secret = updated.body.entities[0].client_secret;
    expect(secret).toEqual(expect.any(String));
    expect(updated.headers.get('cache-control')).toBe('no-store');
    const issued = await token(t, { grant_type: 'client_credentials', client_id: id, client_secret: secret });
    expect(issued.status, issued.text).toBe(200);
    // Registered for client_secret_post: Basic is refused.
    expectOAuthError(await token(t, { grant_type: 'client_credentials' }, { authorization: basic(id, secret) }), 401, 'invalid_client');
    expect((await t.request('GET', '/acme/sandbox/roles', { token: issued.body.access_token })).status).toBe(200);
    expect((await t.request('DELETE', `${path}/${id}`, { token: tenant.adminToken })).status).toBe(200);
    expectRefusal(await t.request('GET', `${path}/${id}`, { token: tenant.adminToken }), 404, 'not_found');
    expectOAuthError(await token(t, { grant_type: 'client_credentials', client_id: id, client_secret: secret }), 401, 'invalid_client');
    // The client was the principal of its client_credentials token: that token stops working with it.
    expectRefusal(await t.request('GET', '/acme/sandbox/roles', { token: issued.body.access_token }), 401, 'unauthorized');
  });

  it.each([
    ['an unknown grant type', { grant_types: ['magic'] }, 'invalid_client_metadata', 'grant_types'],
    [
      'client_credentials on a public client',
      { grant_types: ['client_credentials'], token_endpoint_auth_method: 'none' },
      'invalid_client_metadata',
      'grant_types',
    ],
    ['a code flow without redirect_uris', { grant_types: ['authorization_code'] }, 'invalid_redirect_uri', 'redirect_uris'],
    ['a javascript: redirect URI', { redirect_uris: ['javascript:alert(1)'] }, 'invalid_redirect_uri', 'redirect_uris'],
    ['a redirect URI with a fragment', { redirect_uris: ['https://app.example/cb#x'] }, 'invalid_redirect_uri', 'redirect_uris'],
    ['a relative redirect URI', { redirect_uris: ['/cb'] }, 'invalid_redirect_uri', 'redirect_uris'],
    ['an unknown scope', { grant_types: ['password'], scope: 'api admin' }, 'invalid_client_metadata', 'scope'],
    [
      'a token response type without the implicit grant',
      { redirect_uris: ['https://a.example/cb'], response_types: ['code id_token'] },
      'invalid_client_metadata',
      'response_types',
    ],
    ['an unknown response type', { redirect_uris: ['https://a.example/cb'], response_types: ['code magic'] }, 'invalid_client_metadata', 'response_types'],
    ['a bad auth method', { token_endpoint_auth_method: 'tls_client_auth' }, 'illegal_argument', 'token_endpoint_auth_method'],
    ['a non-boolean flag', { grant_types: ['password'], require_pkce: 'yes' }, 'illegal_argument', 'require_pkce'],
    ['a client_id chosen by the caller', { client_id: 'mine', grant_types: ['password'] }, 'illegal_argument', 'client_id'],
  ])('refuses %s with 400 and changes nothing', async (_name, metadata, error, field) => {
    const res = await expectRefusedUnchanged(t, () => t.request('POST', path, { json: metadata, token: tenant.adminToken }), 400, error);
    expect(Object.keys(res.body.fields)).toContain(field);
    expect((await t.request('GET', path, { token: tenant.adminToken })).body.count).toBe(0);
  });

  it('accepts response types in any word order and keeps their canonical spelling', async () => {
    const res = await t.request('POST', path, {
      json: { redirect_uris: ['https://a.example/cb'], grant_types: ['authorization_code', 'implicit'], response_types: ['token id_token', 'code'] },
      token: tenant.adminToken,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.entities[0].response_types).toEqual(['id_token token', 'code']);
  });

  it('is for administrators of the organization only', async () => {
    expectRefusal(await t.request('GET', path), 401, 'unauthorized');
    await expectRefusedUnchanged(t, () => t.request('POST', path, { json: { grant_types: ['password'] } }), 401, 'unauthorized');
    await t.request('POST', '/management/orgs', { json: { ...ORG, organization: 'other', username: 'olga', email: 'olga@example.com' } });
    const olga = await t.request('POST', '/management/token', { json: { grant_type: 'password', username: 'olga', password: ORG.password } });
    expectRefusal(await t.request('GET', path, { token: olga.body.access_token }), 403, 'forbidden');
    await expectRefusedUnchanged(t, () => t.request('POST', path, { json: { grant_types: ['password'] }, token: olga.body.access_token }), 403, 'forbidden');
    const { client_id } = await registerClient(t, tenant, { grant_types: ['password'], token_endpoint_auth_method: 'none' });
    const replacement = { json: { grant_types: ['password'], token_endpoint_auth_method: 'none', client_name: 'olga' }, token: olga.body.access_token };
    await expectRefusedUnchanged(t, () => t.request('PUT', `${path}/${client_id}`, replacement), 403, 'forbidden');
    await expectRefusedUnchanged(t, () => t.request('DELETE', `${path}/${client_id}`, { token: olga.body.access_token }), 403, 'forbidden');
    expectRefusal(await t.request('GET', '/management/orgs/acme/apps/nope/clients', { token: tenant.adminToken }), 404, 'application_not_found');
  });
});
