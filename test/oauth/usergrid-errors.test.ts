/**
 * The error names Usergrid's SDKs branch on (docs/api.md#usergrid-style,
 * docs/api.md#account-lifecycle): wrong credentials at Usergrid's token endpoints are
 * `400 invalid_grant` "invalid username or password", whether a password or a client secret was
 * wrong, while /connect/token keeps RFC 6749's `invalid_client`; a wrong current password given
 * to change it is `400 auth_invalid_username_or_password`, and a password guess like a sign-in.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectFieldsNamed, expectOAuthError, expectRefusedUnchanged, ORG, type Clock, type TestApp, type TestResponse } from '../helpers.js';
import { basic, createAppUser, createTenantApp, token, type Tenant } from './fixtures.js';

let t: TestApp;
let tenant: Tenant;
let clock: Clock;
let fred: string;
beforeEach(async () => {
  ({ t, tenant, clock } = await createTenantApp());
  fred = await createAppUser(t, tenant.appUuid, 'fred', 'fred-password');
});
afterEach(() => t.close());

const USERGRID_BAD_LOGIN = 'invalid username or password';
const post = (path: string, json: Record<string, unknown>) => () => t.request('POST', path, { json });

/** Usergrid's answer to wrong credentials: a wrong password may count in the throttle, nothing else. */
async function expectUsergridBadLogin(send: () => Promise<TestResponse>): Promise<void> {
  const res = await expectRefusedUnchanged(t, send, 400, 'invalid_grant', { except: ['login_throttle'] });
  expectOAuthError(res, 400, 'invalid_grant');
  expect(res.body.error_description).toBe(USERGRID_BAD_LOGIN);
  expect(res.headers.get('www-authenticate')).toBeNull();
}

describe("Usergrid's token endpoints", () => {
  const cases: [string, string, Record<string, unknown>][] = [
    ["an application's wrong client secret", '/acme/sandbox/token', { grant_type: 'client_credentials', client_id: 'APP', client_secret: 'wrong' }],
    ['an unknown client id', '/acme/sandbox/token', { grant_type: 'client_credentials', client_id: 'no-such-client', client_secret: 'wrong' }],
    ["an app user's wrong password", '/acme/sandbox/token', { grant_type: 'password', username: 'fred', password: 'wrong-password' }],
    ['an unknown app user', '/acme/sandbox/token', { grant_type: 'password', username: 'nobody', password: 'wrong-password' }],
    ["an organization's wrong client secret", '/management/token', { grant_type: 'client_credentials', client_id: 'ORG', client_secret: 'wrong' }],
    ["an application's wrong client secret", '/management/token', { grant_type: 'client_credentials', client_id: 'APP', client_secret: 'wrong' }],
    ["an admin's wrong password", '/management/token', { grant_type: 'password', username: ORG.username, password: 'wrong-password' }],
    ['an unknown admin', '/management/token', { grant_type: 'password', username: 'nobody', password: 'wrong-password' }],
  ];
  it.each(cases)('answer %s at %s with 400 invalid_grant "invalid username or password"', async (_name, path, body) => {
    const clientId = body.client_id === 'APP' ? tenant.app.client_id : body.client_id === 'ORG' ? tenant.org.client_id : body.client_id;
    await expectUsergridBadLogin(post(path, { ...body, ...(clientId !== undefined && { client_id: clientId }) }));
  });

  it("still answer a throttled account with 429 and another application's credentials with 403", async () => {
    const attempt = post('/acme/sandbox/token', { grant_type: 'password', username: 'fred', password: 'wrong-password' });
    for (let i = 0; i < 5; i += 1) await expectUsergridBadLogin(attempt);
    await expectUsergridBadLogin(attempt);
    expectOAuthError(await post('/acme/sandbox/token', { grant_type: 'password', username: 'fred', password: 'fred-password' })(), 429, 'too_many_requests');
    await t.request('POST', '/management/orgs/acme/apps', { json: { name: 'other' }, token: tenant.adminToken });
    const other = post('/acme/other/token', { grant_type: 'client_credentials', ...tenant.app });
    expectOAuthError(await expectRefusedUnchanged(t, other, 403, 'forbidden'), 403, 'forbidden');
  });

  it('issue a new token whatever expired, revoked or made-up token comes along in Authorization', async () => {
    const signIn = { grant_type: 'password', username: 'fred', password: 'fred-password' };
    const old = (await t.request('POST', '/acme/sandbox/token', { json: { ...signIn, ttl: 60_000 } })).body.access_token;
    const revoked = await t.request('PUT', `/acme/sandbox/users/${fred}/revoketokens`, { token: tenant.adminToken });
    expect(revoked.status, revoked.text).toBe(200);
    const admin = (await t.request('POST', '/management/token', { json: { grant_type: 'client_credentials', ...tenant.org, ttl: 60_000 } })).body.access_token;
    clock.now += 61_000;
    for (const [path, stale, body] of [
      ['/acme/sandbox/token', old, signIn],
      ['/acme/sandbox/token', 'made-up', { grant_type: 'client_credentials', ...tenant.app }],
      ['/management/token', admin, { grant_type: 'password', username: ORG.username, password: ORG.password }],
    ] as const) {
      const res = await t.request('POST', path, { json: body, token: stale });
      expect(res.status, `${path}: ${res.text}`).toBe(200);
      const read = await t.request('GET', `/acme/sandbox/users/${fred}`, { token: res.body.access_token });
      expect(read.status, read.text).toBe(200);
    }
  });

  it('leave /connect/token with RFC 6749 answers: invalid_client for a wrong secret, invalid_grant for a wrong password', async () => {
    const secret = () => token(t, { grant_type: 'client_credentials' }, { authorization: basic(tenant.app.client_id, 'wrong') });
    const refused = await expectRefusedUnchanged(t, secret, 401, 'invalid_client');
    expect(refused.headers.get('www-authenticate')).toMatch(/^Basic/);
    const password = () => token(t, { grant_type: 'password', client_id: 'admin-cli', username: ORG.username, password: 'wrong-password' });
    const wrong = await expectRefusedUnchanged(t, password, 400, 'invalid_grant', { except: ['login_throttle'] });
    expect(wrong.body.error_description).not.toBe(USERGRID_BAD_LOGIN);
  });
});

