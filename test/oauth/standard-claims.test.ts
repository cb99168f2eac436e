/**
 * The standard claims of OIDC Core 5.1 from the user's record, by scope (5.4): all of them at the
 * UserInfo endpoint, in the ID token only those it always carried while an access token comes
 * with it; `email_verified` true only for the address a mailed link proved; discovery lists them.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ORG, type Clock, type TestApp } from '../helpers.js';
import { claimsOf, createAppUser, createTenantApp, registerClient, token, type Tenant } from './fixtures.js';
import { mailsOf, pathOf, QUICK_CAPTCHA, solvedCaptcha } from '../lifecycle/support.js';

let t: TestApp;
let tenant: Tenant;
let clock: Clock;
beforeEach(async () => {
  ({ t, tenant, clock } = await createTenantApp({ captcha: QUICK_CAPTCHA }));
});
afterEach(() => t.close());

const ADDRESS = { street_address: '1 Main St', locality: 'Springfield', postal_code: '12345', country: 'US' };
const PROFILE = {
  email: 'Fred@Example.com',
  given_name: 'Fred',
  family_name: 'Flint',
  middle_name: 'J',
  nickname: 'freddy',
  website: 'https://fred.example',
  gender: 'male',
  birthdate: '1970-01-31',
  zoneinfo: 'Europe/Paris',
  locale: 'fr-FR',
  phone_number: '+1 555 0100',
  phone_number_verified: true,
  address: { ...ADDRESS, unknown: 'dropped', formatted: 42 },
};

async function signInFred(scope: string) {
  const client = await registerClient(t, tenant, { token_endpoint_auth_method: 'none', grant_types: ['password', 'refresh_token'] });
  const res = await token(t, { grant_type: 'password', client_id: client.client_id, username: 'fred', password: 'fred-password', scope });
  expect(res.status, res.text).toBe(200);
  return res.body as { access_token: string; id_token: string; scope: string };
}

async function userinfo(accessToken: string) {
  const res = await t.request('GET', '/connect/userinfo', { token: accessToken });
  expect(res.status, res.text).toBe(200);
  return res.body as Record<string, unknown>;
}

describe('standard claims', () => {
  it('gives each scope its claims at userinfo, and the ID token only the classic ones next to an access token', async () => {
    const sub = await createAppUser(t, tenant.appUuid, 'fred', 'fred-password', PROFILE);
    const tokens = await signInFred('openid profile email address phone');
    expect(tokens.scope).toBe('openid profile email address phone');
    expect(await userinfo(tokens.access_token)).toEqual({
      sub,
      preferred_username: 'fred',
      // The entity's name, which insertEntity takes from the username.
      name: 'fred',
      updated_at: expect.any(Number),
      ...PROFILE,
      email_verified: false,
      address: ADDRESS,
    });
    const id = claimsOf(tokens.id_token);
    expect(id).toMatchObject({ sub, preferred_username: 'fred', name: 'fred', email: PROFILE.email, email_verified: false });
    for (const claim of ['given_name', 'family_name', 'phone_number', 'address', 'birthdate']) expect(id[claim]).toBeUndefined();
  });

  it('gives nothing beyond sub without the scopes, and leaves out what the record lacks', async () => {
    const sub = await createAppUser(t, tenant.appUuid, 'fred', 'fred-password', PROFILE);
    expect(await userinfo((await signInFred('openid')).access_token)).toEqual({ sub });
    expect(await userinfo((await signInFred('openid phone')).access_token)).toEqual({ sub, phone_number: PROFILE.phone_number, phone_number_verified: true });
    await createAppUser(t, tenant.appUuid, 'wilma', 'wilma-password', { phone_number_verified: true, address: 'not an object' });
    const client = await registerClient(t, tenant, { token_endpoint_auth_method: 'none', grant_types: ['password'] });
    const wilma = await token(t, {
      grant_type: 'password',
      client_id: client.client_id,
      username: 'wilma',
      password: 'wilma-password',
      scope: 'openid email phone address',
    });
    expect(await userinfo(wilma.body.access_token)).toEqual({ sub: expect.any(String) });
  });

  it('says email_verified only for the address a mailed link proved, while it stays the email', async () => {
    const admin = await token(t, { grant_type: 'password', client_id: 'admin-cli', username: ORG.username, password: ORG.password, scope: 'openid email' });
    expect(await userinfo(admin.body.access_token)).toMatchObject({ email: ORG.email, email_verified: false });
    const reset = await t.request('POST', '/management/users/resetpw', { json: { email: ORG.email, ...(await solvedCaptcha(t)) } });
    expect(reset.status, reset.text).toBe(200);
    const link = pathOf((await mailsOf(t))[0]!.links[0]!);
    const linkToken = new URL(link, 'http://x').searchParams.get('token')!;
    const done = await t.request('POST', link.replace(/\?.*/, ''), { json: { token: linkToken, newpassword: 'a-brand-new-secret' } });
    expect(done.status, done.text).toBe(200);
    const after = await token(t, {
      grant_type: 'password',
      client_id: 'admin-cli',
      username: ORG.username,
      password: 'a-brand-new-secret',
      scope: 'openid email',
    });
    expect(await userinfo(after.body.access_token)).toMatchObject({ email: ORG.email, email_verified: true });
    expect(claimsOf(after.body.id_token)).toMatchObject({ email: ORG.email, email_verified: true });

    clock.now += 1000;
    const changed = await t.request('PUT', `/management/users/${ORG.username}`, { json: { email: 'alice@elsewhere.example' }, token: after.body.access_token });
    expect(changed.status, changed.text).toBe(200);
    expect(await userinfo(after.body.access_token)).toMatchObject({ email: 'alice@elsewhere.example', email_verified: false });
  });

  it('keeps phone_number_verified for administrators: a user cannot vouch for their own number', async () => {
    await createAppUser(t, tenant.appUuid, 'fred', 'fred-password', { phone_number: '+1 555 0100' });
    const fred = await signInFred('openid phone api');
    const refused = await t.request('PUT', '/acme/sandbox/users/fred', { json: { phone_number_verified: true }, token: fred.access_token });
    expect(refused.status, refused.text).toBe(400);
    expect(await userinfo(fred.access_token)).toEqual({ sub: expect.any(String), phone_number: '+1 555 0100' });
  });

  it('lists the scopes and claims in discovery', async () => {
    const res = await t.request('GET', '/.well-known/openid-configuration');
    expect(res.body.scopes_supported).toEqual(['openid', 'profile', 'email', 'address', 'phone', 'offline_access', 'api']);
    expect(res.body.claims_supported).toEqual(
      expect.arrayContaining(['email_verified', 'given_name', 'address', 'phone_number', 'phone_number_verified', 'birthdate']),
    );
  });
});
