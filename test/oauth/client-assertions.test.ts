/**
 * Client authentication with a JWT (RFC 7523; docs/api.md#client-authentication-with-a-jwt):
 * private_key_jwt with registered `jwks` or a `jwks_uri`, client_secret_jwt with the client's
 * secret, at the token, introspection and revocation endpoints; every bad assertion is refused
 * with invalid_client and a reason, and a replayed one too.
 */
import { createServer, type Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { expectOAuthError, expectRefusedUnchanged, type Clock, type TestApp, type TestResponse } from '../helpers.js';
import { basic, createTenantApp, registerClient, token, type Tenant } from './fixtures.js';

let t: TestApp;
let tenant: Tenant;
let clock: Clock;
beforeEach(async () => {
  ({ t, tenant, clock } = await createTenantApp());
});
afterEach(() => t.close());

const ISSUER = 'http://idp.test';
const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
const CLIENTS = '/management/orgs/acme/apps/sandbox/clients';

interface KeyPair {
  privateKey: CryptoKey;
  jwk: JWK;
}

async function keyPair(alg: 'ES256' | 'RS256' | 'EdDSA' = 'ES256', kid = randomUUID()): Promise<KeyPair> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg } };
}

interface AssertionOptions {
  clientId: string;
  key: CryptoKey | Uint8Array;
  alg?: string;
  kid?: string;
  aud?: string | string[];
  exp?: number | null;
  jti?: string | null;
  iss?: string;
}

/** A client assertion as RFC 7523 3 describes it, with times on the server's test clock. */
function assertion({ clientId, key, alg = 'ES256', kid, aud = ISSUER, exp = 60, jti = randomUUID(), iss = clientId }: AssertionOptions): Promise<string> {
  const now = Math.floor(clock.now / 1000);
  const jwt = new SignJWT({})
    .setProtectedHeader({ alg, ...(kid && { kid }) })
    .setIssuer(iss)
    .setSubject(clientId)
    .setAudience(aud)
    .setIssuedAt(now);
  if (exp !== null) jwt.setExpirationTime(now + exp);
  if (jti !== null) jwt.setJti(jti);
  return jwt.sign(key);
}

function withAssertion(jwt: string, form: Record<string, string> = { grant_type: 'client_credentials' }): Record<string, string> {
  return { ...form, client_assertion_type: ASSERTION_TYPE, client_assertion: jwt };
}

function expectClientRefused(res: TestResponse, reason: RegExp): void {
  expectOAuthError(res, 401, 'invalid_client');
  expect(res.body.error_description).toMatch(reason);
}

const keyed = (metadata: Record<string, unknown>) =>
  registerClient(t, tenant, { grant_types: ['client_credentials'], token_endpoint_auth_method: 'private_key_jwt', ...metadata });

