/**
 * The `claims` request parameter (OIDC Core 5.5) with openid-client as the relying party: single
 * claims asked for the ID token and for userinfo without their scope, kept through the code
 * exchange and refresh; a bad `claims` is `invalid_request` at the redirect URI; response_type
 * `id_token` alone carries every claim of its scopes (5.4).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as oidc from 'openid-client';
import { api, authorizeAsUser, Browser, createClient, createFixture, redirectOf, REDIRECT, startIdp, USER, type Fixture } from './support.js';

let fixture: Fixture;
let client: { client_id: string; client_secret?: string };
let config: oidc.Configuration;

function discover(): Promise<oidc.Configuration> {
  return oidc.discovery(new URL(fixture.url), client.client_id, undefined, oidc.ClientSecretBasic(client.client_secret!), {
    execute: [oidc.allowInsecureRequests],
  });
}

beforeAll(async () => {
  fixture = await createFixture(await startIdp());
  client = await createClient(fixture, { require_consent: false });
  await api(fixture, 'PUT', `/acme/shop/users/${fixture.userUuid}`, { given_name: 'Bob', family_name: 'Builder', phone_number: '+1 555 0100' });
  config = await discover();
});
afterAll(() => fixture.server.close());

describe('the claims parameter', () => {
  it('is announced in discovery', () => {
    expect(config.serverMetadata().claims_parameter_supported).toBe(true);
  });

  it('gives single claims to the ID token and userinfo without their scope, through the code exchange and refresh', async () => {
    const verifier = oidc.randomPKCECodeVerifier();
    const nonce = oidc.randomNonce();
    const claims = {
      id_token: { phone_number: null, email: { essential: true }, unknown_claim: null },
      userinfo: { given_name: null, family_name: { essential: false } },
    };
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      scope: 'openid offline_access',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      nonce,
      claims: JSON.stringify(claims),
    });
    const response = await authorizeAsUser(new Browser(fixture.url), url.toString());
    const tokens = await oidc.authorizationCodeGrant(config, new URL(response.headers.get('location')!), { pkceCodeVerifier: verifier, expectedNonce: nonce });
    const id = tokens.claims()!;
    expect(id).toMatchObject({ sub: fixture.userUuid, phone_number: '+1 555 0100', email: USER.email });
    for (const claim of ['given_name', 'family_name', 'preferred_username', 'unknown_claim']) expect(id[claim]).toBeUndefined();
    const info = await oidc.fetchUserInfo(config, tokens.access_token, fixture.userUuid);
    expect(info).toEqual({ sub: fixture.userUuid, given_name: 'Bob', family_name: 'Builder' });

    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.claims()).toMatchObject({ phone_number: '+1 555 0100', email: USER.email });
    expect(await oidc.fetchUserInfo(config, refreshed.access_token, fixture.userUuid)).toEqual(info);
  });

  it('refuses claims that are not a JSON object of that shape with invalid_request at the redirect URI', async () => {
    for (const claims of [
      '{not json',
      '[]',
      '{"userinfo": []}',
      '{"id_token": {"email": true}}',
      '{"id_token": {"acr": {"essential": "yes"}}}',
      '{"id_token": {"acr": {"values": "x"}}}',
    ]) {
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: REDIRECT,
        scope: 'openid',
        state: 'st',
        code_challenge: 'x'.repeat(43),
        code_challenge_method: 'S256',
        claims,
      });
      const answer = redirectOf(await new Browser(fixture.url).get(url.toString()));
      expect(answer.url.origin + answer.url.pathname).toBe(REDIRECT);
      expect(answer.query.get('error'), claims).toBe('invalid_request');
      expect(answer.query.get('error_description')).toMatch(/^claims/);
      expect(answer.query.get('state')).toBe('st');
    }
  });

  it('puts every claim of the scopes in an ID token that comes without an access token', async () => {
    const implicit = await discover();
    oidc.useIdTokenResponseType(implicit);
    const nonce = oidc.randomNonce();
    const url = oidc.buildAuthorizationUrl(implicit, { redirect_uri: REDIRECT, scope: 'openid profile phone', nonce, state: 'st' });
    const response = await authorizeAsUser(new Browser(fixture.url), url.toString());
    const id = await oidc.implicitAuthentication(implicit, new URL(response.headers.get('location')!), nonce, { expectedState: 'st' });
    expect(id).toMatchObject({ preferred_username: USER.username, given_name: 'Bob', family_name: 'Builder', phone_number: '+1 555 0100' });
  });
});
