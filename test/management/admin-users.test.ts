import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  adminToken,
  createTestApp,
  expectFieldsNamed,
  expectOAuthError,
  expectRefusal,
  expectRefusedUnchanged,
  ORG,
  RESERVED_USER_FIELDS,
  signUp,
  type TestApp,
} from '../helpers.js';

let t: TestApp;
let token: string;
beforeEach(async () => {
  t = await createTestApp();
  token = await signUp(t);
});
afterEach(() => t.close());

const BOB = { username: 'bob', email: 'bob@example.com', name: 'Bob Builder', password: 'bob-password' };

describe('admin users', () => {
  it('creates an admin user and finds them by username, email, real name and uuid', async () => {
    const created = await t.request('POST', '/management/users', { json: BOB });
    expect(created.status).toBe(200);
    const user = created.body.entities[0];
    expect(user).toMatchObject({ username: 'bob', email: 'bob@example.com', name: 'Bob Builder', adminUser: true, activated: true, disabled: false });
    expect(created.text).not.toContain('bob-password');
    const bobToken = await adminToken(t, 'bob', 'bob-password');
    for (const id of ['bob', 'BOB@example.com', 'Bob Builder', user.uuid]) {
      const res = await t.request('GET', `/management/users/${encodeURIComponent(id)}`, { token: bobToken });
      expect(res.status, id).toBe(200);
      expect(res.body.entities[0].uuid).toBe(user.uuid);
    }
  });

  it('updates profile fields (AdminUserUpdate city and state, plus name and email)', async () => {
    const res = await t.request('PUT', '/management/users/alice', { json: { city: 'Berlin', state: 'BE', name: 'Alice A.' }, token });
    expect(res.status).toBe(200);
    expect(res.body.entities[0]).toMatchObject({ city: 'Berlin', state: 'BE', name: 'Alice A.', username: 'alice' });
    expect((await t.request('GET', '/management/users/alice', { token })).body.entities[0].city).toBe('Berlin');
  });

  it('refuses, naming the field, what only the server or an administrator sets, on sign-up and on their own record', async () => {
    for (const [field, value] of Object.entries(RESERVED_USER_FIELDS)) {
      const update = () => t.request('PUT', '/management/users/alice', { json: { city: 'Berlin', [field]: value }, token });
      expectFieldsNamed(await expectRefusedUnchanged(t, update, 400, 'illegal_argument'), field);
      const create = () => t.request('POST', '/management/users', { json: { ...BOB, [field]: value } });
      expectFieldsNamed(await expectRefusedUnchanged(t, create, 400, 'illegal_argument'), field);
    }
    const form = () => t.request('POST', '/management/users', { form: { username: 'bob', password: BOB.password, activated: 'true' } });
    expectFieldsNamed(await expectRefusedUnchanged(t, form, 400, 'illegal_argument'), 'activated');
    const both = () => t.request('PUT', '/management/users/alice', { json: { adminUser: true, roles: ['admin'] }, token });
    expectFieldsNamed(await expectRefusedUnchanged(t, both, 400, 'illegal_argument'), 'adminUser', 'roles');
    expect((await t.request('PUT', '/management/users/alice', { json: { city: 'Berlin' }, token })).status).toBe(200);
    expect((await t.request('POST', '/management/users', { json: BOB })).status).toBe(200);
  });

  it('changes the password only when the old one matches', async () => {
    const wrong = await expectRefusedUnchanged(
      t,
      () => t.request('PUT', '/management/users/alice/password', { json: { password: 'nope-nope', newpassword: 'new-password-1' }, token }),
      400,
      'auth_invalid_username_or_password',
      { except: ['login_throttle'] },
    );
    expect(wrong.body.fields).toHaveProperty('password');
    await adminToken(t, 'alice', ORG.password);
    const right = await t.request('PUT', '/management/users/alice/password', { json: { password: ORG.password, newpassword: 'new-password-1' }, token });
    expect(right.status).toBe(200);
    expectOAuthError(
      await t.request('POST', '/management/token', { json: { grant_type: 'password', username: 'alice', password: ORG.password } }),
      400,
      'invalid_grant',
    );
    await adminToken(t, 'alice', 'new-password-1');
  });

  it('adds an existing admin to an organization, lists and removes them, keeping the last admin', async () => {
    const bob = (await t.request('POST', '/management/users', { json: BOB })).body.entities[0];
    expect((await t.request('PUT', '/management/orgs/acme/users/bob@example.com', { token })).status).toBe(200);
    const listed = await t.request('GET', '/management/orgs/acme/users', { token });
    expect(listed.body.entities.map((u: { username: string }) => u.username)).toEqual(['alice', 'bob']);
    const bobToken = await adminToken(t, 'bob', BOB.password);
    expect((await t.request('GET', '/management/orgs/acme/apps', { token: bobToken })).status).toBe(200);
    expect((await t.request('DELETE', `/management/orgs/acme/users/${bob.uuid}`, { token })).status).toBe(200);
    expectRefusal(await t.request('GET', '/management/orgs/acme/apps', { token: bobToken }), 403, 'forbidden');
    await expectRefusedUnchanged(t, () => t.request('DELETE', '/management/orgs/acme/users/alice', { token }), 400, 'bad_request');
    expect((await t.request('GET', '/management/orgs/acme/users', { token })).body.count).toBe(1);
  });
});

