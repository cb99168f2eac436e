/**
 * Usergrid's `ttl` (milliseconds) at its token endpoints, `POST /management/token` and
 * `POST /{org}/{app}/token` (docs/api.md#usergrid-style): the token expires then, `expires_in`
 * says so, and the server's access-token lifetime is the longest a caller gets.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectFieldsNamed, expectRefusedUnchanged, ORG, type Clock, type TestApp } from '../helpers.js';
import { claimsOf, createAppUser, createTenantApp, type Tenant } from './fixtures.js';

let t: TestApp;
let tenant: Tenant;
let clock: Clock;
beforeEach(async () => {
  ({ t, tenant, clock } = await createTenantApp());
  await createAppUser(t, tenant.appUuid, 'fred', 'fred-password');
});
afterEach(() => t.close());

const adminSignIn = { grant_type: 'password', username: ORG.username, password: ORG.password };
const userSignIn = { grant_type: 'password', username: 'fred', password: 'fred-password' };

describe('ttl at the Usergrid token endpoints', () => {
  it('makes an admin token expire after ttl milliseconds, and expires_in says so', async () => {
    const issued = await t.request('POST', '/management/token', { json: { ...adminSignIn, ttl: 60_000 } });
    expect(issued.status, issued.text).toBe(200);
    expect(issued.body.expires_in).toBe(60);
    const claims = claimsOf(issued.body.access_token);
    expect(Number(claims.exp) - Number(claims.iat)).toBe(60);
    const read = () => t.request('GET', '/management/orgs/acme', { token: issued.body.access_token });
    expect((await read()).status).toBe(200);
    clock.now += 61_000;
    expect((await read()).status).toBe(401);
  });

  it("gives an app user, and an application's client, the lifetime asked for, as JSON or as a form", async () => {
    const user = await t.request('POST', '/acme/sandbox/token', { form: { ...userSignIn, ttl: '120000' } });
    expect([user.status, user.body.expires_in], user.text).toEqual([200, 120]);
    const client = await t.request('POST', '/acme/sandbox/token', { json: { grant_type: 'client_credentials', ...tenant.app, ttl: 30_000 } });
    expect([client.status, client.body.expires_in], client.text).toEqual([200, 30]);
    const org = await t.request('POST', '/management/token', { json: { grant_type: 'client_credentials', ...tenant.org, ttl: 1 } });
    expect([org.status, org.body.expires_in], org.text).toEqual([200, 1]);
  });

  it("never goes past the server's access-token lifetime, which 0 and no ttl also give", async () => {
    const longest = t.deps.config.accessTokenTtl;
    for (const ttl of [undefined, 0, longest * 1000 + 1, 7 * 24 * 3_600_000]) {
      const issued = await t.request('POST', '/acme/sandbox/token', { json: { ...userSignIn, ttl } });
      expect([issued.status, issued.body.expires_in], `ttl ${ttl}: ${issued.text}`).toEqual([200, longest]);
    }
  });

  it('refuses a ttl that is no whole number of milliseconds before checking the password, and stores nothing', async () => {
    for (const ttl of [-1, 1.5, 'soon', '1e3', true]) {
      const res = await expectRefusedUnchanged(
        t,
        () => t.request('POST', '/management/token', { json: { ...adminSignIn, password: 'wrong-password', ttl } }),
        400,
        'illegal_argument',
      );
      expectFieldsNamed(res, 'ttl');
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
  });
});
