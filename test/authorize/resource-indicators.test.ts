/**
 * Resource indicators (RFC 8707) and DPoP code binding (RFC 9449 10) through a real sign-in, with
 * openid-client 6 as the client: the resources of the authorization request are the tokens'
 * `aud`, narrowed at the exchange and on refresh, never widened; a token for another resource is
 * refused by this server's own API; a code bound with `dpop_jkt` is exchanged only with a proof
 * of that key. docs/api.md#resource-indicators and #dpop.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as oidc from 'openid-client';
import { calculateJwkThumbprint, decodeJwt, decodeProtectedHeader, exportJWK } from 'jose';
import { authorizeAsUser, Browser, createClient, createFixture, redirectOf, REDIRECT, startIdp, type Fixture, type RegisteredClient } from './support.js';
import { basic } from '../oauth/fixtures.js';

const ORDERS = 'https://orders.example/api';
const BILLING = 'https://billing.example';

let fixture: Fixture;
let client: RegisteredClient;
let config: oidc.Configuration;

beforeAll(async () => {
  fixture = await createFixture(await startIdp());
  client = await createClient(fixture, { require_consent: false, scope: 'openid profile api offline_access' });
  config = await oidc.discovery(new URL(fixture.url), client.client_id, undefined, oidc.ClientSecretBasic(client.client_secret!), {
    execute: [oidc.allowInsecureRequests],
  });
});
afterAll(() => fixture.server.close());

/** A code flow's authorize step, with `extra` parameters (each `resource` its own); the code's callback URL. */
async function signIn(extra: [string, string][], scope = 'openid api offline_access') {
  const verifier = oidc.randomPKCECodeVerifier();
  const params = new URLSearchParams({
    redirect_uri: REDIRECT,
    scope,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  for (const [name, value] of extra) params.append(name, value);
  const response = await authorizeAsUser(new Browser(fixture.url), oidc.buildAuthorizationUrl(config, params).toString());
  return { callback: new URL(response.headers.get('location')!), verifier };
}

function exchange(signedIn: { callback: URL; verifier: string }, parameters?: Record<string, string>, options?: oidc.DPoPOptions) {
  return oidc.authorizationCodeGrant(config, signedIn.callback, { pkceCodeVerifier: signedIn.verifier }, parameters, options);
}

function introspect(token: string) {
  return fetch(`${fixture.url}/connect/introspect`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(client.client_id, client.client_secret!) },
    body: new URLSearchParams({ token }),
  }).then((response) => response.json());
}

describe('resource indicators (RFC 8707)', () => {
  it('makes the authorized resources the access token’s aud, narrowed at the exchange and on refresh, never widened', async () => {
    const signedIn = await signIn([
      ['resource', ORDERS],
      ['resource', BILLING],
    ]);
    const tokens = await exchange(signedIn, { resource: ORDERS });
    const claims = decodeJwt(tokens.access_token);
    // RFC 9068 2.2: the JWT access token's own claims are all there.
    expect(decodeProtectedHeader(tokens.access_token).typ).toBe('at+jwt');
    expect(claims).toMatchObject({ aud: ORDERS, client_id: client.client_id, jti: expect.any(String), sub: fixture.userUuid });

    const both = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    expect(decodeJwt(both.access_token).aud).toEqual([ORDERS, BILLING]);
    const billing = await oidc.refreshTokenGrant(config, both.refresh_token!, { resource: BILLING });
    expect(decodeJwt(billing.access_token).aud).toBe(BILLING);
    await expect(oidc.refreshTokenGrant(config, billing.refresh_token!, { resource: 'https://elsewhere.example' })).rejects.toMatchObject({
      error: 'invalid_target',
      status: 400,
    });
    // The refused refresh changed nothing: the same refresh token still works.
    expect((await oidc.refreshTokenGrant(config, billing.refresh_token!)).access_token).toEqual(expect.any(String));
  });

  it('refuses at the exchange a resource the authorization request did not name', async () => {
    const signedIn = await signIn([['resource', ORDERS]]);
    await expect(exchange(signedIn, { resource: BILLING })).rejects.toMatchObject({ error: 'invalid_target' });
  });

  it('takes the resources of the token request when the authorization request named none', async () => {
    const tokens = await exchange(await signIn([]), { resource: ORDERS });
    expect(decodeJwt(tokens.access_token).aud).toBe(ORDERS);
    await expect(oidc.refreshTokenGrant(config, tokens.refresh_token!, { resource: BILLING })).rejects.toMatchObject({ error: 'invalid_target' });
  });

  it('keeps this server’s own API and userinfo to tokens for this server; introspection speaks for every resource', async () => {
    const foreign = await exchange(await signIn([['resource', ORDERS]]));
    const me = await fetch(`${fixture.url}/acme/shop/users/me`, { headers: { authorization: `Bearer ${foreign.access_token}` } });
    expect(me.status).toBe(401);
    expect(((await me.json()) as { error_description: string }).error_description).toMatch(/another resource/);
    await expect(oidc.fetchUserInfo(config, foreign.access_token, oidc.skipSubjectCheck)).rejects.toMatchObject({ status: 401 });
    expect(await introspect(foreign.access_token)).toMatchObject({ active: true, aud: ORDERS, client_id: client.client_id });

    const own = await exchange(await signIn([['resource', fixture.url]]));
    expect(decodeJwt(own.access_token).aud).toBe(fixture.url);
    const ownMe = await fetch(`${fixture.url}/acme/shop/users/me`, { headers: { authorization: `Bearer ${own.access_token}` } });
    expect(ownMe.status).toBe(200);
    // Without resources the token is for this server, as ever.
    expect(decodeJwt((await exchange(await signIn([]))).access_token).aud).toBe(fixture.url);
  });

  it('answers a resource that is no absolute URI, or has a fragment, with invalid_target at the redirect URI and from /connect/par', async () => {
    for (const resource of ['orders', `${ORDERS}#part`]) {
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: REDIRECT,
        scope: 'openid',
        state: 'st',
        resource,
        code_challenge: 'x'.repeat(43),
        code_challenge_method: 'S256',
      });
      const redirected = redirectOf(await new Browser(fixture.url).get(url.toString()));
      expect(redirected.query.get('error')).toBe('invalid_target');
      expect(redirected.query.get('state')).toBe('st');
      await expect(
        oidc.buildAuthorizationUrlWithPAR(config, {
          redirect_uri: REDIRECT,
          scope: 'openid',
          resource,
          code_challenge: 'x'.repeat(43),
          code_challenge_method: 'S256',
        }),
      ).rejects.toMatchObject({ error: 'invalid_target', status: 400 });
    }
  });
});

