/**
 * DPoP (RFC 9449) over raw HTTP, with proofs made by hand: the token endpoint's nonce, binding
 * (`cnf.jkt`, `token_type: DPoP`, introspection), and every proof and token check a client
 * could get wrong at the token endpoint, userinfo and the data API.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash, randomUUID } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { basic, claimsOf, createTenantApp, registerClient, type Tenant } from './fixtures.js';
import { snapshot, type Clock, type TestApp, type TestResponse } from '../helpers.js';

let t: TestApp;
let tenant: Tenant;
let clock: Clock;
let client: { client_id: string; client_secret?: string };
let key: DpopKey;
let other: DpopKey;

interface DpopKey {
  privateKey: CryptoKey;
  jwk: JWK;
  jkt: string;
}

async function newKey(): Promise<DpopKey> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jwk = await exportJWK(publicKey);
  return { privateKey, jwk, jkt: await calculateJwkThumbprint(jwk) };
}

interface ProofOptions {
  htm?: string;
  htu?: string;
  iat?: number;
  jti?: string;
  nonce?: string;
  accessToken?: string;
  typ?: string;
  jwk?: JWK;
}

/** A DPoP proof (RFC 9449 4.2) for `method` `path` at the test issuer, signed with `signer`. */
async function proof(signer: DpopKey, method: string, path: string, options: ProofOptions = {}): Promise<string> {
  const payload: Record<string, unknown> = {
    htm: options.htm ?? method,
    htu: options.htu ?? `http://idp.test${path}`,
    iat: options.iat ?? Math.floor(clock.now / 1000),
    jti: options.jti ?? randomUUID(),
    ...(options.nonce !== undefined && { nonce: options.nonce }),
    ...(options.accessToken !== undefined && { ath: createHash('sha256').update(options.accessToken).digest('base64url') }),
  };
  return new SignJWT(payload).setProtectedHeader({ alg: 'ES256', typ: options.typ ?? 'dpop+jwt', jwk: options.jwk ?? signer.jwk }).sign(signer.privateKey);
}

const CREDENTIALS = { grant_type: 'client_credentials', scope: 'api' };

function tokenRequest(dpop?: string, form: Record<string, string> = CREDENTIALS, who = client): Promise<TestResponse> {
  return t.request('POST', '/connect/token', {
    form,
    headers: { authorization: basic(who.client_id, who.client_secret!), ...(dpop !== undefined && { dpop }) },
  });
}

/** The server's current nonce, as its use_dpop_nonce answer gives it. */
async function serverNonce(): Promise<string> {
  const res = await tokenRequest(await proof(key, 'POST', '/connect/token'));
  expect(res.status).toBe(400);
  expect(res.body.error).toBe('use_dpop_nonce');
  return res.headers.get('dpop-nonce')!;
}

/** A DPoP-bound access token of `client` for `signer`'s key. */
async function boundToken(signer = key): Promise<string> {
  const res = await tokenRequest(await proof(signer, 'POST', '/connect/token', { nonce: await serverNonce() }));
  expect(res.status, res.text).toBe(200);
  return res.body.access_token;
}

const USERS = '/acme/sandbox/users';

function resource(path: string, authorization: string, dpop?: string): Promise<TestResponse> {
  return t.request('GET', path, { headers: { authorization, ...(dpop !== undefined && { dpop }) } });
}

function expectDpopChallenge(res: TestResponse, error: string): void {
  expect(res.status, res.text).toBe(401);
  expect(res.headers.get('www-authenticate')).toMatch(new RegExp(`^DPoP error="${error}", error_description="[^"]+", algs="ES256 [^"]*"$`));
}

beforeAll(async () => {
  ({ t, tenant, clock } = await createTenantApp());
  client = await registerClient(t, tenant, { client_name: 'api', grant_types: ['client_credentials'], redirect_uris: [] });
  key = await newKey();
  other = await newKey();
});
afterAll(() => t.close());

