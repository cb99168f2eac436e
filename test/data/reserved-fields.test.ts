/**
 * Fields of a user record that only the server or an administrator sets: an app user writing
 * their own record, or a guest signing up, is refused with the field named and nothing stored;
 * the application's administrators write them as before.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectFieldsNamed, expectRefusedUnchanged, RESERVED_USER_FIELDS } from '../helpers.js';
import { APP, appUser, createDataTest, type DataTest } from './setup.js';

let d: DataTest;
beforeEach(async () => {
  d = await createDataTest();
});
afterEach(() => d.t.close());

const as = (token: string | undefined) => (method: string, path: string, json?: unknown) => d.t.request(method, `${APP}${path}`, { json, token });

describe('fields only the server or an administrator sets', () => {
  it('are refused, named, when an app user writes their own record, by every route that reaches it', async () => {
    const fred = await appUser(d, 'fred');
    const self = as(fred.token);
    // Each a value other than what fred's record shows: a write that would change it.
    const changes = { ...RESERVED_USER_FIELDS, activated: false, disabled: true };
    for (const [field, value] of Object.entries(changes)) {
      for (const path of ['/users/me', `/users/${fred.uuid}`, '/users/fred', '/user/me']) {
        const res = await expectRefusedUnchanged(d.t, () => self('PUT', path, { city: 'Bedrock', [field]: value }), 400, 'illegal_argument');
        expectFieldsNamed(res, field);
      }
      // Removing one (null) is writing it too.
      expectFieldsNamed(await expectRefusedUnchanged(d.t, () => self('PUT', '/users/me', { [field]: null }), 400, 'illegal_argument'), field);
    }
    const both = await expectRefusedUnchanged(d.t, () => self('PUT', '/users/me', { adminUser: true, roles: ['admin'] }), 400, 'illegal_argument');
    expectFieldsNamed(both, 'adminUser', 'roles');

    // Saving back the record as read (as Usergrid's SDKs do) sends them unchanged: no write of theirs.
    // (fred has no email: the record shows "", which a write would take for an invalid address.)
    const { email: _none, ...read } = (await self('GET', '/users/me')).body.entities[0];
    const saved = await self('PUT', '/users/me', { ...read, city: 'Gravel Pit' });
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body.entities[0]).toMatchObject({ uuid: fred.uuid, type: 'user', city: 'Gravel Pit', activated: true, disabled: false, adminUser: false });

    // The rest of their own record stays theirs to write.
    const put = await self('PUT', '/users/me', { city: 'Bedrock' });
    expect(put.status).toBe(200);
    expect(put.body.entities[0]).toMatchObject({ uuid: fred.uuid, type: 'user', city: 'Bedrock', activated: true });
    expect(put.body.entities[0].roles).toBeUndefined();
  });

  it('are refused when a guest signs up, and when an app user creates or updates users by other routes', async () => {
    const guest = as(undefined);
    for (const [field, value] of Object.entries(RESERVED_USER_FIELDS)) {
      const res = await expectRefusedUnchanged(
        d.t,
        () => guest('POST', '/users', { username: 'wilma', password: 'sesame-street', [field]: value }),
        400,
        'illegal_argument',
      );
      expectFieldsNamed(res, field);
    }
    const list = await expectRefusedUnchanged(
      d.t,
      () => guest('POST', '/users', [{ username: 'wilma' }, { username: 'betty', adminUser: true }]),
      400,
      'illegal_argument',
    );
    expectFieldsNamed(list, 'adminUser');
    expect((await guest('POST', '/users', { username: 'wilma', password: 'sesame-street' })).status).toBe(200);

    // An app user permitted to write users in bulk and through a group is still no administrator.
    const fred = await appUser(d, 'fred');
    expect((await as(d.admin)('POST', '/groups', { path: 'staff' })).status).toBe(200);
    for (const permission of ['put:/users', 'post:/groups/**']) {
      expect((await as(d.admin)('POST', '/users/fred/permissions', { permission })).status).toBe(200);
    }
    const self = as(fred.token);
    const bulk = await expectRefusedUnchanged(d.t, () => self('PUT', "/users?ql=select * where username='fred'", { activated: true }), 400, 'illegal_argument');
    expectFieldsNamed(bulk, 'activated');
    const grouped = await expectRefusedUnchanged(
      d.t,
      () => self('POST', '/groups/staff/users', { username: 'barney', roles: ['admin'] }),
      400,
      'illegal_argument',
    );
    expectFieldsNamed(grouped, 'roles');
    expect((await self('PUT', "/users?ql=select * where username='fred'", { city: 'Bedrock' })).status).toBe(200);
    expect((await self('POST', '/groups/staff/users', { username: 'barney' })).status).toBe(200);
  });

  it("stay the application administrators' to write: activation, standing, and identity fields dropped as before", async () => {
    const fred = await appUser(d, 'fred');
    const admin = as(d.admin);
    const put = await admin('PUT', '/users/fred', {
      activated: false,
      disabled: true,
      roles: ['staff'],
      adminUser: false,
      uuid: RESERVED_USER_FIELDS.uuid,
      type: 'admin',
    });
    expect(put.status).toBe(200);
    expect(put.body.entities[0]).toMatchObject({ uuid: fred.uuid, type: 'user', activated: false, disabled: true, roles: ['staff'] });
    const signIn = await d.t.request('POST', `${APP}/token`, { json: { grant_type: 'password', username: 'fred', password: 'sesame-street' } });
    expect(signIn.status).toBe(400);
    expect((await admin('PUT', '/users/fred', { activated: true, disabled: null })).status).toBe(200);
    const again = await d.t.request('POST', `${APP}/token`, { json: { grant_type: 'password', username: 'fred', password: 'sesame-street' } });
    expect(again.status).toBe(200);

    const created = await admin('POST', '/users', { username: 'barney', activated: false });
    expect(created.status).toBe(200);
    expect(created.body.entities[0].activated).toBe(false);
  });
});
