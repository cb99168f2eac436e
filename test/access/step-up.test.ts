/**
 * RFC 9470 step-up on the data API (docs/api.md#step-up): a permission that demands a sign-in
 * (`?acr=mfa`, `?max_age=`) grants only to tokens whose `acr` and `auth_time` meet it. Below it
 * the answer is 401 `insufficient_user_authentication` whose challenge names the `acr_values`
 * (and `max_age`) to sign in with, in the token's scheme (Bearer or DPoP), and nothing is stored;
 * at that level the request passes, including with a token from a step-up authorization.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash, randomUUID } from 'node:crypto';
import { decodeJwt, exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { TOTP } from 'otpauth';
import {
  api,
  Browser,
  createClient,
  exchangeCode,
  redirectOf,
  REDIRECT,
  startSignInFixture,
  type Fixture,
  type RegisteredClient,
} from '../authorize/support.js';
import { basic } from '../oauth/fixtures.js';
import type { Clock } from '../helpers.js';

let fixture: Fixture;
let client: RegisteredClient;
const clock: Clock = { now: Math.floor(Date.now() / 30_000) * 30_000 + 15_000 };
const MFA = 'urn:idp:acr:mfa';

beforeAll(async () => {
  ({ fixture } = await startSignInFixture(clock, 'openid'));
  client = await createClient(fixture, {
    require_pkce: false,
    require_consent: false,
    scope: 'openid api',
    grant_types: ['authorization_code', 'password'],
    response_types: ['code'],
  });
});
afterAll(() => fixture.server.close());

let serial = 0;
/** A new app user holding `permission` of their own. */
async function newHolder(permission: string) {
  serial += 1;
  const person = { username: `erin${serial}`, password: `erins-password-${serial}` };
  await api(fixture, 'POST', '/acme/shop/users', person);
  await api(fixture, 'POST', `/acme/shop/users/${person.username}/permissions`, { permission });
  return person;
}

function totpCode(secret: string): string {
  return new TOTP({ secret, algorithm: 'SHA1', digits: 6, period: 30 }).generate({ timestamp: clock.now });
}

/** Enrolls and activates a TOTP factor over the API, as the application's administrator; returns its secret. */
async function enrollTotp(username: string): Promise<string> {
  const base = `/acme/shop/users/${username}/factors`;
  const { id, secret } = (await api(fixture, 'POST', base, { type: 'totp' })).entities[0] as { id: string; secret: string };
  await api(fixture, 'POST', `${base}/${id}/verify`, { code: totpCode(secret) });
  clock.now += 30_000;
  return secret;
}