describe('a wrong current password given to change it', () => {
  const appUserChange = (password: string) => () =>
    t.request('PUT', `/acme/sandbox/users/${fred}/password`, { json: { oldpassword: password, newpassword: 'new-password-1' }, token: fredToken });
  const adminChange = (password: string) => () =>
    t.request('PUT', '/management/users/alice/password', { json: { password, newpassword: 'new-password-1' }, token: tenant.adminToken });
  const appUserSignIn = (password: string) => t.request('POST', '/acme/sandbox/token', { json: { grant_type: 'password', username: 'fred', password } });
  const adminSignIn = (password: string) => t.request('POST', '/management/token', { json: { grant_type: 'password', username: ORG.username, password } });
  let fredToken: string;
  beforeEach(async () => {
    fredToken = (await appUserSignIn('fred-password')).body.access_token;
  });

  it.each([
    ['an app user', () => appUserChange('wrong-password'), 'oldpassword'],
    ['an admin user', () => adminChange('wrong-password'), 'password'],
  ])('is 400 auth_invalid_username_or_password for %s, naming the field, and changes no password', async (_who, change, field) => {
    const res = await expectRefusedUnchanged(t, change(), 400, 'auth_invalid_username_or_password', { except: ['login_throttle'] });
    expectFieldsNamed(res, field);
  });

  it.each([
    ['an app user', appUserChange, appUserSignIn, 'fred-password'],
    ['an admin user', adminChange, adminSignIn, ORG.password],
  ])("counts against %s's guessing budget, which sign-in shares", async (_who, change, signIn, right) => {
    // Three wrong sign-ins and three wrong changes: six failures, one past the five free ones.
    for (let i = 0; i < 3; i += 1) await expectUsergridBadLogin(() => signIn('wrong-password'));
    for (let i = 0; i < 3; i += 1)
      await expectRefusedUnchanged(t, change('wrong-password'), 400, 'auth_invalid_username_or_password', { except: ['login_throttle'] });
    // The account waits: even the right password is refused before it is checked, in both places.
    const waiting = await expectRefusedUnchanged(t, change(right), 429, 'too_many_requests');
    expect(waiting.headers.get('retry-after')).toBe('1');
    expectOAuthError(await signIn(right), 429, 'too_many_requests');
    clock.now += 1100;
    const changed = await change(right)();
    expect(changed.status, changed.text).toBe(200);
    expect((await signIn('new-password-1')).status).toBe(200);
  });
});
