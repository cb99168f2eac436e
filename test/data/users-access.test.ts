import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectRefusal, expectRefusedUnchanged } from '../helpers.js';
import { APP, appUser, createDataTest, type DataTest } from './setup.js';

let d: DataTest;
beforeEach(async () => {
  d = await createDataTest();
});
afterEach(() => d.t.close());

const as = (token: string | undefined) => (method: string, path: string, json?: unknown) => d.t.request(method, `${APP}${path}`, { json, token });

describe('app users', () => {
  it("are unique by username and by email, and a username may not be another user's email", async () => {
    const admin = as(d.admin);
    const fred = await admin('POST', '/users', { username: 'fred', email: 'Fred@Example.com', password: 'sesame-street' });
    expect(fred.status).toBe(200);
    expect(fred.text).not.toContain('sesame');
    for (const body of [{ username: 'FRED' }, { username: 'other', email: 'fred@example.com' }, { username: 'fred@example.com' }]) {
      await expectRefusedUnchanged(d.t, () => admin('POST', '/users', body), 400, 'duplicate_unique_property_exists');
    }
    for (const id of ['fred', 'fred@example.com', fred.body.entities[0].uuid]) {
      expect((await admin('GET', `/users/${id}`)).body.entities[0]).toMatchObject({ username: 'fred', email: 'Fred@Example.com', adminUser: false });
    }
  });

  it("signs in, reads /users/me, changes its password with the old one, and is refused other users' entities", async () => {
    const fred = await appUser(d, 'fred');
    await appUser(d, 'barney');
    const me = await as(fred.token)('GET', '/users/me');
    expect(me.status).toBe(200);
    expect(me.body.entities[0].uuid).toBe(fred.uuid);
    expect((await as(fred.token)('PUT', '/users/me', { city: 'Bedrock' })).status).toBe(200);
    await expectRefusedUnchanged(d.t, () => as(fred.token)('PUT', '/users/barney', { city: 'x' }), 403, 'forbidden');
    expectRefusal(await as(undefined)('GET', '/users/fred'), 401, 'unauthorized');
    await expectRefusedUnchanged(
      d.t,
      () => as(fred.token)('POST', '/users/me/password', { oldpassword: 'nope', newpassword: 'new-password-1' }),
      400,
      'auth_invalid_username_or_password',
      { except: ['login_throttle'] },
    );
    expect((await as(fred.token)('POST', '/users/me/password', { oldpassword: 'sesame-street', newpassword: 'new-password-1' })).status).toBe(200);
    const login = await d.t.request('POST', `${APP}/token`, { json: { grant_type: 'password', username: 'fred', password: 'new-password-1' } });
    expect(login.status).toBe(200);
  });

  it('is held to the same permissions however the request names the collection (/user/{id} is /users/{id})', async () => {
    const fred = await appUser(d, 'fred');
    await appUser(d, 'barney');
    const put = await as(fred.token)('PUT', `/user/${fred.uuid}`, { city: 'Bedrock' });
    expect(put.status).toBe(200);
    expect(put.body.entities[0].city).toBe('Bedrock');
    await expectRefusedUnchanged(d.t, () => as(fred.token)('PUT', '/user/barney', { city: 'x' }), 403, 'forbidden');
    await expectRefusedUnchanged(d.t, () => as(fred.token)('PUT', '/USERS/barney', { city: 'x' }), 403, 'forbidden');
    expectRefusal(await as(undefined)('GET', '/user/fred'), 401, 'unauthorized');
    // A grant on a collection holds for its type's spelling too.
    await as(d.admin)('POST', '/dogs', { name: 'rex' });
    await expectRefusedUnchanged(d.t, () => as(fred.token)('PUT', '/dog/rex', { age: 4 }), 403, 'forbidden');
    expect((await as(d.admin)('POST', '/users/fred/permissions', { permission: 'put:/dogs/*' })).status).toBe(200);
    expect((await as(fred.token)('PUT', '/dog/rex', { age: 4 })).status).toBe(200);
  });

  it('changes its password with PUT …/password as well as POST (the Usergrid SDKs use PUT)', async () => {
    const fred = await appUser(d, 'fred');
    await expectRefusedUnchanged(
      d.t,
      () => as(fred.token)('PUT', `/users/${fred.uuid}/password`, { oldpassword: 'nope', newpassword: 'new-password-1' }),
      400,
      'auth_invalid_username_or_password',
      { except: ['login_throttle'] },
    );
    const put = await as(fred.token)('PUT', `/users/${fred.uuid}/password`, { oldpassword: 'sesame-street', newpassword: 'new-password-1' });
    expect(put.status).toBe(200);
    expect(put.body.action).toBe('set user password');
    const login = await d.t.request('POST', `${APP}/token`, { json: { grant_type: 'password', username: 'fred', password: 'new-password-1' } });
    expect(login.status).toBe(200);
    const other = await expectRefusedUnchanged(
      d.t,
      () => as(d.admin)('PUT', `/users/${fred.uuid}/activities`, { verb: 'post', content: 'x' }),
      405,
      'method_not_allowed',
    );
    expect(other.headers.get('allow')).toBe('GET, POST, DELETE');
  });

  it('cannot grant itself permissions, roles or groups through /users/me', async () => {
    const fred = await appUser(d, 'fred');
    await as(d.admin)('POST', '/groups', { path: 'staff', title: 'Staff' });
    // Granting through the connection endpoints is a write the default role does not permit.
    for (const [path, body] of [
      ['/users/me/permissions', { permission: 'get,put,post,delete:/**' }],
      ['/users/me/roles/admin', undefined],
      ['/users/me/groups/staff', undefined],
    ] as const) {
      await expectRefusedUnchanged(d.t, () => as(fred.token)('POST', path, body), 403, 'forbidden');
    }
    // Writing its own record is permitted, but permissions are no property: the field is named.
    const field = await expectRefusedUnchanged(
      d.t,
      () => as(fred.token)('PUT', '/users/me', { permissions: ['get,put,post,delete:/**'] }),
      400,
      'illegal_argument',
    );
    expect(field.body.fields).toHaveProperty('permissions');
    await expectRefusedUnchanged(d.t, () => as(fred.token)('DELETE', '/roles/default'), 403, 'forbidden');
  });
});

