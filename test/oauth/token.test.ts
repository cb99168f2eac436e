import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectOAuthError, expectRefusal, expectRefusedUnchanged, ORG, type Clock, type TestApp, type TestResponse } from '../helpers.js';
import { basic, claimsOf, createAppUser, createTenantApp, registerClient, token, type Tenant } from './fixtures.js';

let t: TestApp;
let clock: Clock;
let tenant: Tenant;
beforeEach(async () => {
  ({ t, tenant, clock } = await createTenantApp());
});
afterEach(() => t.close());

const adminLogin = (extra: Record<string, string> = {}) =>
  token(t, { grant_type: 'password', client_id: 'admin-cli', username: ORG.username, password: ORG.password, ...extra });

describe('client_credentials', () => {
  it('issues an API token for application credentials sent with client_secret_post', async () => {
    const res = await token(t, { grant_type: 'client_credentials', client_id: tenant.app.client_id, client_secret: tenant.app.client_secret });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'api' });
    expect(res.body.refresh_token).toBeUndefined();
    expect(res.body.id_token).toBeUndefined();
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(claimsOf(res.body.access_token)).toMatchObject({
      sub: tenant.app.client_id,
      client_id: tenant.app.client_id,
      idp_kind: 'application',
      app: tenant.appUuid,
    });
  });

  it('accepts client_secret_basic with form-url-encoded credentials (RFC 6749 2.3.1)', async () => {
    const percent = (text: string) => [...text].map((ch) => `%${ch.charCodeAt(0).toString(16).padStart(2, '0')}`).join('');
    const header = `Basic ${Buffer.from(`${percent(tenant.org.client_id)}:${percent(tenant.org.client_secret)}`).toString('base64')}`;
    const res = await token(t, { grant_type: 'client_credentials' }, { authorization: header });
    expect(res.status, res.text).toBe(200);
    const org = await t.request('GET', '/management/orgs/acme', { token: res.body.access_token });
    expect(org.status).toBe(200);
  });

  it('issues tokens to a confidential OAuth client of the application, acting as the application', async () => {
    const client = await registerClient(t, tenant, { grant_types: ['client_credentials'], token_endpoint_auth_method: 'client_secret_basic' });
    const res = await token(t, { grant_type: 'client_credentials' }, { authorization: basic(client.client_id, client.client_secret!) });
    expect(res.status, res.text).toBe(200);
    expect(claimsOf(res.body.access_token)).toMatchObject({ idp_kind: 'application', app: tenant.appUuid, client_id: client.client_id });
  });

  it('refuses identity scopes: a client acting for itself has no end user', async () => {
    const res = await token(t, {
      grant_type: 'client_credentials',
      client_id: tenant.app.client_id,
      client_secret: tenant.app.client_secret,
      scope: 'openid api',
    });
    expectOAuthError(res, 400, 'invalid_scope');
  });
});

describe('password', () => {
  it('signs an admin in through admin-cli with every scope when none is asked for', async () => {
    const res = await adminLogin();
    expect(res.status, res.text).toBe(200);
    expect(res.body.scope).toBe('openid profile email offline_access api');
    expect(res.body.refresh_token).toEqual(expect.any(String));
    const id = claimsOf(res.body.id_token);
    expect(id).toMatchObject({ iss: 'http://idp.test', aud: 'admin-cli', preferred_username: 'alice', email: 'alice@example.com', amr: ['pwd'] });
    expect(id.sub).toBe(claimsOf(res.body.access_token).sub);
    expect(JSON.parse(Buffer.from(res.body.id_token.split('.')[0], 'base64url').toString()).alg).toBe('RS256');
    expect(JSON.parse(Buffer.from(res.body.access_token.split('.')[0], 'base64url').toString())).toMatchObject({ alg: 'ES256', typ: 'at+jwt' });
  });

  it('gives no refresh token without offline_access and no ID token without openid', async () => {
    const res = await adminLogin({ scope: 'api' });
    expect(res.status).toBe(200);
    expect(res.body.scope).toBe('api');
    expect(res.body.refresh_token).toBeUndefined();
    expect(res.body.id_token).toBeUndefined();
  });

  it("signs an application's users in through its public client and its credentials", async () => {
    await createAppUser(t, tenant.appUuid, 'fred', 'fred-password', { email: 'fred@example.com' });
    const client = await registerClient(t, tenant, { token_endpoint_auth_method: 'none', grant_types: ['password', 'refresh_token'] });
    expect(client.client_secret).toBeUndefined();
    const viaClient = await token(t, { grant_type: 'password', client_id: client.client_id, username: 'fred@example.com', password: 'fred-password' });
    expect(viaClient.status, viaClient.text).toBe(200);
    expect(claimsOf(viaClient.body.access_token)).toMatchObject({ idp_kind: 'app-user', app: tenant.appUuid, preferred_username: 'fred' });
    const viaCredentials = await token(
      t,
      { grant_type: 'password', username: 'fred', password: 'fred-password', scope: 'api' },
      { authorization: basic(tenant.app.client_id, tenant.app.client_secret) },
    );
    expect(viaCredentials.status, viaCredentials.text).toBe(200);
  });

  it('honours acr_values tenant: for admin sign-in and refuses idp: (it needs a browser)', async () => {
    expect((await adminLogin({ acr_values: 'tenant:acme' })).status).toBe(200);
    await t.request('POST', '/management/orgs', { json: { ...ORG, organization: 'other', username: 'olga', email: 'olga@example.com' } });
    expectOAuthError(await adminLogin({ acr_values: 'tenant:other' }), 400, 'invalid_grant');
    expectOAuthError(await adminLogin({ acr_values: 'tenant:missing' }), 400, 'invalid_grant');
    expectOAuthError(await adminLogin({ acr_values: 'idp:google' }), 400, 'invalid_request');
  });

  it('answers a wrong password and an unknown user alike', async () => {
    const wrong = await adminLogin({ password: 'nope' });
    const unknown = await adminLogin({ username: 'nobody' });
    expectOAuthError(wrong, 400, 'invalid_grant');
    expectOAuthError(unknown, 400, 'invalid_grant');
    expect(wrong.body.error_description).toBe(unknown.body.error_description);
  });
});

