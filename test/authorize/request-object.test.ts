/**
 * Request objects by value (RFC 9101, OIDC Core 6.1; docs/api.md#request-objects): openid-client's
 * JAR signed with the client's key, HS256 with its secret, `none` only where registered; the
 * object's parameters are the request; a bad one is refused with invalid_request_object.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as oidc from 'openid-client';
import { decodeJwt, exportJWK, generateKeyPair, SignJWT, UnsecuredJWT, type CryptoKey, type JWTPayload } from 'jose';
import {
  authorizeAsUser,
  Browser,
  createClient,
  createFixture,
  exchangeCode,
  redirectOf,
  REDIRECT,
  startIdp,
  USER,
  type Fixture,
  type RegisteredClient,
} from './support.js';
import { basic } from '../oauth/fixtures.js';

let fixture: Fixture;
let keyed: RegisteredClient;
let hmac: RegisteredClient;
let unsigned: RegisteredClient;
let privateKey: CryptoKey;

beforeAll(async () => {
  fixture = await createFixture(await startIdp());
  const pair = await generateKeyPair('ES256');
  privateKey = pair.privateKey;
  const jwks = { keys: [{ ...(await exportJWK(pair.publicKey)), kid: 'rp-1' }] };
  const common = { require_consent: false, grant_types: ['authorization_code'], response_types: ['code'] };
  keyed = await createClient(fixture, { ...common, token_endpoint_auth_method: 'private_key_jwt', jwks });
  hmac = await createClient(fixture, { ...common, request_object_signing_alg: 'HS256', require_pkce: false });
  unsigned = await createClient(fixture, { ...common, request_object_signing_alg: 'none', require_pkce: false });
});
afterAll(() => fixture.server.close());

const insecure = { execute: [oidc.allowInsecureRequests] };

/** The authorize URL of a request object, with only client_id (and `extra`) beside it. */
function byValue(clientId: string, request: string, extra: Record<string, string> = {}): string {
  return `${fixture.url}/connect/authorize?${new URLSearchParams({ client_id: clientId, request, ...extra })}`;
}

/** A code request's claims as a request object carries them. */
function codeClaims(clientId: string, claims: JWTPayload = {}): JWTPayload {
  return { client_id: clientId, response_type: 'code', redirect_uri: REDIRECT, scope: 'openid', state: 'inner', nonce: 'n-1', ...claims };
}

function sign(clientId: string, key: CryptoKey | Uint8Array, alg: string, claims: JWTPayload = {}, aud = fixture.url, exp = '2m'): Promise<string> {
  return new SignJWT(codeClaims(clientId, claims))
    .setProtectedHeader({ alg, kid: 'rp-1' })
    .setIssuer(clientId)
    .setAudience(aud)
    .setIssuedAt()
    .setExpirationTime(exp)
    .sign(key);
}

