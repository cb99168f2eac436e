/**
 * panva's openid-client (v6) as the relying party against a real server on a socket: discovery,
 * client credentials, password, refresh, userinfo, introspection and revocation, with a secret
 * or a client assertion (private_key_jwt, client_secret_jwt); every token is checked with jose
 * against the published JWKS.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as oidc from 'openid-client';
import { createRemoteJWKSet, exportJWK, generateKeyPair, jwtVerify } from 'jose';
import type { RunningServer } from '../../server/serve.js';
import { startTestServer } from '../database.js';
import { insertEntity } from '../../src/db/entity-store.js';
import { setAppUserPassword } from '../../src/identity/sign-in/app-user-passwords.js';

let server: RunningServer;
let credentials: { client_id: string; client_secret: string };
let oauthClient: { client_id: string; client_secret: string };
let adminToken: string;

async function call(path: string, init: { method?: string; json?: unknown; token?: string } = {}) {
  const response = await fetch(server.url + path, {
    method: init.method ?? (init.json ? 'POST' : 'GET'),
    headers: { ...(init.json !== undefined && { 'content-type': 'application/json' }), ...(init.token && { authorization: `Bearer ${init.token}` }) },
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
  });
  return { status: response.status, body: await response.json() };
}

const insecure = { execute: [oidc.allowInsecureRequests] };

beforeAll(async () => {
  server = await startTestServer({ port: '0' });
  await call('/management/orgs', { json: { organization: 'acme', username: 'alice', name: 'Alice', email: 'alice@example.com', password: 'correct-horse' } });
  const admin = await call('/management/token', { json: { grant_type: 'password', username: 'alice', password: 'correct-horse' } });
  adminToken = admin.body.access_token;
  const app = await call('/management/orgs/acme/apps', { json: { name: 'sandbox' }, token: admin.body.access_token });
  credentials = (await call('/management/orgs/acme/apps/sandbox/credentials', { token: admin.body.access_token })).body.credentials;
  const client = await call('/management/orgs/acme/apps/sandbox/clients', {
    json: {
      client_name: 'resource server',
      grant_types: ['client_credentials', 'password', 'refresh_token'],
      token_endpoint_auth_method: 'client_secret_post',
    },
    token: admin.body.access_token,
  });
  oauthClient = client.body.entities[0];
  const appUuid = app.body.entities[0].uuid;
  const user = await insertEntity(server.deps.db, {
    appUuid,
    collection: 'users',
    type: 'user',
    name: 'fred',
    properties: { username: 'fred', email: 'fred@example.com' },
    now: Date.now(),
  });
  await setAppUserPassword(server.deps, appUuid, user.uuid, 'fred-password');
});
afterAll(() => server.close());

function jwks() {
  return createRemoteJWKSet(new URL(`${server.url}/.well-known/openid-configuration/jwks`));
}

describe('openid-client against a running idp', () => {
  it('discovers the issuer and its endpoints', async () => {
    const config = await oidc.discovery(new URL(server.url), credentials.client_id, credentials.client_secret, undefined, insecure);
    const metadata = config.serverMetadata();
    expect(metadata.issuer).toBe(server.url);
    expect(metadata.token_endpoint).toBe(`${server.url}/connect/token`);
    expect(metadata.grant_types_supported).toEqual(
      expect.arrayContaining(['client_credentials', 'password', 'refresh_token', 'authorization_code', 'urn:ietf:params:oauth:grant-type:token-exchange']),
    );
    expect(metadata.authorization_endpoint).toBe(`${server.url}/connect/authorize`);
  });

  it('gets a client_credentials token that verifies against the JWKS and opens the management API', async () => {
    const config = await oidc.discovery(
      new URL(server.url),
      credentials.client_id,
      credentials.client_secret,
      oidc.ClientSecretBasic(credentials.client_secret),
      insecure,
    );
    const tokens = await oidc.clientCredentialsGrant(config, { scope: 'api' });
    const { payload, protectedHeader } = await jwtVerify(tokens.access_token, jwks(), { issuer: server.url, audience: server.url, typ: 'at+jwt' });
    expect(protectedHeader.alg).toBe('ES256');
    expect(payload).toMatchObject({ client_id: credentials.client_id, scope: 'api' });
    expect(tokens.expires_in).toBe(3600);
  });

  it('signs an app user in with genericGrantRequest(password), refreshes, reads userinfo', async () => {
    const config = await oidc.discovery(
      new URL(server.url),
      oauthClient.client_id,
      oauthClient.client_secret,
      oidc.ClientSecretPost(oauthClient.client_secret),
      insecure,
    );
    const tokens = await oidc.genericGrantRequest(config, 'password', {
      username: 'fred',
      password: 'fred-password',
      scope: 'openid profile email offline_access api',
    });
    const idToken = await jwtVerify(tokens.id_token!, jwks(), { issuer: server.url, audience: oauthClient.client_id });
    expect(idToken.protectedHeader.alg).toBe('RS256');
    expect(tokens.claims()).toMatchObject({ preferred_username: 'fred', email: 'fred@example.com' });
    const userinfo = await oidc.fetchUserInfo(config, tokens.access_token, tokens.claims()!.sub);
    expect(userinfo).toMatchObject({ preferred_username: 'fred', email: 'fred@example.com' });

    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    await jwtVerify(refreshed.access_token, jwks(), { issuer: server.url, audience: server.url });
    await expect(oidc.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('introspects and revokes', async () => {
    const config = await oidc.discovery(
      new URL(server.url),
      oauthClient.client_id,
      oauthClient.client_secret,
      oidc.ClientSecretPost(oauthClient.client_secret),
      insecure,
    );
    const tokens = await oidc.genericGrantRequest(config, 'password', { username: 'fred', password: 'fred-password' });
    const active = await oidc.tokenIntrospection(config, tokens.access_token);
    expect(active).toMatchObject({ active: true, client_id: oauthClient.client_id, username: 'fred', token_type: 'Bearer' });
    const refresh = await oidc.tokenIntrospection(config, tokens.refresh_token!, { token_type_hint: 'refresh_token' });
    expect(refresh).toMatchObject({ active: true, token_type: 'refresh_token' });

    await oidc.tokenRevocation(config, tokens.refresh_token!);
    expect((await oidc.tokenIntrospection(config, tokens.refresh_token!)).active).toBe(false);
    // Revoking the refresh token ended its grant: the access token of the grant is dead too.
    expect((await oidc.tokenIntrospection(config, tokens.access_token)).active).toBe(false);

    const other = await oidc.genericGrantRequest(config, 'password', { username: 'fred', password: 'fred-password', scope: 'api' });
    await oidc.tokenRevocation(config, other.access_token);
    expect((await oidc.tokenIntrospection(config, other.access_token)).active).toBe(false);
    await oidc.tokenRevocation(config, 'not-a-token');
  });

  it('answers introspection as a signed JWT for Accept: application/token-introspection+jwt (RFC 9701)', async () => {
    const metadata = { client_secret: oauthClient.client_secret, introspection_signed_response_alg: 'RS256' };
    const config = await oidc.discovery(new URL(server.url), oauthClient.client_id, metadata, oidc.ClientSecretPost(oauthClient.client_secret), insecure);
    expect(config.serverMetadata().introspection_signing_alg_values_supported).toEqual(['RS256']);
    const tokens = await oidc.genericGrantRequest(config, 'password', { username: 'fred', password: 'fred-password' });
    // openid-client asks for the JWT, checks its typ, iss and aud, and hands back token_introspection.
    expect(await oidc.tokenIntrospection(config, tokens.access_token)).toMatchObject({ active: true, client_id: oauthClient.client_id, username: 'fred' });

    const introspect = (token: string, accept: string) =>
      fetch(`${server.url}/connect/introspect`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept },
        body: new URLSearchParams({ token, client_id: oauthClient.client_id, client_secret: oauthClient.client_secret }),
      });
    const signed = await introspect(tokens.access_token, 'application/token-introspection+jwt');
    expect(signed.status).toBe(200);
    expect(signed.headers.get('content-type')).toBe('application/token-introspection+jwt');
    const { payload, protectedHeader } = await jwtVerify(await signed.text(), jwks(), {
      issuer: server.url,
      audience: oauthClient.client_id,
      typ: 'token-introspection+jwt',
    });
    expect(protectedHeader.alg).toBe('RS256');
    expect(payload.iat).toEqual(expect.any(Number));
    expect(payload.token_introspection).toMatchObject({ active: true, sub: expect.any(String), scope: tokens.scope, username: 'fred' });

    const inactive = await introspect('not-a-token', 'application/json, application/token-introspection+jwt;q=0.9');
    expect((await jwtVerify(await inactive.text(), jwks())).payload.token_introspection).toEqual({ active: false });
    // Without that media type in Accept, the answer stays RFC 7662's JSON.
    const plain = await introspect(tokens.access_token, 'application/json');
    expect(plain.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await plain.json()).toMatchObject({ active: true, username: 'fred' });
  });

  it('reports errors the way openid-client understands them', async () => {
    const config = await oidc.discovery(new URL(server.url), credentials.client_id, 'wrong-secret', oidc.ClientSecretBasic('wrong-secret'), insecure);
    // A 401 with WWW-Authenticate: Basic surfaces as openid-client's challenge error.
    const failure = await oidc.clientCredentialsGrant(config).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(oidc.WWWAuthenticateChallengeError);
    expect(failure).toMatchObject({ status: 401, cause: [expect.objectContaining({ scheme: 'basic' })] });
    const right = await oidc.discovery(new URL(server.url), credentials.client_id, credentials.client_secret, undefined, insecure);
    await expect(oidc.clientCredentialsGrant(right, { scope: 'openid' })).rejects.toMatchObject({ error: 'invalid_scope', status: 400 });
  });
});

describe('openid-client with client assertions (RFC 7523)', () => {
  async function register(metadata: Record<string, unknown>) {
    const res = await call('/management/orgs/acme/apps/sandbox/clients', {
      json: { grant_types: ['client_credentials', 'password', 'refresh_token'], ...metadata },
      token: adminToken,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.entities[0] as { client_id: string; client_secret?: string };
  }

  it('authenticates with PrivateKeyJwt at the token, introspection and revocation endpoints', async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const client = await register({ token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [{ ...(await exportJWK(publicKey)), kid: 'rp-1' }] } });
    const config = await oidc.discovery(new URL(server.url), client.client_id, undefined, oidc.PrivateKeyJwt({ key: privateKey, kid: 'rp-1' }), insecure);
    const service = await oidc.clientCredentialsGrant(config, { scope: 'api' });
    const { payload } = await jwtVerify(service.access_token, jwks(), { issuer: server.url, audience: server.url });
    expect(payload.client_id).toBe(client.client_id);

    const tokens = await oidc.genericGrantRequest(config, 'password', { username: 'fred', password: 'fred-password', scope: 'openid offline_access api' });
    expect(await oidc.tokenIntrospection(config, tokens.access_token)).toMatchObject({ active: true, client_id: client.client_id, username: 'fred' });
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    await oidc.tokenRevocation(config, refreshed.refresh_token!);
    expect((await oidc.tokenIntrospection(config, refreshed.access_token)).active).toBe(false);

    // Another key is refused as openid-client reports a 401.
    const stranger = await generateKeyPair('ES256');
    const wrong = await oidc.discovery(
      new URL(server.url),
      client.client_id,
      undefined,
      oidc.PrivateKeyJwt({ key: stranger.privateKey, kid: 'rp-1' }),
      insecure,
    );
    await expect(oidc.clientCredentialsGrant(wrong)).rejects.toMatchObject({ status: 401 });
  });

  it('authenticates with ClientSecretJwt, registered or with the application credentials', async () => {
    const client = await register({ token_endpoint_auth_method: 'client_secret_jwt' });
    const config = await oidc.discovery(new URL(server.url), client.client_id, undefined, oidc.ClientSecretJwt(client.client_secret!), insecure);
    const tokens = await oidc.genericGrantRequest(config, 'password', { username: 'fred', password: 'fred-password', scope: 'api' });
    expect((await oidc.tokenIntrospection(config, tokens.access_token)).active).toBe(true);

    const app = await oidc.discovery(new URL(server.url), credentials.client_id, undefined, oidc.ClientSecretJwt(credentials.client_secret), insecure);
    expect((await oidc.clientCredentialsGrant(app, { scope: 'api' })).token_type).toBe('bearer');
  });

  it('finds both methods and their algorithms in discovery', async () => {
    const config = await oidc.discovery(new URL(server.url), credentials.client_id, undefined, undefined, insecure);
    const metadata = config.serverMetadata();
    for (const endpoint of ['token', 'introspection', 'revocation'] as const) {
      expect(metadata[`${endpoint}_endpoint_auth_methods_supported`]).toEqual(expect.arrayContaining(['private_key_jwt', 'client_secret_jwt']));
      expect(metadata[`${endpoint}_endpoint_auth_signing_alg_values_supported`]).toEqual(expect.arrayContaining(['ES256', 'RS256', 'HS256']));
    }
  });
});