describe('refresh_token', () => {
  it('rotates on every use and keeps the grant', async () => {
    const first = await adminLogin();
    const second = await token(t, { grant_type: 'refresh_token', client_id: 'admin-cli', refresh_token: first.body.refresh_token });
    expect(second.status, second.text).toBe(200);
    expect(second.body.refresh_token).not.toBe(first.body.refresh_token);
    expect(claimsOf(second.body.access_token).gid).toBe(claimsOf(first.body.access_token).gid);
    const third = await token(t, { grant_type: 'refresh_token', client_id: 'admin-cli', refresh_token: second.body.refresh_token, scope: 'api' });
    expect(third.status).toBe(200);
    expect(third.body.scope).toBe('api');
    expect(third.body.refresh_token).toEqual(expect.any(String));
  });

  it('revokes the whole grant when a rotated refresh token comes back', async () => {
    const first = await adminLogin();
    const second = await token(t, { grant_type: 'refresh_token', client_id: 'admin-cli', refresh_token: first.body.refresh_token });
    expect((await t.request('GET', '/management/orgs/acme', { token: second.body.access_token })).status).toBe(200);
    expectOAuthError(await token(t, { grant_type: 'refresh_token', client_id: 'admin-cli', refresh_token: first.body.refresh_token }), 400, 'invalid_grant');
    for (const access of [first.body.access_token, second.body.access_token]) {
      expectRefusal(await t.request('GET', '/management/orgs/acme', { token: access }), 401, 'unauthorized');
    }
    expectOAuthError(await token(t, { grant_type: 'refresh_token', client_id: 'admin-cli', refresh_token: second.body.refresh_token }), 400, 'invalid_grant');
  });

  it('refuses a wider scope, another client, and an expired token', async () => {
    const login = await adminLogin({ scope: 'offline_access api' });
    expectOAuthError(
      await token(t, { grant_type: 'refresh_token', client_id: 'admin-cli', refresh_token: login.body.refresh_token, scope: 'openid' }),
      400,
      'invalid_scope',
    );
    const other = await token(
      t,
      { grant_type: 'refresh_token', refresh_token: login.body.refresh_token },
      { authorization: basic(tenant.app.client_id, tenant.app.client_secret) },
    );
    expectOAuthError(other, 400, 'invalid_grant');
    clock.now += 31 * 24 * 3600 * 1000;
    expectOAuthError(await token(t, { grant_type: 'refresh_token', client_id: 'admin-cli', refresh_token: login.body.refresh_token }), 400, 'invalid_grant');
  });
});