describe('private_key_jwt with registered jwks', () => {
  let key: KeyPair;
  let clientId: string;
  beforeEach(async () => {
    key = await keyPair();
    const client = await keyed({ jwks: { keys: [key.jwk] } });
    expect(client.client_secret).toBeUndefined();
    expect(client.jwks).toEqual({ keys: [key.jwk] });
    clientId = client.client_id;
  });
  const sign = (options: Partial<AssertionOptions> = {}) => assertion({ clientId, key: key.privateKey, kid: key.jwk.kid, ...options });

  it('issues a token for an assertion addressed to the issuer or to the token endpoint, without client_id or with it', async () => {
    const res = await token(t, withAssertion(await sign()));
    expect(res.status, res.text).toBe(200);
    expect(res.body.token_type).toBe('Bearer');
    const viaEndpoint = await token(t, { ...withAssertion(await sign({ aud: `${ISSUER}/connect/token` })), client_id: clientId });
    expect(viaEndpoint.status, viaEndpoint.text).toBe(200);
  });

  it('refuses an assertion used a second time, even before it expires', async () => {
    const jwt = await sign();
    expect((await token(t, withAssertion(jwt))).status).toBe(200);
    expectClientRefused(await token(t, withAssertion(jwt)), /used already/);
    // The same jti in a new assertion is the same replay.
    const jti = randomUUID();
    expect((await token(t, withAssertion(await sign({ jti })))).status).toBe(200);
    expectClientRefused(await token(t, withAssertion(await sign({ jti }))), /used already/);
  });

  it.each([
    ['for another audience', { aud: 'https://elsewhere.example' }, /aud must be the issuer/],
    ['expired', { exp: -60 }, /expired/],
    ['living longer than five minutes', { exp: 3600 }, /lives too long/],
    ['without exp', { exp: null }, /no exp claim/],
    ['without jti', { jti: null }, /no jti claim/],
    ['issued by someone else', { iss: 'someone-else' }, /iss must be the client_id/],
  ] as const)('refuses an assertion %s, storing nothing', async (_name, options, reason) => {
    const jwt = await sign(options);
    const res = await expectRefusedUnchanged(t, () => token(t, withAssertion(jwt)), 401, 'invalid_client');
    expect(res.body.error_description).toMatch(reason);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('refuses an assertion signed with another key, or with an HMAC', async () => {
    const other = await keyPair();
    expectClientRefused(await token(t, withAssertion(await sign({ key: other.privateKey }))), /signature of the client assertion does not verify/);
    expectClientRefused(await token(t, withAssertion(await sign({ key: other.privateKey, kid: other.jwk.kid }))), /no key of this client's matches/);
    const hmac = await sign({ key: new TextEncoder().encode('x'.repeat(32)), alg: 'HS256' });
    expectClientRefused(await token(t, withAssertion(hmac)), /registered for private_key_jwt, not client_secret_jwt/);
  });

  it('refuses a secret, a second method, a wrong assertion type and a missing assertion', async () => {
    expectClientRefused(await token(t, { grant_type: 'client_credentials', client_id: clientId, client_secret: 'guess' }), /registered for private_key_jwt/);
    expectOAuthError(await token(t, { ...withAssertion(await sign()), client_secret: 'x' }), 400, 'invalid_request');
    expectOAuthError(await token(t, withAssertion(await sign()), { authorization: basic(clientId, 'x') }), 400, 'invalid_request');
    expectClientRefused(await token(t, { ...withAssertion(await sign()), client_assertion_type: 'urn:other' }), /client_assertion_type must be/);
    expectOAuthError(await token(t, { grant_type: 'client_credentials', client_assertion_type: ASSERTION_TYPE }), 400, 'invalid_request');
    expectClientRefused(await token(t, withAssertion('not-a-jwt')), /not a JWT/);
    expectClientRefused(await token(t, { ...withAssertion(await sign()), client_id: 'another-client' }), /client authentication failed/);
  });

  it('keeps to the one algorithm the client registered', async () => {
    const rsa = await keyPair('RS256');
    const client = await keyed({ jwks: { keys: [key.jwk, rsa.jwk] }, token_endpoint_auth_signing_alg: 'RS256' });
    const signed = (pair: KeyPair, alg: string) => assertion({ clientId: client.client_id, key: pair.privateKey, kid: pair.jwk.kid, alg });
    expect((await token(t, withAssertion(await signed(rsa, 'RS256')))).status).toBe(200);
    expectClientRefused(await token(t, withAssertion(await signed(key, 'ES256'))), /algorithm this client may not use/);
  });

  it('authenticates the client at introspection and revocation too', async () => {
    const issued = await token(t, withAssertion(await sign()));
    const introspected = await t.request('POST', '/connect/introspect', { form: withAssertion(await sign(), { token: issued.body.access_token }) });
    expect(introspected.status, introspected.text).toBe(200);
    expect(introspected.body).toMatchObject({ active: true, client_id: clientId });
    const revoked = await t.request('POST', '/connect/revocation', { form: withAssertion(await sign(), { token: issued.body.access_token }) });
    expect(revoked.status, revoked.text).toBe(200);
    const after = await t.request('POST', '/connect/introspect', { form: withAssertion(await sign(), { token: issued.body.access_token }) });
    expect(after.body).toEqual({ active: false });
    expectClientRefused(
      await t.request('POST', '/connect/introspect', { form: withAssertion(await sign({ exp: -60 }), { token: issued.body.access_token }) }),
      /expired/,
    );
  });
});

describe('client_secret_jwt', () => {
  it('takes an HS256 assertion keyed with the secret of a client registered for it', async () => {
    const client = await registerClient(t, tenant, { grant_types: ['client_credentials'], token_endpoint_auth_method: 'client_secret_jwt' });
    const secret = new TextEncoder().encode(client.client_secret!);
    const sign = (options: Partial<AssertionOptions> = {}) => assertion({ clientId: client.client_id, key: secret, alg: 'HS256', ...options });
    const jwt = await sign();
    expect((await token(t, withAssertion(jwt))).status).toBe(200);
    expectClientRefused(await token(t, withAssertion(jwt)), /used already/);
    expectClientRefused(await token(t, withAssertion(await sign({ key: new TextEncoder().encode('not the secret, but as long as one') }))), /does not verify/);
    // Its secret is a key, not a password to send.
    expectClientRefused(
      await token(t, { grant_type: 'client_credentials' }, { authorization: basic(client.client_id, client.client_secret!) }),
      /registered for/,
    );
  });

  it("takes the application's credentials as well, and refuses a client whose secret only its hash is kept of", async () => {
    const sign = (clientId: string, secret: string) => assertion({ clientId, key: new TextEncoder().encode(secret), alg: 'HS256' });
    const res = await token(t, withAssertion(await sign(tenant.app.client_id, tenant.app.client_secret)));
    expect(res.status, res.text).toBe(200);
    const basicClient = await registerClient(t, tenant, { grant_types: ['client_credentials'] });
    expectClientRefused(await token(t, withAssertion(await sign(basicClient.client_id, basicClient.client_secret!))), /registered for client_secret_basic/);
  });

  it('gives a client that switches to client_secret_jwt a new secret, since only the hash of the old one was kept', async () => {
    const client = await registerClient(t, tenant, { grant_types: ['client_credentials'] });
    const put = await t.request('PUT', `${CLIENTS}/${client.client_id}`, {
      json: { grant_types: ['client_credentials'], token_endpoint_auth_method: 'client_secret_jwt' },
      token: tenant.adminToken,
    });
    expect(put.status, put.text).toBe(200);
    const secret = put.body.entities[0].client_secret as string;
    expect(secret).toEqual(expect.any(String));
    expect(secret).not.toBe(client.client_secret);
    const sign = (key: string) => assertion({ clientId: client.client_id, key: new TextEncoder().encode(key), alg: 'HS256' });
    expectClientRefused(await token(t, withAssertion(await sign(client.client_secret!))), /does not verify/);
    expect((await token(t, withAssertion(await sign(secret)))).status).toBe(200);
  });
});

describe('client keys in the metadata', () => {
  it.each(
    [
      ['jwks and jwks_uri together', { jwks: { keys: [] }, jwks_uri: 'https://rp.example/jwks' }, 'jwks'],
      ['private_key_jwt without keys', {}, 'jwks'],
      ['a private key', 'private', 'jwks'],
      ['a symmetric key', { jwks: { keys: [{ kty: 'oct', k: 'c2VjcmV0' }] } }, 'jwks'],
      ['a key that is no key', { jwks: { keys: [{ kty: 'EC', crv: 'P-256', x: 'AA', y: 'AA' }] } }, 'jwks'],
      ['a set that is no set', { jwks: [{ kty: 'EC' }] }, 'jwks'],
      ['a jwks_uri over plain http', { jwks_uri: 'http://rp.example/jwks' }, 'jwks_uri'],
      ['a jwks_uri that is no URL', { jwks_uri: 'keys' }, 'jwks_uri'],
      ['an HMAC alg for private_key_jwt', 'alg', 'token_endpoint_auth_signing_alg'],
    ].map(([name, metadata, field]) => ({ name: name as string, metadata, field: field as string })),
  )('refuses $name: 400 invalid_client_metadata naming $field, storing nothing', async ({ metadata, field }) => {
    const key = await keyPair();
    const body =
      metadata === 'private'
        ? { jwks: { keys: [{ ...(await exportJWK(key.privateKey)), kid: 'k' }] } }
        : metadata === 'alg'
          ? { jwks: { keys: [key.jwk] }, token_endpoint_auth_signing_alg: 'HS256' }
          : metadata;
    const send = () =>
      t.request('POST', CLIENTS, {
        json: { grant_types: ['client_credentials'], token_endpoint_auth_method: 'private_key_jwt', ...body },
        token: tenant.adminToken,
      });
    const res = await expectRefusedUnchanged(t, send, 400, 'invalid_client_metadata');
    expect(Object.keys(res.body.fields)).toEqual([field]);
  });

  it('registers keys at /connect/register too', async () => {
    const key = await keyPair();
    const res = await t.request('POST', '/connect/register', {
      json: { grant_types: ['client_credentials'], token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [key.jwk] } },
      token: (await token(t, { grant_type: 'client_credentials' }, { authorization: basic(tenant.app.client_id, tenant.app.client_secret) })).body.access_token,
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.client_secret).toBeUndefined();
    const jwt = await assertion({ clientId: res.body.client_id, key: key.privateKey, kid: key.jwk.kid });
    expect((await token(t, withAssertion(jwt))).status).toBe(200);
  });
});

describe('private_key_jwt with a jwks_uri', () => {
  let server: Server;
  let served: { keys: JWK[] } | string;
  let fetches: number;
  let uri: string;
  beforeEach(async () => {
    fetches = 0;
    server = createServer((_req, res) => {
      fetches++;
      res.setHeader('content-type', 'application/json');
      res.end(typeof served === 'string' ? served : JSON.stringify(served));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    uri = `http://127.0.0.1:${(server.address() as { port: number }).port}/jwks`;
  });
  afterEach(async () => {
    vi.useRealTimers();
    await new Promise((resolve) => server.close(resolve));
  });

  it('fetches the keys once, and again when an assertion names a kid it has not seen', async () => {
    const first = await keyPair();
    served = { keys: [first.jwk] };
    const client = await keyed({ jwks_uri: uri });
    expect(client.jwks_uri).toBe(uri);
    expect(fetches).toBe(0);
    const sign = (pair: KeyPair) => assertion({ clientId: client.client_id, key: pair.privateKey, kid: pair.jwk.kid });
    expect((await token(t, withAssertion(await sign(first)))).status).toBe(200);
    expect((await token(t, withAssertion(await sign(first)))).status).toBe(200);
    expect(fetches).toBe(1);

    // The client rotates its keys; an assertion with the new kid refetches them (after a cooldown).
    const second = await keyPair();
    served = { keys: [first.jwk, second.jwk] };
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 31_000 });
    expect((await token(t, withAssertion(await sign(second)))).status).toBe(200);
    expect(fetches).toBe(2);
    // An unknown kid within the cooldown is refused without fetching again.
    const stranger = await keyPair();
    expectClientRefused(await token(t, withAssertion(await sign(stranger))), /no key of this client's matches/);
    expect(fetches).toBe(2);
  });

  it('refuses an assertion when the jwks_uri answers too much, or no JWK Set', async () => {
    const key = await keyPair();
    served = JSON.stringify({ keys: [key.jwk], padding: 'x'.repeat(70_000) });
    const client = await keyed({ jwks_uri: uri });
    const sign = () => assertion({ clientId: client.client_id, key: key.privateKey, kid: key.jwk.kid });
    expectClientRefused(await token(t, withAssertion(await sign())), /jwks_uri could not be fetched/);
    served = '{"keys": "none"}';
    const other = await keyed({ jwks_uri: `${uri}?v=2` });
    expectClientRefused(await token(t, withAssertion(await assertion({ clientId: other.client_id, key: key.privateKey, kid: key.jwk.kid }))), /not valid/);
  });
});
