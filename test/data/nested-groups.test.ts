/**
 * Nested group paths (docs/api.md#groups): a group's `path` may hold slashes, and
 * `/groups/company/eng/web` addresses it with everything below it, as a group by uuid.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createServedTestApp, expectRefusal, expectRefusedUnchanged, signUp } from '../helpers.js';
import { APP, appUser, createDataTest, type DataTest } from './setup.js';

let d: DataTest;
const uuids: Record<string, string> = {};
beforeEach(async () => {
  d = await createDataTest();
  for (const path of ['company', 'company/eng', 'company/eng/web', 'other/team']) {
    const res = await req('POST', '/groups', { path });
    expect(res.status, res.text).toBe(200);
    uuids[path] = res.body.entities[0].uuid;
  }
  uuids.fred = (await req('POST', '/users', { username: 'fred' })).body.entities[0].uuid;
});
afterEach(() => d.t.close());

const req = (method: string, path: string, json?: unknown, token = d.admin) => d.t.request(method, `${APP}${path}`, { json, token });
const paths = async (path: string) => {
  const res = await req('GET', path);
  expect(res.status, `${path}: ${res.text}`).toBe(200);
  return res.body.entities.map((e: { type: string; path?: string; username?: string }) => (e.type === 'user' ? e.username : e.path)).sort();
};

describe('a nested group path', () => {
  it('addresses the group, and each shorter path its own group', async () => {
    for (const path of ['company', 'company/eng', 'company/eng/web', 'other/team']) {
      const res = await req('GET', `/groups/${path}`);
      expect(res.status, res.text).toBe(200);
      expect(res.body.entities[0]).toMatchObject({ uuid: uuids[path], path, title: path });
    }
    expect((await req('GET', '/group/company/eng/web')).body.entities[0].uuid).toBe(uuids['company/eng/web']);
    expect((await req('GET', '/groups/COMPANY/Eng')).body.entities[0].uuid).toBe(uuids['company/eng']);
    expect((await req('GET', `/groups/${uuids['company/eng/web']}`)).body.entities[0].path).toBe('company/eng/web');
    expect(await paths('/groups?limit=100')).toEqual(['company', 'company/eng', 'company/eng/web', 'other/team']);
  });

  it('is updated and deleted through its path, and nothing else is', async () => {
    const put = await req('PUT', '/groups/company/eng', { title: 'Engineering' });
    expect(put.status, put.text).toBe(200);
    expect(put.body.entities[0]).toMatchObject({ uuid: uuids['company/eng'], title: 'Engineering' });
    expect((await req('GET', '/groups/company')).body.entities[0].title).toBe('company');
    expect((await req('DELETE', '/groups/company/eng')).status).toBe(200);
    expectRefusal(await req('GET', `/groups/${uuids['company/eng']}`), 404, 'entity_not_found');
    expect(await paths('/groups')).toEqual(['company', 'company/eng/web', 'other/team']);
    expect((await req('GET', '/groups/company/eng/web')).body.entities[0].uuid).toBe(uuids['company/eng/web']);
  });

  it('takes members, lists them, and lets them go', async () => {
    const add = await req('POST', '/groups/company/eng/web/users/fred');
    expect(add.status, add.text).toBe(200);
    expect(await paths('/groups/company/eng/web/users')).toEqual(['fred']);
    expect(await paths('/groups/company/eng/users')).toEqual([]);
    expect(await paths('/users/fred/groups')).toEqual(['company/eng/web']);
    expect((await req('GET', `/groups/company/eng/web/users/${uuids.fred}`)).body.entities[0].username).toBe('fred');
    expect((await req('DELETE', '/groups/company/eng/web/users/fred')).status).toBe(200);
    expect(await paths('/users/fred/groups')).toEqual([]);
  });

  it('has roles, permissions, activities, a feed and connections of its own', async () => {
    await req('POST', '/roles', { name: 'builders' });
    expect((await req('POST', `/roles/builders/groups/${uuids['company/eng']}`)).status).toBe(200);
    expect((await req('GET', '/groups/company/eng/roles')).body.entities.map((e: { name: string }) => e.name)).toEqual(['builders']);
    const granted = await req('POST', '/groups/company/eng/permissions', { permission: 'get:/cats/**' });
    expect(granted.status, granted.text).toBe(200);
    expect((await req('GET', '/groups/company/eng/permissions')).body.data).toEqual(['get:/cats/**']);
    expect((await req('GET', '/groups/company/permissions')).body.data).toEqual([]);
    expect((await req('POST', '/groups/company/eng/web/activities', { verb: 'post', content: 'shipped', actor: { displayName: 'fred' } })).status).toBe(200);
    expect((await req('GET', '/groups/company/eng/web/feed')).body.entities.map((e: { content: string }) => e.content)).toEqual(['shipped']);
    const dog = (await req('POST', '/dogs', { name: 'rex' })).body.entities[0];
    expect((await req('POST', '/groups/company/eng/connections/likes/dogs/rex')).status).toBe(200);
    expect((await req('GET', '/groups/company/eng/likes')).body.entities.map((e: { uuid: string }) => e.uuid)).toEqual([dog.uuid]);
    expect((await req('GET', '/dogs/rex')).body.entities[0].metadata.connecting).toEqual({ likes: `/dogs/${dog.uuid}/connecting/likes` });
    expect(await paths('/dogs/rex/connecting/likes')).toEqual(['company/eng']);
  });

  it('is held to permissions on the path as sent', async () => {
    const ann = await appUser(d, 'ann');
    await req('POST', '/users/ann/permissions', { permission: 'put:/groups/company/**' });
    const own = await req('PUT', '/groups/company/eng/web', { title: 'Web' }, ann.token);
    expect(own.status, own.text).toBe(200);
    await expectRefusedUnchanged(d.t, () => req('PUT', '/groups/other/team', { title: 'Mine' }, ann.token), 403, 'forbidden');
    await expectRefusedUnchanged(d.t, () => req('PUT', `/groups/${uuids['other/team']}`, { title: 'Mine' }, ann.token), 403, 'forbidden');
  });

  // Dot segments over a real server: test/http/invalid-path.test.ts.
  it('keeps refusing encoded separators before routing', async () => {
    for (const path of ['/groups/company%2Feng', '/groups/company%2feng/web', '/groups/company/eng%5Cweb', '/groups/company%5Ceng/web'])
      await expectRefusedUnchanged(d.t, () => req('GET', path), 400, 'invalid_path');
  });

  it('is 404 when no group has it, and 405 where a group takes no such method', async () => {
    expectRefusal(await req('GET', '/groups/company/sales/team'), 404, 'entity_not_found');
    expectRefusal(await req('GET', '/groups/nobody/eng'), 404, 'entity_not_found');
    await expectRefusedUnchanged(d.t, () => req('PATCH', '/groups/company/eng/web', { title: 'x' }), 405, 'method_not_allowed');
  });
});

describe('creating a group with a nested path', () => {
  it.each([
    ['company/users', 'users'],
    ['company/eng/roles', 'roles'],
    ['company/feed', 'feed'],
    ['company/Permissions', 'Permissions'],
    ['company/connections', 'connections'],
    ['company/connecting/x', 'connecting'],
    ['company/activities', 'activities'],
    ['company/groups', 'groups'],
    ['company//eng', 'empty'],
    ['/company', 'empty'],
    ['company/', 'empty'],
    ['company/../eng', '..'],
    ['company/./eng', "'.'"],
    ['company/0190f4c2-0000-7000-8000-00000000beef', 'UUID'],
    ['company/e ng', 'letters'],
    ['company\\eng', 'letters'],
  ])('refuses %s, naming the segment, and stores nothing', async (path, named) => {
    const res = await expectRefusedUnchanged(d.t, () => req('POST', '/groups', { path }), 400, 'illegal_argument');
    expect(res.body.fields).toHaveProperty('path');
    expect(res.body.error_description).toContain(named);
  });

  it('allows a sub-resource word as the first segment, where no group precedes it', async () => {
    expect((await req('POST', '/groups', { path: 'users/admins' })).status).toBe(200);
    expect((await req('GET', '/groups/users/admins')).body.entities[0].path).toBe('users/admins');
  });

  it('refuses to rename a group to an ambiguous path', async () => {
    await expectRefusedUnchanged(d.t, () => req('PUT', '/groups/company/eng', { path: 'company/users' }), 400, 'illegal_argument');
  });
});

describe('over a real server', () => {
  it('carries the body of a request through a nested group path', async () => {
    const served = await createServedTestApp();
    try {
      const token = await signUp(served);
      const send = (method: string, path: string, json?: unknown) => served.request(method, `${APP}${path}`, { json, token });
      expect((await served.request('POST', '/management/orgs/acme/apps', { json: { name: 'sandbox' }, token })).status).toBe(200);
      expect((await send('POST', '/groups', { path: 'company/eng' })).status).toBe(200);
      const put = await send('PUT', '/groups/company/eng', { title: 'Engineering' });
      expect(put.status, put.text).toBe(200);
      expect(put.body.entities[0]).toMatchObject({ path: 'company/eng', title: 'Engineering' });
      const activity = await send('POST', '/groups/company/eng/activities', { verb: 'post', content: 'hello', actor: { displayName: 'a' } });
      expect(activity.status, activity.text).toBe(200);
    } finally {
      await served.close();
    }
  });
});