describe('the token endpoint', () => {
  it('asks for its nonce, then binds the token to the proof key', async () => {
    const first = await tokenRequest(await proof(key, 'POST', '/connect/token'));
    expect(first.status).toBe(400);
    expect(first.body).toMatchObject({ error: 'use_dpop_nonce', error_description: expect.any(String) });
    const nonce = first.headers.get('dpop-nonce');
    expect(nonce).toEqual(expect.any(String));
    const res = await tokenRequest(await proof(key, 'POST', '/connect/token', { nonce: nonce! }));
    expect(res.status, res.text).toBe(200);
    expect(res.body.token_type).toBe('DPoP');
    expect(res.headers.get('dpop-nonce')).toEqual(expect.any(String));
    expect(claimsOf(res.body.access_token).cnf).toEqual({ jkt: key.jkt });
    const introspection = await t.request('POST', '/connect/introspect', {
      form: { token: res.body.access_token },
      headers: { authorization: basic(client.client_id, client.client_secret!) },
    });
    expect(introspection.body).toMatchObject({ active: true, token_type: 'DPoP', cnf: { jkt: key.jkt } });
  });

  it('without a proof issues a Bearer token, as before', async () => {
    const res = await tokenRequest();
    expect(res.body.token_type).toBe('Bearer');
    expect(claimsOf(res.body.access_token).cnf).toBeUndefined();
  });

  it('a nonce from another period is refused with a fresh one', async () => {
    const nonce = await serverNonce();
    clock.now += 11 * 60_000;
    try {
      const res = await tokenRequest(await proof(key, 'POST', '/connect/token', { nonce }));
      expect(res.body.error).toBe('use_dpop_nonce');
      expect(res.headers.get('dpop-nonce')).not.toBe(nonce);
    } finally {
      clock.now -= 11 * 60_000;
    }
  });

  const bad: [name: string, make: (nonce: string) => Promise<string>][] = [
    ['a replayed proof (jti)', async (nonce) => proof(key, 'POST', '/connect/token', { nonce, jti: 'replayed-jti' })],
    ['another htu', async (nonce) => proof(key, 'POST', '/connect/token', { nonce, htu: 'http://idp.test/connect/userinfo' })],
    ['another host in htu', async (nonce) => proof(key, 'POST', '/connect/token', { nonce, htu: 'https://evil.example/connect/token' })],
    ['another htm', async (nonce) => proof(key, 'POST', '/connect/token', { nonce, htm: 'GET' })],
    ['a stale iat', async (nonce) => proof(key, 'POST', '/connect/token', { nonce, iat: Math.floor(clock.now / 1000) - 120 })],
    ['an iat in the future', async (nonce) => proof(key, 'POST', '/connect/token', { nonce, iat: Math.floor(clock.now / 1000) + 120 })],
    ['typ JWT', async (nonce) => proof(key, 'POST', '/connect/token', { nonce, typ: 'JWT' })],
    ['a jwk that did not sign it', async (nonce) => proof(key, 'POST', '/connect/token', { nonce, jwk: other.jwk })],
    ['a private jwk', async (nonce) => proof(key, 'POST', '/connect/token', { nonce, jwk: { ...key.jwk, d: 'AAAA' } })],
    ['two proofs', async (nonce) => `${await proof(key, 'POST', '/connect/token', { nonce })}, ${await proof(key, 'POST', '/connect/token', { nonce })}`],
    [
      'an HMAC proof',
      async (nonce) =>
        new SignJWT({ htm: 'POST', htu: 'http://idp.test/connect/token', iat: Math.floor(clock.now / 1000), jti: randomUUID(), nonce })
          .setProtectedHeader({ alg: 'HS256', typ: 'dpop+jwt' })
          .sign(new Uint8Array(32)),
    ],
  ];
  it.each(bad)('refuses %s with invalid_dpop_proof, storing nothing', async (name, make) => {
    const nonce = await serverNonce();
    if (name.startsWith('a replayed')) expect((await tokenRequest(await make(nonce))).status).toBe(200);
    const before = await snapshot(t, { except: ['jti_replay'] });
    const res = await tokenRequest(await make(nonce));
    expect(res.status, res.text).toBe(400);
    expect(res.body).toMatchObject({ error: 'invalid_dpop_proof', error_description: expect.any(String) });
    expect(await snapshot(t, { except: ['jti_replay'] })).toBe(before);
  });

  it('a client registered with dpop_bound_access_tokens gets no token without a proof', async () => {
    const strict = await registerClient(t, tenant, { grant_types: ['client_credentials'], redirect_uris: [], dpop_bound_access_tokens: true });
    expect(strict.dpop_bound_access_tokens).toBe(true);
    const refused = await tokenRequest(undefined, CREDENTIALS, strict);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('invalid_dpop_proof');
    const nonce = await serverNonce();
    const res = await tokenRequest(await proof(key, 'POST', '/connect/token', { nonce }), CREDENTIALS, strict);
    expect(res.body.token_type).toBe('DPoP');
  });

  it('discovery lists the proof algorithms', async () => {
    const res = await t.request('GET', '/.well-known/openid-configuration');
    expect(res.body.dpop_signing_alg_values_supported).toContain('ES256');
    expect(res.body.dpop_signing_alg_values_supported).not.toContain('HS256');
  });
});