describe('request objects', () => {
  it('takes openid-client’s signed request object (JAR), and the code it leads to with private_key_jwt', async () => {
    const config = await oidc.discovery(new URL(fixture.url), keyed.client_id, undefined, oidc.PrivateKeyJwt({ key: privateKey, kid: 'rp-1' }), insecure);
    expect(config.serverMetadata()).toMatchObject({ request_parameter_supported: true, request_uri_parameter_supported: false });
    expect(config.serverMetadata().request_object_signing_alg_values_supported).toEqual(expect.arrayContaining(['ES256', 'HS256', 'none']));
    const verifier = oidc.randomPKCECodeVerifier();
    const nonce = oidc.randomNonce();
    const url = await oidc.buildAuthorizationUrlWithJAR(
      config,
      {
        redirect_uri: REDIRECT,
        scope: 'openid profile',
        nonce,
        state: 'st-jar',
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        max_age: '600',
      },
      { key: privateKey, kid: 'rp-1' },
    );
    expect([...url.searchParams.keys()].sort()).toEqual(['client_id', 'request']);
    const response = await authorizeAsUser(new Browser(fixture.url), url.toString());
    expect(response.status).toBe(303);
    const tokens = await oidc.authorizationCodeGrant(config, new URL(response.headers.get('location')!), {
      pkceCodeVerifier: verifier,
      expectedNonce: nonce,
      expectedState: 'st-jar',
      idTokenExpected: true,
    });
    expect(tokens.claims()).toMatchObject({ nonce, preferred_username: 'bob' });
  });

  it('takes HS256 keyed with the secret, and the object’s parameters replace the query’s', async () => {
    const request = await sign(hmac.client_id, new TextEncoder().encode(hmac.client_secret!), 'HS256');
    const response = await authorizeAsUser(
      new Browser(fixture.url),
      byValue(hmac.client_id, request, { state: 'outer', redirect_uri: 'https://evil.example/cb' }),
    );
    const redirect = redirectOf(response);
    expect(`${redirect.url.origin}${redirect.url.pathname}`).toBe(REDIRECT);
    expect(redirect.query.get('state')).toBe('inner');
    expect(redirect.query.get('code')).toBeTruthy();
  });

  it('reads claims as the JSON object a request object carries (OIDC Core 6.1)', async () => {
    const request = await sign(hmac.client_id, new TextEncoder().encode(hmac.client_secret!), 'HS256', { claims: { id_token: { email: null } } });
    const code = redirectOf(await authorizeAsUser(new Browser(fixture.url), byValue(hmac.client_id, request))).query.get('code');
    const tokens = await exchangeCode(fixture, hmac, code!);
    expect(decodeJwt(tokens.id_token).email).toBe(USER.email);
  });

  it('takes an unsigned request object only from a client that registered none', async () => {
    const request = new UnsecuredJWT(codeClaims(unsigned.client_id)).setIssuer(unsigned.client_id).setAudience(fixture.url).encode();
    expect(redirectOf(await authorizeAsUser(new Browser(fixture.url), byValue(unsigned.client_id, request))).query.get('code')).toBeTruthy();
    const other = new UnsecuredJWT(codeClaims(hmac.client_id)).setIssuer(hmac.client_id).setAudience(fixture.url).encode();
    const refused = await new Browser(fixture.url).get(byValue(hmac.client_id, other));
    expect(refused.status).toBe(400);
    expect(refused.headers.get('location')).toBeNull();
    const page = await refused.text();
    expect(page).toContain('data-error="invalid_request_object"');
    expect(page).toContain('did not register it');
  });

  const secret = () => new TextEncoder().encode(hmac.client_secret!);
  const cases: { name: string; request: () => Promise<string>; reason: RegExp }[] = [
    { name: 'for another audience', request: () => sign(hmac.client_id, secret(), 'HS256', {}, 'https://elsewhere.example'), reason: /not for this server/ },
    { name: 'expired', request: () => sign(hmac.client_id, secret(), 'HS256', {}, fixture.url, '-2m'), reason: /expired/ },
    { name: 'with another client_id', request: () => sign(hmac.client_id, secret(), 'HS256', { client_id: keyed.client_id }), reason: /client_id/ },
    { name: 'signed with another secret', request: () => sign(hmac.client_id, new TextEncoder().encode('x'.repeat(43)), 'HS256'), reason: /does not verify/ },
    { name: 'with an algorithm the client did not register', request: async () => sign(hmac.client_id, privateKey, 'ES256'), reason: /may use HS256/ },
    { name: 'that is no JWT', request: async () => 'not-a-jwt', reason: /not a JWT/ },
  ];
  for (const { name, request, reason } of cases) {
    it(`refuses a request object ${name}: invalid_request_object at the query's registered redirect_uri, else on the error page`, async () => {
      const jwt = await request();
      const redirected = redirectOf(
        await new Browser(fixture.url).get(byValue(hmac.client_id, jwt, { redirect_uri: REDIRECT, state: 'outer', response_type: 'code' })),
      );
      expect(`${redirected.url.origin}${redirected.url.pathname}`).toBe(REDIRECT);
      expect(redirected.query.get('error')).toBe('invalid_request_object');
      expect(redirected.query.get('error_description')).toMatch(reason);
      expect(redirected.query.get('state')).toBe('outer');
      const page = await new Browser(fixture.url).get(byValue(hmac.client_id, jwt));
      expect(page.status).toBe(400);
      expect(await page.text()).toContain('data-error="invalid_request_object"');
    });
  }

  describe('a client registered with require_signed_request_object (RFC 9101 10.5)', () => {
    let strict: RegisteredClient;
    beforeAll(async () => {
      strict = await createClient(fixture, {
        require_consent: false,
        require_pkce: false,
        grant_types: ['authorization_code'],
        response_types: ['code'],
        request_object_signing_alg: 'HS256',
        require_signed_request_object: true,
      });
    });
    const strictSecret = () => new TextEncoder().encode(strict.client_secret!);
    const plainQuery = () => ({ client_id: strict.client_id, response_type: 'code', redirect_uri: REDIRECT, scope: 'openid', state: 's-1' });

    it('is shown in its metadata, and refused with nothing to sign with', async () => {
      const read = await fetch(`${fixture.url}/management/orgs/acme/apps/shop/clients/${strict.client_id}`, {
        headers: { authorization: `Bearer ${fixture.adminToken}` },
      });
      expect((await read.json()).entities[0].require_signed_request_object).toBe(true);
      const refused = await fetch(`${fixture.url}/management/orgs/acme/apps/shop/clients`, {
        method: 'POST',
        headers: { authorization: `Bearer ${fixture.adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ redirect_uris: [REDIRECT], request_object_signing_alg: 'none', require_signed_request_object: true }),
      });
      expect(refused.status).toBe(400);
      expect(await refused.json()).toMatchObject({ error: 'invalid_client_metadata', fields: { require_signed_request_object: expect.any(String) } });
    });

    it('refuses a plain authorization request at its redirect URI, and takes a signed one', async () => {
      const plain = redirectOf(await new Browser(fixture.url).get(`${fixture.url}/connect/authorize?${new URLSearchParams(plainQuery())}`));
      expect(plain.query.get('error')).toBe('invalid_request');
      expect(plain.query.get('error_description')).toMatch(/signed request object/);
      expect(plain.query.get('state')).toBe('s-1');
      const request = await sign(strict.client_id, strictSecret(), 'HS256');
      const code = redirectOf(await authorizeAsUser(new Browser(fixture.url), byValue(strict.client_id, request))).query.get('code');
      expect((await exchangeCode(fixture, strict, code!)).access_token).toBeTruthy();
    });

    it('refuses a pushed request without a request object, and takes a pushed signed one', async () => {
      const push = (form: Record<string, string>) =>
        fetch(`${fixture.url}/connect/par`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(strict.client_id, strict.client_secret!) },
          body: new URLSearchParams(form),
        });
      const refused = await push(plainQuery());
      expect(refused.status).toBe(400);
      expect(await refused.json()).toMatchObject({ error: 'invalid_request', error_description: expect.stringMatching(/signed request object/) });
      const pushed = await push({ client_id: strict.client_id, request: await sign(strict.client_id, strictSecret(), 'HS256') });
      expect(pushed.status).toBe(201);
      const { request_uri } = (await pushed.json()) as { request_uri: string };
      const url = `${fixture.url}/connect/authorize?${new URLSearchParams({ client_id: strict.client_id, request_uri })}`;
      expect(redirectOf(await authorizeAsUser(new Browser(fixture.url), url)).query.get('code')).toBeTruthy();
    });
  });

  it('refuses request_uri: by reference only through pushed authorization requests', async () => {
    const redirected = redirectOf(
      await new Browser(fixture.url).get(byValue(hmac.client_id, 'x', { request_uri: 'https://rp.example/r', redirect_uri: REDIRECT })),
    );
    expect(redirected.query.get('error')).toBe('invalid_request_object');
  });
});