async function passwordToken(person: { username: string; password: string }, extra: Record<string, string> = {}, dpop?: string): Promise<Response> {
  return fetch(`${fixture.url}/connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(client.client_id, client.client_secret!), ...(dpop && { dpop }) },
    body: new URLSearchParams({ grant_type: 'password', username: person.username, password: person.password, scope: 'api', ...extra }),
  });
}

async function accessToken(person: { username: string; password: string }, extra: Record<string, string> = {}): Promise<string> {
  const response = await passwordToken(person, extra);
  expect(response.status).toBe(200);
  return ((await response.json()) as { access_token: string }).access_token;
}

function write(path: string, token: string, body: unknown = { name: `s${randomUUID().slice(0, 8)}` }, method = 'POST', headers: Record<string, string> = {}) {
  return fetch(`${fixture.url}/acme/shop${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

async function expectStepUp(response: Response, challenge: RegExp): Promise<void> {
  expect(response.status).toBe(401);
  expect(response.headers.get('www-authenticate')).toMatch(challenge);
  expect(await response.json()).toMatchObject({
    error: 'insufficient_user_authentication',
    error_description: expect.stringContaining(MFA),
    code: 401,
    message: expect.any(String),
  });
}

describe('a permission that demands a second factor', () => {
  it('answers a password-only token 401 insufficient_user_authentication with acr_values, stores nothing, and lets an mfa token through', async () => {
    const person = await newHolder('post,put:/secrets/**?acr=mfa');
    const weak = await accessToken(person);
    expect(decodeJwt(weak)).toMatchObject({ acr: 'urn:idp:acr:pwd' });
    await expectStepUp(
      await write('/secrets', weak, { name: 'launch-codes' }),
      /^Bearer error="insufficient_user_authentication", error_description="[^"]+", acr_values="urn:idp:acr:mfa"$/,
    );
    expect((await fetch(`${fixture.url}/acme/shop/secrets/launch-codes`, { headers: { authorization: `Bearer ${fixture.adminToken}` } })).status).toBe(404);
    // What the rule does not cover is still plainly forbidden.
    expect((await write('/vaults', weak)).status).toBe(403);

    const secret = await enrollTotp(person.username);
    const strong = await accessToken(person, { otp: totpCode(secret) });
    expect(decodeJwt(strong)).toMatchObject({ acr: MFA });
    const created = await write('/secrets', strong, { name: 'launch-codes' });
    expect(created.status).toBe(200);
    expect((await write('/secrets/launch-codes', strong, { level: 2 }, 'PUT')).status).toBe(200);
  });

  it('passes the token of a step-up authorization: the acr_values of the challenge, sent to /connect/authorize', async () => {
    const person = await newHolder('post:/secrets/**?acr=mfa');
    const browser = new Browser(fixture.url);
    const authorize = (extra: Record<string, string> = {}) =>
      `/connect/authorize?${new URLSearchParams({ client_id: client.client_id, redirect_uri: REDIRECT, response_type: 'code', scope: 'openid api', state: 's', ...extra })}`;
    const signIn = await (await browser.get(authorize())).text();
    const first = await exchangeCode(
      fixture,
      client,
      redirectOf(await browser.submit(signIn, { login: person.username, password: person.password }, '/connect/authorize/login')).query.get('code')!,
    );
    const refused = await write('/secrets', first.access_token);
    const acrValues = /acr_values="([^"]+)"/.exec(refused.headers.get('www-authenticate') ?? '')?.[1];
    expect(refused.status).toBe(401);
    expect(acrValues).toBe(MFA);

    // The user has a factor by now; the client asks for what the challenge named, in the same browser.
    const secret = await enrollTotp(person.username);
    const step = await browser.get(authorize({ acr_values: acrValues! }));
    expect(step.status).toBe(200);
    const codePage = await step.text();
    expect(codePage).toContain('action="/connect/authorize/otp"');
    const stepped = await exchangeCode(
      fixture,
      client,
      redirectOf(await browser.submit(codePage, { otp: totpCode(secret) }, '/connect/authorize/otp')).query.get('code')!,
    );
    expect(decodeJwt(stepped.access_token)).toMatchObject({ acr: MFA, amr: ['pwd', 'otp', 'mfa'] });
    expect((await write('/secrets', stepped.access_token)).status).toBe(200);
  });

  it('answers a DPoP-bound token with a DPoP challenge', async () => {
    const person = await newHolder('post:/secrets/**?acr=mfa');
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const jwk: JWK = await exportJWK(publicKey);
    const proof = (method: string, url: string, extra: Record<string, unknown> = {}) =>
      new SignJWT({ htm: method, htu: url, iat: Math.floor(clock.now / 1000), jti: randomUUID(), ...extra })
        .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk })
        .sign(privateKey);
    const tokenUrl = `${fixture.url}/connect/token`;
    let response = await passwordToken(person, {}, await proof('POST', tokenUrl));
    if (response.status === 400) response = await passwordToken(person, {}, await proof('POST', tokenUrl, { nonce: response.headers.get('dpop-nonce') }));
    const { access_token: token, token_type: type } = (await response.json()) as { access_token: string; token_type: string };
    expect(type).toBe('DPoP');
    const url = `${fixture.url}/acme/shop/secrets`;
    const ath = createHash('sha256').update(token).digest('base64url');
    const refused = await fetch(url, {
      method: 'POST',
      headers: { authorization: `DPoP ${token}`, dpop: await proof('POST', url, { ath }), 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'dpop-secret' }),
    });
    await expectStepUp(refused, /^DPoP error="insufficient_user_authentication", error_description="[^"]+", acr_values="urn:idp:acr:mfa"$/);
  });
});

describe('a permission that demands a recent sign-in', () => {
  it('answers a token whose sign-in is older than max_age with max_age in the challenge', async () => {
    const person = await newHolder('post:/secrets/**?acr=pwd&max_age=60');
    const token = await accessToken(person);
    expect((await write('/secrets', token)).status).toBe(200);
    clock.now += 120_000;
    const refused = await write('/secrets', token);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(
      /^Bearer error="insufficient_user_authentication", error_description="[^"]+", acr_values="urn:idp:acr:pwd", max_age=60$/,
    );
  });
});

describe('writing such permissions', () => {
  it('stores the canonical form and refuses a demand it does not know, changing nothing', async () => {
    const person = await newHolder('put:/secrets/*?acr=MFA');
    const listed = await api(fixture, 'GET', `/acme/shop/users/${person.username}/permissions`);
    expect(JSON.stringify(listed)).toContain('put:/secrets/*?acr=urn:idp:acr:mfa');
    for (const permission of ['put:/secrets/*?acr=strong', 'put:/secrets/*?max_age=soon', 'put:/secrets/*?colour=red']) {
      const refused = await fetch(`${fixture.url}/acme/shop/users/${person.username}/permissions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${fixture.adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ permission }),
      });
      expect(refused.status).toBe(400);
      expect(await refused.json()).toMatchObject({ error: 'illegal_argument', fields: { permission: expect.any(String) } });
    }
    expect(await api(fixture, 'GET', `/acme/shop/users/${person.username}/permissions`)).toMatchObject({ data: listed.data });
  });
});