describe('who may call what', () => {
  it('refuses guests with 401 and other organizations with 403', async () => {
    await t.request('POST', '/management/orgs', { json: { ...ORG, organization: 'other', username: 'olga', email: 'olga@example.com' } });
    const olga = await adminToken(t, 'olga', ORG.password);
    expectRefusal(await t.request('GET', '/management/orgs/acme'), 401, 'unauthorized');
    expectRefusal(await t.request('GET', '/management/orgs/acme', { token: olga }), 403, 'forbidden');
    await expectRefusedUnchanged(t, () => t.request('POST', '/management/orgs/acme/apps', { json: { name: 'x' }, token: olga }), 403, 'forbidden');
    expectRefusal(await t.request('GET', '/management/orgs/acme/credentials', { token: olga }), 403, 'forbidden');
    await expectRefusedUnchanged(t, () => t.request('PUT', '/management/users/alice', { json: { city: 'X' }, token: olga }), 403, 'forbidden');
    await expectRefusedUnchanged(
      t,
      () => t.request('PUT', '/management/users/alice/password', { json: { password: ORG.password, newpassword: 'olga-was-here' }, token: olga }),
      403,
      'forbidden',
    );
    expect((await t.request('GET', '/management/orgs/acme/apps', { token })).body.count).toBe(0);
    expect((await t.request('GET', '/management/users/alice', { token })).body.entities[0].city).toBeUndefined();
    await adminToken(t, 'alice', ORG.password);
  });

  it('accepts a token as ?access_token= and organization credentials as ?client_id=&client_secret=', async () => {
    const { client_id, client_secret } = (await t.request('GET', '/management/orgs/acme/credentials', { token })).body.credentials;
    expect((await t.request('GET', `/management/orgs/acme/apps?access_token=${token}`)).status).toBe(200);
    const viaCredentials = await t.request('GET', `/management/orgs/acme/apps?client_id=${client_id}&client_secret=${client_secret}`);
    expect(viaCredentials.status).toBe(200);
    expect(viaCredentials.body.params).not.toHaveProperty('client_secret');
    expectRefusal(await t.request('GET', `/management/orgs/acme/apps?client_id=${client_id}&client_secret=wrong`), 401, 'unauthorized');
  });

  it('issues organization tokens for organization credentials, and the old secret stops working after regeneration', async () => {
    const { client_id, client_secret } = (await t.request('GET', '/management/orgs/acme/credentials', { token })).body.credentials;
    const issued = await t.request('POST', '/management/token', { json: { grant_type: 'client_credentials', client_id, client_secret } });
    expect(issued.status).toBe(200);
    expect(issued.headers.get('cache-control')).toBe('no-store');
    expect((await t.request('GET', '/management/orgs/acme/apps', { token: issued.body.access_token })).status).toBe(200);
    expect((await t.request('POST', '/management/orgs/acme/credentials', { token })).status).toBe(200);
    const stale = () => t.request('POST', '/management/token', { json: { grant_type: 'client_credentials', client_id, client_secret } });
    // Usergrid's answer to wrong client credentials at its token endpoint (docs/api.md#usergrid-style).
    expectOAuthError(await expectRefusedUnchanged(t, stale, 400, 'invalid_grant'), 400, 'invalid_grant');
  });

  it('answers a tampered token with 401 unauthorized and an expired one with 401 expired_token', async () => {
    const tampered = token.slice(0, -4) + (token.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    expectRefusal(await t.request('GET', '/management/orgs/acme', { token: tampered }), 401, 'unauthorized');
    let offset = 0;
    const clocked = await createTestApp({}, { now: () => Date.now() + offset });
    try {
      const early = await signUp(clocked);
      expect((await clocked.request('GET', '/management/orgs/acme', { token: early })).status).toBe(200);
      offset = 3601 * 1000;
      const expired = await clocked.request('GET', '/management/orgs/acme', { token: early });
      expectRefusal(expired, 401, 'expired_token');
      expect(expired.headers.get('www-authenticate')).toContain('invalid_token');
    } finally {
      await clocked.close();
    }
  });

  it('closed sign-up refuses new organizations and admin users to everyone but a sysadmin', async () => {
    const closed = await createTestApp({ signup: 'closed' });
    try {
      await expectRefusedUnchanged(closed, () => closed.request('POST', '/management/orgs', { json: ORG }), 401, 'unauthorized');
      await expectRefusedUnchanged(closed, () => closed.request('POST', '/management/users', { json: BOB }), 401, 'unauthorized');
      const { ensureSuperuser } = await import('../../src/management/admin-users.js');
      await ensureSuperuser(closed.deps, 'root', 'root-password');
      const root = await adminToken(closed, 'root', 'root-password');
      expect((await closed.request('POST', '/management/orgs', { json: ORG, token: root })).status).toBe(200);
      const alice = await adminToken(closed, ORG.username, ORG.password);
      await expectRefusedUnchanged(closed, () => closed.request('POST', '/management/users', { json: BOB, token: alice }), 403, 'forbidden');
      expect((await closed.request('GET', '/management/orgs/acme', { token: root })).status).toBe(200);
    } finally {
      await closed.close();
    }
  });
});