describe('DPoP authorization code binding (RFC 9449 10)', () => {
  async function thumbprintOf(pair: CryptoKeyPair): Promise<string> {
    return calculateJwkThumbprint(await exportJWK(pair.publicKey));
  }

  it('exchanges a code bound with dpop_jkt only with a proof of that key', async () => {
    const pair = await oidc.randomDPoPKeyPair();
    const dpop = oidc.getDPoPHandle(config, pair);
    const jkt = await thumbprintOf(pair);

    const noProof = await signIn([['dpop_jkt', jkt]]);
    await expect(exchange(noProof)).rejects.toMatchObject({ error: 'invalid_grant', error_description: expect.stringMatching(/dpop_jkt/) });
    const otherKey = await signIn([['dpop_jkt', jkt]]);
    await expect(exchange(otherKey, undefined, { DPoP: oidc.getDPoPHandle(config, await oidc.randomDPoPKeyPair()) })).rejects.toMatchObject({
      error: 'invalid_grant',
    });

    const tokens = await exchange(await signIn([['dpop_jkt', jkt]]), undefined, { DPoP: dpop });
    expect(tokens.token_type).toBe('dpop');
    expect(decodeJwt(tokens.access_token).cnf).toEqual({ jkt });
  });

  it('binds a pushed request’s code the same way', async () => {
    const pair = await oidc.randomDPoPKeyPair();
    const verifier = oidc.randomPKCECodeVerifier();
    const url = await oidc.buildAuthorizationUrlWithPAR(config, {
      redirect_uri: REDIRECT,
      scope: 'openid',
      dpop_jkt: await thumbprintOf(pair),
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    const callback = new URL((await authorizeAsUser(new Browser(fixture.url), url.toString())).headers.get('location')!);
    await expect(exchange({ callback, verifier })).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('binds the code to the key of a DPoP proof sent with the push (RFC 9449 10.1)', async () => {
    const pair = await oidc.randomDPoPKeyPair();
    const dpop = oidc.getDPoPHandle(config, pair);
    const pushAndSignIn = async (DPoP: oidc.DPoPHandle, extra: Record<string, string> = {}) => {
      const verifier = oidc.randomPKCECodeVerifier();
      const params = {
        redirect_uri: REDIRECT,
        scope: 'openid',
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      };
      // openid-client sends the proof with the push and answers the server's nonce.
      const url = await oidc.buildAuthorizationUrlWithPAR(config, { ...params, ...extra }, { DPoP });
      const callback = new URL((await authorizeAsUser(new Browser(fixture.url), url.toString())).headers.get('location')!);
      return { callback, verifier };
    };
    await expect(exchange(await pushAndSignIn(dpop))).rejects.toMatchObject({ error: 'invalid_grant' });
    const tokens = await exchange(await pushAndSignIn(dpop), undefined, { DPoP: dpop });
    expect(decodeJwt(tokens.access_token).cnf).toEqual({ jkt: await thumbprintOf(pair) });
    const other = await thumbprintOf(await oidc.randomDPoPKeyPair());
    await expect(pushAndSignIn(dpop, { dpop_jkt: other })).rejects.toMatchObject({ error: 'invalid_dpop_proof', status: 400 });
  });

  it('refuses a dpop_jkt that is no thumbprint with invalid_request', async () => {
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      scope: 'openid',
      dpop_jkt: 'short',
      code_challenge: 'x'.repeat(43),
      code_challenge_method: 'S256',
    });
    const redirected = redirectOf(await new Browser(fixture.url).get(url.toString()));
    expect(redirected.query.get('error')).toBe('invalid_request');
    expect(redirected.query.get('error_description')).toMatch(/dpop_jkt/);
  });
});