describe('roles, groups and permissions', () => {
  it('applies a permission granted to a role, a group or a user on the very next request, and its removal too', async () => {
    const admin = as(d.admin);
    const fred = await appUser(d, 'fred');
    await admin('POST', '/secrets', { name: 's1' });
    // The default role reads everything; take that away so grants are what decides.
    expect((await admin('DELETE', '/roles/default/permissions?permission=get:/**')).status).toBe(200);
    expectRefusal(await as(fred.token)('GET', '/secrets/s1'), 403, 'forbidden');

    expect((await admin('POST', '/roles', { title: 'Readers', 'role name': 'readers' })).status).toBe(200);
    expect((await admin('POST', '/roles/readers/permissions', { operation: 'get', resource_path: '/secrets/*' })).body.data).toEqual(['get:/secrets/*']);
    expect((await admin('POST', '/roles/readers/users/fred')).status).toBe(200);
    expect((await as(fred.token)('GET', '/secrets/s1')).status).toBe(200);
    expect((await admin('GET', '/users/fred/roles')).body.entities.map((r: { name: string }) => r.name)).toEqual(['readers']);
    expect((await admin('GET', '/roles/readers/users')).body.entities.map((u: { username: string }) => u.username)).toEqual(['fred']);
    expect((await admin('DELETE', '/roles/readers/permissions?grant_url_pattern=get:/secrets/*')).status).toBe(200);
    expectRefusal(await as(fred.token)('GET', '/secrets/s1'), 403, 'forbidden');

    expect((await admin('POST', '/groups', { path: 'staff', title: 'Staff' })).status).toBe(200);
    expect((await admin('POST', '/groups/staff/permissions', { permission: 'get:/secrets/**' })).status).toBe(200);
    expect((await admin('POST', '/groups/staff/users/fred')).status).toBe(200);
    expect((await as(fred.token)('GET', '/secrets/s1')).status).toBe(200);
    expect((await admin('DELETE', '/groups/staff/users/fred')).status).toBe(200);
    expectRefusal(await as(fred.token)('GET', '/secrets/s1'), 403, 'forbidden');

    expect((await admin('POST', '/users/fred/permissions', { permission: 'get:/secrets/s1' })).status).toBe(200);
    expect((await admin('GET', '/users/fred/permissions')).body.data).toEqual(['get:/secrets/s1']);
    expect((await as(fred.token)('GET', '/secrets/s1')).status).toBe(200);
  });

  it('lets a guest sign up and register a device but read nothing', async () => {
    const guest = as(undefined);
    expect((await guest('POST', '/users', { username: 'wilma', password: 'sesame-street' })).status).toBe(200);
    const device = '0190f4c2-0000-7000-8000-000000000001';
    const put = await guest('PUT', `/devices/${device}`, { name: 'phone', 'apple.notifier.id': 'token-1' });
    expect(put.status).toBe(200);
    expect(put.body.entities[0]).toMatchObject({ uuid: device, type: 'device', 'apple.notifier.id': 'token-1' });
    expectRefusal(await guest('GET', '/devices'), 401, 'unauthorized');
    await expectRefusedUnchanged(d.t, () => guest('DELETE', `/devices/${device}`), 401, 'unauthorized');
  });
});

describe('activities, feeds and following', () => {
  it("publishes a user activity to their feed and followers' feeds, and a group activity to members' feeds", async () => {
    const admin = as(d.admin);
    const fred = await appUser(d, 'fred');
    await appUser(d, 'barney');
    expect((await as(fred.token)('POST', '/users/me/following/users/barney')).status).toBe(200);
    expect((await admin('GET', '/users/barney/followers')).body.entities.map((u: { username: string }) => u.username)).toEqual(['fred']);
    const posted = await admin('POST', '/users/barney/activities', { verb: 'post', content: 'yabba dabba' });
    expect(posted.status).toBe(200);
    expect(posted.body.entities[0]).toMatchObject({ type: 'activity', verb: 'post', content: 'yabba dabba', actor: { username: 'barney' } });
    expect((await as(fred.token)('GET', '/users/me/feed')).body.entities.map((a: { content: string }) => a.content)).toEqual(['yabba dabba']);
    await admin('POST', '/groups', { path: 'lodge', title: 'Water Buffaloes' });
    await admin('POST', '/groups/lodge/users/fred');
    await admin('POST', '/groups/lodge/activities', { verb: 'post', content: 'meeting', displayName: 'Grand Poobah' });
    const feed = (await admin('GET', '/users/fred/feed')).body.entities.map((a: { content: string }) => a.content);
    expect(feed).toEqual(['meeting', 'yabba dabba']);
    expect((await admin('GET', '/groups/lodge/feed')).body.entities).toHaveLength(1);
  });

  it('records events, listed newest first', async () => {
    const admin = as(d.admin);
    const first = await admin('POST', '/events', { timestamp: 0, category: 'a' });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      applicationName: 'sandbox',
      organization: 'acme',
      applicationId: expect.any(String),
      url: expect.stringContaining('/events'),
    });
    await admin('POST', '/events', { timestamp: '1700000000000', category: 'b' });
    expect((await admin('GET', '/events')).body.entities.map((e: { category: string }) => e.category)).toEqual(['b', 'a']);
  });
});