describe('the data API and userinfo', () => {
  it('take a bound token with the DPoP scheme and a proof of its key for that request', async () => {
    const accessToken = await boundToken();
    const res = await resource(`${USERS}?limit=1`, `DPoP ${accessToken}`, await proof(key, 'GET', USERS, { accessToken }));
    expect(res.status, res.text).toBe(200);
    expect(res.body.entities).toEqual([]);
  });

  it('refuse a bound token presented as Bearer or as ?access_token=', async () => {
    const accessToken = await boundToken();
    expectDpopChallenge(await resource(USERS, `Bearer ${accessToken}`), 'invalid_token');
    const query = await t.request('GET', `${USERS}?access_token=${accessToken}`);
    expectDpopChallenge(query, 'invalid_token');
    expect(query.body.error).toBe('unauthorized');
  });

  it('refuse a proof of another key, and a Bearer token sent with the DPoP scheme', async () => {
    const accessToken = await boundToken();
    expectDpopChallenge(await resource(USERS, `DPoP ${accessToken}`, await proof(other, 'GET', USERS, { accessToken })), 'invalid_dpop_proof');
    const bearer = (await tokenRequest()).body.access_token;
    expectDpopChallenge(await resource(USERS, `DPoP ${bearer}`, await proof(key, 'GET', USERS, { accessToken: bearer })), 'invalid_token');
  });

  const bad: [name: string, make: (accessToken: string) => Promise<string | undefined>][] = [
    ['no proof', async () => undefined],
    ['no ath', async () => proof(key, 'GET', USERS)],
    ['the ath of another token', async () => proof(key, 'GET', USERS, { accessToken: 'another' })],
    ['another htu', async (accessToken) => proof(key, 'GET', '/acme/sandbox/dogs', { accessToken })],
    ['another htm', async (accessToken) => proof(key, 'POST', USERS, { accessToken })],
    ['a stale iat', async (accessToken) => proof(key, 'GET', USERS, { accessToken, iat: Math.floor(clock.now / 1000) - 120 })],
  ];
  it.each(bad)('refuse a proof with %s', async (_name, make) => {
    const accessToken = await boundToken();
    expectDpopChallenge(await resource(USERS, `DPoP ${accessToken}`, await make(accessToken)), 'invalid_dpop_proof');
  });

  it('refuse a proof replayed at the same resource', async () => {
    const accessToken = await boundToken();
    const once = await proof(key, 'GET', USERS, { accessToken });
    expect((await resource(USERS, `DPoP ${accessToken}`, once)).status).toBe(200);
    expectDpopChallenge(await resource(USERS, `DPoP ${accessToken}`, once), 'invalid_dpop_proof');
  });

  it('userinfo refuses a bound token as Bearer with a DPoP challenge', async () => {
    const accessToken = await boundToken();
    const res = await t.request('GET', '/connect/userinfo', { headers: { authorization: `Bearer ${accessToken}` } });
    expectDpopChallenge(res, 'invalid_token');
    expect(res.body.error).toBe('invalid_token');
  });
});
