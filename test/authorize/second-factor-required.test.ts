/**
 * "Second factor required" (docs/account.md#second-factor-required): an application holding its
 * users to a second factor, and an organization its admin users. A user without a factor who
 * signs in with a password sets up an authenticator app in the same sign-in, sees the recovery
 * codes once, and only then gets a code whose tokens say pwd, otp, mfa; before that no session
 * exists and the password grants answer invalid_grant. Codes are computed from the secret the
 * page shows, at the server's clock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { TOTP } from 'otpauth';
import { createHash, randomBytes } from 'node:crypto';
import {
  ADMIN,
  api,
  Browser,
  createClient,
  decodeEntities,
  exchangeCode,
  passkeyEnrollmentOf,
  redirectOf,
  REDIRECT,
  startSignInFixture,
  type Fixture,
  type RegisteredClient,
} from './support.js';
import { basic } from '../oauth/fixtures.js';
import { SoftAuthenticator } from './soft-authenticator.js';
import type { Clock } from '../helpers.js';

let fixture: Fixture;
let client: RegisteredClient;
const clock: Clock = { now: Math.floor(Date.now() / 30_000) * 30_000 + 15_000 };

beforeAll(async () => {
  ({ fixture, client } = await startSignInFixture(clock, 'openid profile'));
  client = await createClient(fixture, {
    require_pkce: false,
    require_consent: false,
    scope: 'openid profile api',
    grant_types: ['authorization_code', 'password', 'refresh_token'],
    response_types: ['code'],
  });
});
afterAll(() => fixture.server.close());

let serial = 0;
async function newPerson() {
  serial += 1;
  const person = { username: `dora${serial}`, email: `dora${serial}@example.com`, password: `doras-password-${serial}` };
  const created = await api(fixture, 'POST', '/acme/shop/users', person);
  return { ...person, uuid: String(created.entities[0]!.uuid) };
}

function totpCode(secret: string): string {
  return new TOTP({ secret, algorithm: 'SHA1', digits: 6, period: 30 }).generate({ timestamp: clock.now });
}

function authorizeUrl(extra: Record<string, string> = {}): string {
  return `/connect/authorize?${new URLSearchParams({ client_id: client.client_id, redirect_uri: REDIRECT, response_type: 'code', scope: 'openid profile', state: 'st', ...extra })}`;
}

async function put(path: string, body: unknown): Promise<Response> {
  return fetch(`${fixture.url}${path}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${fixture.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

async function passwordGrant(username: string, password: string, otp?: string): Promise<Response> {
  return fetch(`${fixture.url}/connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(client.client_id, client.client_secret!) },
    body: new URLSearchParams({ grant_type: 'password', username, password, scope: 'api', ...(otp !== undefined && { otp }) }),
  });
}

const hasSessionCookie = (response: Response) => response.headers.getSetCookie().some((cookie) => cookie.startsWith('idp_session='));

describe('an application that requires a second factor', () => {
  beforeAll(async () => {
    const updated = await put('/management/orgs/acme/apps/shop', { secondFactorRequired: true });
    expect(updated.status).toBe(200);
    expect(((await updated.json()) as { entities: Record<string, unknown>[] }).entities[0]).toMatchObject({ secondFactorRequired: true });
  });

  it('shows the setting, and refuses a value that is not true, false or null without changing it', async () => {
    const refused = await put('/management/orgs/acme/apps/shop', { secondFactorRequired: 'yes' });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: 'illegal_argument', fields: { secondFactorRequired: expect.any(String) } });
    expect((await api(fixture, 'GET', '/management/orgs/acme/apps/shop')).entities[0]).toMatchObject({ secondFactorRequired: true });
  });

  it('refuses the password grants of a user without a factor: invalid_grant saying a second factor must be enrolled first', async () => {
    const person = await newPerson();
    const refused = await passwordGrant(person.username, person.password);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({
      error: 'invalid_grant',
      error_description: expect.stringContaining('a second factor must be enrolled first'),
    });
    const usergrid = await fetch(`${fixture.url}/acme/shop/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'password', username: person.username, password: person.password }),
    });
    expect(usergrid.status).toBe(400);
    expect(await usergrid.json()).toMatchObject({
      error: 'invalid_grant',
      error_description: expect.stringContaining('a second factor must be enrolled first'),
    });
    // A wrong password is still just a wrong password.
    expect(await (await passwordGrant(person.username, 'not-the-password')).json()).toMatchObject({
      error_description: 'the username or password is not correct',
    });
  });

  it('has the user set up an authenticator app after the password, shows the recovery codes once, then issues tokens with pwd, otp, mfa', async () => {
    const person = await newPerson();
    const browser = new Browser(fixture.url);
    const signIn = await (await browser.get(authorizeUrl())).text();
    const step = await browser.submit(signIn, { login: person.username, password: person.password }, '/connect/authorize/login');
    expect(step.status).toBe(200);
    expect(hasSessionCookie(step)).toBe(false);
    const page = await step.text();
    expect(page).toContain('Set up two-step verification');
    expect(page).toContain('action="/connect/authorize/enroll"');
    expect(page).toMatch(/<img class="qr" src="data:image\/svg\+xml;base64,/);
    const secret = decodeEntities(/<code id="totp-secret">([A-Z2-7]+)<\/code>/.exec(page)![1]!);

    // Not signed in until the factor is set up.
    expect(redirectOf(await browser.get(authorizeUrl({ prompt: 'none' }))).query.get('error')).toBe('login_required');

    // A wrong code shows the same secret again, with what went wrong; nothing is issued.
    const wrongCode = totpCode(secret) === '000000' ? '111111' : '000000';
    const wrong = await browser.submit(page, { otp: wrongCode }, '/connect/authorize/enroll');
    expect(wrong.status).toBe(400);
    expect(hasSessionCookie(wrong)).toBe(false);
    const again = await wrong.text();
    expect(again).toContain('role="alert"');
    expect(again).toContain(`<code id="totp-secret">${secret}</code>`);

    const done = await browser.submit(again, { otp: totpCode(secret) }, '/connect/authorize/enroll');
    expect(done.status).toBe(200);
    expect(done.headers.get('cache-control')).toContain('no-store');
    const codesPage = await done.text();
    const codes = [...codesPage.matchAll(/<li><code>([^<]+)<\/code><\/li>/g)].map((match) => match[1]!);
    expect(codes).toHaveLength(10);
    expect(codesPage).toContain('action="/connect/authorize/enrolled"');

    const redirect = await browser.submit(codesPage, {}, '/connect/authorize/enrolled');
    const code = redirectOf(redirect).query.get('code');
    expect(code).toEqual(expect.any(String));
    const tokens = await exchangeCode(fixture, client, code!);
    const mfa = { sub: person.uuid, amr: ['pwd', 'otp', 'mfa'], acr: 'urn:idp:acr:mfa' };
    expect(decodeJwt(tokens.id_token!)).toMatchObject(mfa);
    expect(decodeJwt(tokens.access_token)).toMatchObject(mfa);

    // The factor is the user's: the API lists it active, and the password grant now asks for its code.
    const factors = await api(fixture, 'GET', `/acme/shop/users/${person.username}/factors`);
    expect(factors.entities).toMatchObject([{ type: 'totp', status: 'active' }]);
    expect(await (await passwordGrant(person.username, person.password)).json()).toMatchObject({
      error: 'invalid_grant',
      error_description: expect.stringContaining('a second factor is required'),
    });
    clock.now += 30_000;
    const granted = await passwordGrant(person.username, person.password, totpCode(secret));
    expect(granted.status).toBe(200);
    expect(decodeJwt(((await granted.json()) as { access_token: string }).access_token)).toMatchObject(mfa);
    // And a recovery code of the page works once.
    expect((await passwordGrant(person.username, person.password, codes[0]!)).status).toBe(200);
  });

  it('takes a passkey instead of the app: the tokens then say pwd, hwk, mfa and acr phr', async () => {
    const person = await newPerson();
    const browser = new Browser(fixture.url);
    const signIn = await (await browser.get(authorizeUrl())).text();
    const page = await (await browser.submit(signIn, { login: person.username, password: person.password }, '/connect/authorize/login')).text();
    const passkey = passkeyEnrollmentOf(browser, page);

    // Without the page's CSRF token nothing starts.
    expect((await passkey.start({ csrf_token: 'forged', name: 'Key' })).status).toBe(403);
    const startedResponse = await passkey.start({ name: 'Key' });
    const startedText = await startedResponse.text();
    expect(startedResponse.status, startedText).toBe(200);
    const started = JSON.parse(startedText) as { id: string; options: Record<string, unknown> };
    const authenticator = new SoftAuthenticator(fixture.url);
    const verified = await passkey.verify({ id: started.id, response: authenticator.create(started.options) });
    expect(verified.status).toBe(200);
    expect(hasSessionCookie(verified)).toBe(true);
    const { next, recovery_codes: codes } = (await verified.json()) as { next: string; recovery_codes: string[] };
    expect(codes).toHaveLength(10);
    const tokens = await exchangeCode(fixture, client, redirectOf(await browser.get(next)).query.get('code')!);
    expect(decodeJwt(tokens.id_token!)).toMatchObject({ sub: person.uuid, amr: ['pwd', 'hwk', 'mfa'], acr: 'urn:idp:acr:phr' });
    const factors = (await api(fixture, 'GET', `/acme/shop/users/${person.username}/factors`)).entities;
    expect(factors.filter((factor) => factor.status === 'active')).toMatchObject([{ type: 'webauthn', name: 'Key' }]);
  });

  it('refuses the enrollment form without its CSRF token or in another browser', async () => {
    const person = await newPerson();
    const browser = new Browser(fixture.url);
    const signIn = await (await browser.get(authorizeUrl())).text();
    const page = await (await browser.submit(signIn, { login: person.username, password: person.password }, '/connect/authorize/login')).text();
    const secret = /<code id="totp-secret">([A-Z2-7]+)<\/code>/.exec(page)![1]!;
    expect((await browser.submit(page, { otp: totpCode(secret), csrf_token: 'forged' }, '/connect/authorize/enroll')).status).toBe(403);
    expect((await new Browser(fixture.url).submit(page, { otp: totpCode(secret) }, '/connect/authorize/enroll')).status).toBe(403);
    expect((await api(fixture, 'GET', `/acme/shop/users/${person.username}/factors`)).entities).toMatchObject([{ status: 'pending' }]);
  });
});

describe('an organization that requires a second factor of its admin users', () => {
  it('shows the setting and refuses its admins a token by password until they have a factor; null turns it off', async () => {
    const updated = await put('/management/orgs/acme', { secondFactorRequired: true });
    expect(updated.status).toBe(200);
    expect(((await updated.json()) as { entities: Record<string, unknown>[] }).entities[0]).toMatchObject({ secondFactorRequired: true });
    expect((await api(fixture, 'GET', '/management/orgs/acme')).entities[0]).toMatchObject({ secondFactorRequired: true });

    const refused = await fetch(`${fixture.url}/management/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'password', username: ADMIN.username, password: ADMIN.password }),
    });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({
      error: 'invalid_grant',
      error_description: expect.stringContaining('a second factor must be enrolled first'),
    });

    expect((await put('/management/orgs/acme', { secondFactorRequired: null })).status).toBe(200);
    expect((await api(fixture, 'GET', '/management/orgs/acme')).entities[0]).not.toHaveProperty('secondFactorRequired');
    const granted = await fetch(`${fixture.url}/management/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'password', username: ADMIN.username, password: ADMIN.password }),
    });
    expect(granted.status).toBe(200);
  });

  it('has an admin user of such an organization enroll at the sign-in of admin-cli; the tokens say mfa', async () => {
    const owner = { organization: 'initech', username: 'ivan', name: 'Ivan', email: 'ivan@example.com', password: 'ivans-password-1' };
    await fetch(`${fixture.url}/management/orgs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(owner) });
    const token = await fetch(`${fixture.url}/management/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'password', username: owner.username, password: owner.password }),
    });
    const ownerToken = ((await token.json()) as { access_token: string }).access_token;
    await api({ url: fixture.url, adminToken: ownerToken }, 'PUT', '/management/orgs/initech', { secondFactorRequired: true });

    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const cliRedirect = 'http://127.0.0.1:5555/cb';
    const query = {
      client_id: 'admin-cli',
      redirect_uri: cliRedirect,
      response_type: 'code',
      scope: 'openid api',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    };
    const browser = new Browser(fixture.url);
    const signIn = await (await browser.get(`/connect/authorize?${new URLSearchParams(query)}`)).text();
    const page = await (await browser.submit(signIn, { login: owner.username, password: owner.password }, '/connect/authorize/login')).text();
    expect(page).toContain('action="/connect/authorize/enroll"');
    const secret = /<code id="totp-secret">([A-Z2-7]+)<\/code>/.exec(page)![1]!;
    const codes = await (await browser.submit(page, { otp: totpCode(secret) }, '/connect/authorize/enroll')).text();
    let response = await browser.submit(codes, {}, '/connect/authorize/enrolled');
    if (response.status === 200) response = await browser.submit(await response.text(), { decision: 'allow' }, '/connect/authorize/consent');
    const exchanged = await fetch(`${fixture.url}/connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        client_id: 'admin-cli',
        code: redirectOf(response).query.get('code')!,
        redirect_uri: cliRedirect,
        code_verifier: verifier,
      }),
    });
    expect(exchanged.status).toBe(200);
    const tokens = (await exchanged.json()) as { access_token: string };
    expect(decodeJwt(tokens.access_token)).toMatchObject({ preferred_username: owner.username, amr: ['pwd', 'otp', 'mfa'], acr: 'urn:idp:acr:mfa' });
    expect((await api({ url: fixture.url, adminToken: ownerToken }, 'GET', `/management/users/${owner.username}/factors`)).entities).toMatchObject([
      { type: 'totp', status: 'active' },
    ]);
  });
});