describe('token exchange (RFC 8693)', () => {
  const TYPE = 'urn:ietf:params:oauth:token-type:access_token';
  const GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';

  it("trades an app user's token for one of the application's client, with act and a narrower scope", async () => {
    await createAppUser(t, tenant.appUuid, 'fred', 'fred-password');
    const user = await token(
      t,
      { grant_type: 'password', username: 'fred', password: 'fred-password' },
      { authorization: basic(tenant.app.client_id, tenant.app.client_secret) },
    );
    const res = await token(
      t,
      { grant_type: GRANT, subject_token: user.body.access_token, subject_token_type: TYPE },
      { authorization: basic(tenant.app.client_id, tenant.app.client_secret) },
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ issued_token_type: TYPE, token_type: 'Bearer', scope: 'api' });
    const claims = claimsOf(res.body.access_token);
    expect(claims).toMatchObject({ sub: claimsOf(user.body.access_token).sub, act: { sub: tenant.app.client_id }, gid: claimsOf(user.body.access_token).gid });
  });

  it('refuses a bad subject token, a foreign audience, and a subject of another tenant', async () => {
    const creds = { authorization: basic(tenant.app.client_id, tenant.app.client_secret) };
    expectOAuthError(await token(t, { grant_type: GRANT, subject_token: 'garbage', subject_token_type: TYPE }, creds), 400, 'invalid_request');
    expectOAuthError(await token(t, { grant_type: GRANT, subject_token: 'x', subject_token_type: 'urn:other' }, creds), 400, 'invalid_request');
    const admin = await adminLogin();
    expectOAuthError(
      await token(t, { grant_type: GRANT, subject_token: admin.body.access_token, subject_token_type: TYPE, audience: 'https://elsewhere.example' }, creds),
      400,
      'invalid_target',
    );
    expectOAuthError(await token(t, { grant_type: GRANT, subject_token: admin.body.access_token, subject_token_type: TYPE }, creds), 400, 'invalid_request');
  });
});

describe('errors of the token endpoint (RFC 6749 5.2)', () => {
  it('invalid_request: no grant_type, a repeated parameter, or a JSON body', async () => {
    expectOAuthError(await token(t, { client_id: 'admin-cli' }), 400, 'invalid_request');
    const repeated = await t.request('POST', '/connect/token', {
      body: 'grant_type=password&grant_type=password&client_id=admin-cli',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expectOAuthError(repeated, 400, 'invalid_request');
    expectOAuthError(await t.request('POST', '/connect/token', { json: { grant_type: 'client_credentials' } }), 400, 'invalid_request');
    expectOAuthError(await adminLogin({ password: '' }), 400, 'invalid_request');
  });

  it('invalid_client: 401, and WWW-Authenticate: Basic after Basic authentication', async () => {
    // A refused client authentication issues nothing and records nothing.
    const refused = async (send: () => Promise<TestResponse>) => {
      const res = await expectRefusedUnchanged(t, send, 401, 'invalid_client');
      expectOAuthError(res, 401, 'invalid_client');
      return res;
    };
    const res = await refused(() => token(t, { grant_type: 'client_credentials' }, { authorization: basic(tenant.app.client_id, 'wrong') }));
    expect(res.headers.get('www-authenticate')).toMatch(/^Basic /);
    await refused(() => token(t, { grant_type: 'client_credentials', client_id: 'nobody', client_secret: 'x' }));
    await refused(() => token(t, { grant_type: 'client_credentials', client_id: tenant.app.client_id }));
    await refused(() => token(t, { grant_type: 'password', client_id: 'admin-cli', client_secret: 'x' }));
    await refused(() => token(t, { grant_type: 'client_credentials' }));
  });

  it('invalid_grant, unauthorized_client, unsupported_grant_type and invalid_scope', async () => {
    expectOAuthError(await adminLogin({ password: 'wrong' }), 400, 'invalid_grant');
    expectOAuthError(
      await token(t, { grant_type: 'password', client_id: tenant.org.client_id, client_secret: tenant.org.client_secret, username: 'alice', password: 'x' }),
      400,
      'unauthorized_client',
    );
    expectOAuthError(await token(t, { grant_type: 'client_credentials', client_id: 'admin-cli' }), 400, 'unauthorized_client');
    expectOAuthError(await token(t, { grant_type: 'implicit', client_id: 'admin-cli' }), 400, 'unsupported_grant_type');
    expectOAuthError(await adminLogin({ scope: 'api admin' }), 400, 'invalid_scope');
    const apiOnly = await registerClient(t, tenant, { grant_types: ['password'], scope: 'api', token_endpoint_auth_method: 'none' });
    expectOAuthError(
      await token(t, { grant_type: 'password', client_id: apiOnly.client_id, username: 'x', password: 'y', scope: 'openid' }),
      400,
      'invalid_scope',
    );
  });
});

describe('access tokens on the management API', () => {
  it('refuses an expired token with 401 expired_token', async () => {
    const login = await adminLogin({ scope: 'api' });
    clock.now += 3601_000;
    expectRefusal(await t.request('GET', '/management/orgs/acme', { token: login.body.access_token }), 401, 'expired_token');
  });
});

describe('methods', () => {
  it('answers 405 with Allow for other methods on the /connect endpoints', async () => {
    for (const [method, path, allow] of [
      ['GET', '/connect/token', 'POST'],
      ['DELETE', '/connect/revocation', 'POST'],
      ['PUT', '/connect/userinfo', 'GET, POST'],
    ]) {
      const res = await t.request(method, path);
      expectOAuthError(res, 405, 'method_not_allowed');
      expect(res.headers.get('allow')).toBe(allow);
    }
  });
});
