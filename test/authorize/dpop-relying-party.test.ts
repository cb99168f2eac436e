/**
 * DPoP (RFC 9449) with openid-client 6 as the client, through a real sign-in: the code exchange
 * binds the tokens to the client's key (the server's nonce handled by openid-client), userinfo and
 * the data API take them with proofs, and a public client's refresh token works only with its key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as oidc from 'openid-client';
import { decodeJwt } from 'jose';
import { createClient, createFixture, discover, signInWithOpenidClient, startIdp, type Fixture, type RegisteredClient } from './support.js';

let fixture: Fixture;
let confidential: RegisteredClient;
let publicClient: RegisteredClient;

beforeAll(async () => {
  fixture = await createFixture(await startIdp());
  confidential = await createClient(fixture, { require_consent: false, scope: 'openid profile api' });
  publicClient = await createClient(fixture, { require_consent: false, token_endpoint_auth_method: 'none', scope: 'openid profile api offline_access' });
});
afterAll(() => fixture.server.close());

describe('openid-client with DPoP', () => {
  it('binds the tokens of a code exchange; userinfo and the data API take them with proofs', async () => {
    const config = await discover(fixture, confidential);
    expect(config.serverMetadata().dpop_signing_alg_values_supported).toContain('ES256');
    const dpop = oidc.getDPoPHandle(config, await oidc.randomDPoPKeyPair());
    const tokens = await signInWithOpenidClient(fixture, config, { scope: 'openid profile api', DPoP: dpop });
    expect(tokens.token_type).toBe('dpop');
    expect(decodeJwt(tokens.access_token).cnf).toEqual({ jkt: expect.any(String) });
    const sub = tokens.claims()!.sub;
    const userinfo = await oidc.fetchUserInfo(config, tokens.access_token, sub, { DPoP: dpop });
    expect(userinfo.preferred_username).toBe('bob');
    const me = await oidc.fetchProtectedResource(config, tokens.access_token, new URL(`${fixture.url}/acme/shop/users/me`), 'GET', undefined, undefined, {
      DPoP: dpop,
    });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { entities: { username: string }[] }).entities[0]!.username).toBe('bob');
    // The same token without its key is refused.
    const bearer = await fetch(`${fixture.url}/acme/shop/users/me`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(bearer.status).toBe(401);
    expect(bearer.headers.get('www-authenticate')).toMatch(/^DPoP error="invalid_token"/);
  });

  it("binds a public client's refresh token to its key: refreshing needs a proof of that key", async () => {
    const config = await discover(fixture, publicClient);
    const dpop = oidc.getDPoPHandle(config, await oidc.randomDPoPKeyPair());
    const tokens = await signInWithOpenidClient(fixture, config, { scope: 'openid api offline_access', DPoP: dpop });
    expect(tokens.refresh_token).toEqual(expect.any(String));
    const withOtherKey = oidc.getDPoPHandle(config, await oidc.randomDPoPKeyPair());
    await expect(oidc.refreshTokenGrant(config, tokens.refresh_token!, undefined, { DPoP: withOtherKey })).rejects.toMatchObject({ error: 'invalid_grant' });
    await expect(oidc.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!, undefined, { DPoP: dpop });
    expect(refreshed.token_type).toBe('dpop');
    expect(decodeJwt(refreshed.access_token).cnf).toEqual(decodeJwt(tokens.access_token).cnf);
  });
});
