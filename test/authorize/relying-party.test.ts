/**
 * openid-client as the relying party against a real server: discovery, the code flow with S256
 * PKCE and nonce, hybrid `code id_token` (c_hash), implicit `id_token`, form_post, refresh after
 * sign-in, `id_token token` with at_hash checked by hand, and the device authorization grant
 * (RFC 8628) polled by openid-client while the user allows it at /device.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as oidc from 'openid-client';
import { createRemoteJWKSet, jwtVerify, decodeJwt } from 'jose';
import { createHash } from 'node:crypto';
import { authorizeAsUser, Browser, createClient, createFixture, formOf, REDIRECT, startIdp, USER, type Fixture } from './support.js';

let fixture: Fixture;
let confidential: { client_id: string; client_secret?: string };

beforeAll(async () => {
  fixture = await createFixture(await startIdp());
  confidential = await createClient(fixture, { require_consent: false });
});
afterAll(() => fixture.server.close());

async function discover(clientId: string, secret?: string): Promise<oidc.Configuration> {
  return oidc.discovery(new URL(fixture.url), clientId, undefined, secret ? oidc.ClientSecretBasic(secret) : oidc.None(), {
    execute: [oidc.allowInsecureRequests],
  });
}

/** A code-flow authorize URL with fresh PKCE verifier, nonce and state. */
async function codeRequest(config: oidc.Configuration, parameters: Record<string, string>) {
  const verifier = oidc.randomPKCECodeVerifier();
  const nonce = oidc.randomNonce();
  const state = oidc.randomState();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    nonce,
    state,
    ...parameters,
  });
  return { url: url.toString(), verifier, nonce, state };
}

function leftHalfHash(value: string): string {
  const digest = createHash('sha256').update(value).digest();
  return digest.subarray(0, 16).toString('base64url');
}

