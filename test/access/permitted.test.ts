/**
 * The permission tester, `GET /{org}/{app}/users/{user}/permitted?verb=&path=` (docs/api.md#permissions):
 * its answer agrees with what the user's own request gets, names the rule that allows, follows
 * groups and the roles of groups, says no for a disabled user, and only administrators may ask.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectRefusal } from '../helpers.js';
import { APP, appUser, createDataTest, type DataTest } from '../data/setup.js';

let d: DataTest;
beforeEach(async () => {
  d = await createDataTest();
});
afterEach(() => d.t.close());

const as = (token: string | undefined) => (method: string, path: string, json?: unknown) => d.t.request(method, `${APP}${path}`, { json, token });
const test = (user: string, verb: string, path: string, token = d.admin) =>
  d.t.request('GET', `${APP}/users/${user}/permitted?${new URLSearchParams({ verb, path })}`, { token });

describe('the permission tester', () => {
  it("answers as the user's own request is decided, and names the rule that allows", async () => {
    const fred = await appUser(d, 'fred');
    const admin = as(d.admin);
    expect((await admin('POST', '/dogs', { name: 'fido' })).status).toBe(200);
    expect((await admin('POST', '/roles', { name: 'walker' })).status).toBe(200);
    expect((await admin('POST', '/roles/walker/permissions', { permission: 'put:/dogs/*' })).status).toBe(200);

    const before = await test('fred', 'put', '/dogs/fido');
    expect(before.status).toBe(200);
    expect(before.body.data).toMatchObject({ user: fred.uuid, username: 'fred', verb: 'put', path: '/dogs/fido', permitted: false, disabled: false });
    expect(before.body.data).not.toHaveProperty('rule');
    expect((await as(fred.token)('PUT', '/dogs/fido', { age: 3 })).status).toBe(403);

    expect((await admin('POST', '/roles/walker/users/fred')).status).toBe(200);
    const after = await test('fred', 'PUT', '/dogs/fido');
    expect(after.body.data).toMatchObject({ permitted: true, rule: 'put:/dogs/*' });
    expect(after.body.data.permissions).toContain('put:/dogs/*');
    expect((await as(fred.token)('PUT', '/dogs/fido', { age: 3 })).status).toBe(200);

    // The default role: every signed-in user reads, and `me` is the user asked about.
    expect((await test('fred', 'get', '/dogs/fido')).body.data).toMatchObject({ permitted: true, rule: 'get:/**' });
    expect((await test(fred.uuid, 'delete', '/users/fred/devices')).body.data.permitted).toBe(true);
    expect((await test('fred', 'delete', '/users/barney/devices')).body.data.permitted).toBe(false);
    expect((await test('fred', 'delete', '/dogs/fido')).body.data.permitted).toBe(false);
  });

  it("follows the user's groups and their roles, and says no for a disabled user", async () => {
    await appUser(d, 'fred');
    const admin = as(d.admin);
    expect((await admin('POST', '/groups', { path: 'walkers' })).status).toBe(200);
    expect((await admin('POST', '/roles', { name: 'feeder' })).status).toBe(200);
    expect((await admin('POST', '/roles/feeder/permissions', { permission: 'post:/meals' })).status).toBe(200);
    expect((await admin('POST', '/roles/feeder/groups/walkers')).status).toBe(200);
    expect((await test('fred', 'post', '/meals')).body.data.permitted).toBe(false);
    expect((await admin('POST', '/groups/walkers/users/fred')).status).toBe(200);
    expect((await test('fred', 'post', '/meals')).body.data).toMatchObject({ permitted: true, rule: 'post:/meals' });

    expect((await admin('PUT', '/users/fred/deactivate')).status).toBe(200);
    expect((await test('fred', 'post', '/meals')).body.data).toMatchObject({ permitted: false, disabled: true });
  });

  it('refuses a user who is not an administrator, a bad verb or path, and an unknown user', async () => {
    const fred = await appUser(d, 'fred');
    expectRefusal(await test('fred', 'get', '/dogs', fred.token), 403, 'forbidden');
    expectRefusal(await test('fred', 'fetch', '/dogs'), 400, 'illegal_argument');
    expectRefusal(await test('fred', 'get', 'dogs'), 400, 'illegal_argument');
    expectRefusal(await d.t.request('GET', `${APP}/users/fred/permitted?verb=get`, { token: d.admin }), 400, 'illegal_argument');
    expectRefusal(await test('nobody', 'get', '/dogs'), 404, 'entity_not_found');
    expectRefusal(await d.t.request('POST', `${APP}/users/fred/permitted`, { token: d.admin, json: {} }), 405, 'method_not_allowed');
  });
});