describe('openid-client as relying party', () => {
  it('discovers the authorize and end-session endpoints and what they support', async () => {
    const config = await discover(confidential.client_id, confidential.client_secret);
    const metadata = config.serverMetadata();
    expect(metadata.issuer).toBe(fixture.url);
    expect(metadata.authorization_endpoint).toBe(`${fixture.url}/connect/authorize`);
    expect(metadata.end_session_endpoint).toBe(`${fixture.url}/connect/endsession`);
    expect(metadata.response_types_supported).toEqual(['code', 'id_token', 'token', 'id_token token', 'code id_token', 'code token', 'code id_token token']);
    expect(metadata.response_modes_supported).toEqual(['query', 'fragment', 'form_post']);
    expect(metadata.authorization_response_iss_parameter_supported).toBe(true);
  });

  it('code flow with S256 PKCE, nonce and max_age; the ID token carries auth_time', async () => {
    const config = await discover(confidential.client_id, confidential.client_secret);
    const { url, verifier, nonce, state } = await codeRequest(config, { scope: 'openid profile email', max_age: '300' });
    const response = await authorizeAsUser(new Browser(fixture.url), url);
    expect(response.status).toBe(303);
    const tokens = await oidc.authorizationCodeGrant(config, new URL(response.headers.get('location')!), {
      pkceCodeVerifier: verifier,
      expectedNonce: nonce,
      expectedState: state,
      maxAge: 300,
      idTokenExpected: true,
    });
    const claims = tokens.claims()!;
    expect(claims.nonce).toBe(nonce);
    expect(claims.preferred_username).toBe('bob');
    expect(claims.email).toBe('bob@example.com');
    expect(typeof claims.auth_time).toBe('number');
  });

  it('hybrid code id_token: openid-client checks c_hash, and so do we', async () => {
    const config = await discover(confidential.client_id, confidential.client_secret);
    oidc.useCodeIdTokenResponseType(config);
    const { url, verifier, nonce, state } = await codeRequest(config, { scope: 'openid' });
    const response = await authorizeAsUser(new Browser(fixture.url), url);
    const location = new URL(response.headers.get('location')!);
    const fragment = new URLSearchParams(location.hash.slice(1));
    expect(location.search).toBe('');
    expect(decodeJwt(fragment.get('id_token')!).c_hash).toBe(leftHalfHash(fragment.get('code')!));
    const tokens = await oidc.authorizationCodeGrant(config, location, { pkceCodeVerifier: verifier, expectedNonce: nonce, expectedState: state });
    expect(tokens.claims()!.sub).toBeTruthy();
  });

  it('implicit id_token with implicitAuthentication', async () => {
    const config = await discover(confidential.client_id, confidential.client_secret);
    oidc.useIdTokenResponseType(config);
    const nonce = oidc.randomNonce();
    const state = oidc.randomState();
    const url = oidc.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: 'openid profile', nonce, state });
    const response = await authorizeAsUser(new Browser(fixture.url), url.toString());
    const claims = await oidc.implicitAuthentication(config, new URL(response.headers.get('location')!), nonce, { expectedState: state });
    expect(claims.preferred_username).toBe('bob');
    expect(claims.nonce).toBe(nonce);
  });

  it('response_mode form_post: an auto-submitting form that openid-client accepts as the callback', async () => {
    const config = await discover(confidential.client_id, confidential.client_secret);
    const { url, verifier, nonce, state } = await codeRequest(config, { scope: 'openid', response_mode: 'form_post' });
    const response = await authorizeAsUser(new Browser(fixture.url), url);
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain('<noscript>');
    expect(html).toMatch(/<noscript>[\s\S]*<button type="submit">Continue<\/button>[\s\S]*<\/noscript>/);
    const csp = response.headers.get('content-security-policy')!;
    const scriptNonce = /<script nonce="([^"]+)">/.exec(html)![1];
    expect(csp).toContain(`script-src 'nonce-${scriptNonce}'`);
    expect(csp).toContain("form-action 'self' https://rp.example");
    const form = formOf(html);
    expect(form.action).toBe(REDIRECT);
    const callback = new Request(REDIRECT, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form.fields).toString(),
    });
    const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedNonce: nonce, expectedState: state });
    expect(tokens.access_token).toBeTruthy();
  });

  it('refresh after sign-in: offline_access gives a refresh token that works', async () => {
    const config = await discover(confidential.client_id, confidential.client_secret);
    const { url, verifier, nonce, state } = await codeRequest(config, { scope: 'openid offline_access api' });
    const response = await authorizeAsUser(new Browser(fixture.url), url);
    const tokens = await oidc.authorizationCodeGrant(config, new URL(response.headers.get('location')!), {
      pkceCodeVerifier: verifier,
      expectedNonce: nonce,
      expectedState: state,
    });
    expect(tokens.refresh_token).toBeTruthy();
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.access_token).toBeTruthy();
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
  });

  it('id_token token: at_hash matches the access token, checked by hand with jose', async () => {
    const nonce = oidc.randomNonce();
    const url = `/connect/authorize?${new URLSearchParams({ client_id: confidential.client_id, redirect_uri: REDIRECT, response_type: 'id_token token', scope: 'openid api', nonce, state: 's1' })}`;
    const response = await authorizeAsUser(new Browser(fixture.url), url);
    const fragment = new URLSearchParams(new URL(response.headers.get('location')!).hash.slice(1));
    expect(fragment.get('token_type')).toBe('Bearer');
    expect(fragment.get('state')).toBe('s1');
    const jwks = createRemoteJWKSet(new URL(`${fixture.url}/.well-known/openid-configuration/jwks`));
    const { payload, protectedHeader } = await jwtVerify(fragment.get('id_token')!, jwks, { issuer: fixture.url, audience: confidential.client_id });
    expect(protectedHeader.alg).toBe('RS256');
    expect(payload.nonce).toBe(nonce);
    expect(payload.at_hash).toBe(leftHalfHash(fragment.get('access_token')!));
    const userinfo = await fetch(`${fixture.url}/connect/userinfo`, { headers: { authorization: `Bearer ${fragment.get('access_token')}` } });
    expect(userinfo.status).toBe(200);
  });

  it('code id_token token: the ID token binds both the code and the access token', async () => {
    const nonce = oidc.randomNonce();
    const verifier = oidc.randomPKCECodeVerifier();
    const url = `/connect/authorize?${new URLSearchParams({
      client_id: confidential.client_id,
      redirect_uri: REDIRECT,
      response_type: 'code id_token token',
      scope: 'openid api',
      nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    })}`;
    const response = await authorizeAsUser(new Browser(fixture.url), url);
    const fragment = new URLSearchParams(new URL(response.headers.get('location')!).hash.slice(1));
    const claims = decodeJwt(fragment.get('id_token')!);
    expect(claims.at_hash).toBe(leftHalfHash(fragment.get('access_token')!));
    expect(claims.c_hash).toBe(leftHalfHash(fragment.get('code')!));
  });

  it('device authorization grant: openid-client polls while the user enters the code, signs in and allows it', async () => {
    const device = await createClient(fixture, {
      client_name: 'Kiosk',
      grant_types: ['urn:ietf:params:oauth:grant-type:device_code', 'refresh_token'],
      redirect_uris: [],
      response_types: [],
      token_endpoint_auth_method: 'none',
    });
    const config = await discover(device.client_id);
    expect(config.serverMetadata().device_authorization_endpoint).toBe(`${fixture.url}/connect/deviceauthorization`);
    const started = await oidc.initiateDeviceAuthorization(config, { scope: 'openid profile offline_access api' });
    const polled = oidc.pollDeviceAuthorizationGrant(config, started);

    const browser = new Browser(fixture.url);
    const entry = await (await browser.get(started.verification_uri_complete!)).text();
    const signIn = await browser.submit(entry, { user_code: started.user_code }, '/device');
    const consent = await browser.submit(await signIn.text(), { login: USER.username, password: USER.password }, '/connect/authorize/login');
    expect(await (await browser.submit(await consent.text(), { decision: 'allow' }, '/connect/authorize/consent')).text()).toContain('return to your device');

    const tokens = await polled;
    expect(tokens.claims()).toMatchObject({ sub: fixture.userUuid, aud: device.client_id, amr: ['pwd'] });
    expect(tokens.refresh_token).toBeTruthy();
    const info = await oidc.fetchUserInfo(config, tokens.access_token, fixture.userUuid);
    expect(info.preferred_username).toBe(USER.username);
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.access_token).not.toBe(tokens.access_token);
  });
});
