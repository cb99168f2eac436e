/**
 * The examples of Apache Usergrid's REST documentation (usergrid.apache.org/docs, 2.x), sent as
 * written to a real `idp serve` with only the base URL changed: entities, collections, queries,
 * connections, users, groups (nested), roles, permissions and assets (docs/usergrid.md). Each
 * step reads back what the documentation says the answer holds. The documentation leaves the
 * access token out of its examples ("you need to provide a valid access token with each API
 * call"); here it is the organization admin's. The examples' passwords (`test1234`) are on the
 * common-password list, so the server runs with `--password-blocklist off`, the one setting a
 * Usergrid app may need (docs/usergrid.md#differences). The steps run in order on one server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSdkTenant, type SdkTenant } from './tenant.js';

let tenant: SdkTenant;
beforeAll(async () => {
  tenant = await startSdkTenant('your-org', 'your-app', { flags: { passwordBlocklist: 'off' } });
});
afterAll(() => tenant.server.close());

interface Answer {
  status: number;
  body: Record<string, any>;
}

/** `curl -X METHOD https://api.usergrid.com/your-org/your-app{path} -d 'body'`, with the base URL changed. */
async function curl(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await fetch(`${tenant.server.url}/your-org/your-app${path}`, {
    method,
    headers: { authorization: `Bearer ${tenant.adminToken}`, ...(body !== undefined && { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? {} : JSON.parse(text) };
}

async function ok(method: string, path: string, body?: unknown): Promise<Record<string, any>[]> {
  const answer = await curl(method, path, body);
  expect(answer.status, `${method} ${path}: ${JSON.stringify(answer.body)}`).toBe(200);
  return answer.body.entities;
}

/** What names each entity in a path: a user's username, a group's path, anything else's name. */
const names = (entities: Record<string, any>[]) => entities.map((e) => (e.type === 'user' ? e.username : e.type === 'group' ? e.path : e.name)).sort();

/** Signs an app user in at the application's token endpoint; their access token. */
async function signIn(username: string, password: string): Promise<string> {
  const response = await fetch(`${tenant.server.url}/your-org/your-app/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'password', username, password }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { access_token: string }).access_token;
}

describe("Usergrid's REST documentation, example by example", () => {
  it('Collections: creating a collection by its singular type, and entities in it', async () => {
    // curl -X POST "https://api.usergrid.com/your-org/your-app/item" -d '{"name":"milk", "price":"3.25"}'
    const [milk] = await ok('POST', '/item', { name: 'milk', price: '3.25' });
    expect(milk).toMatchObject({ type: 'item', name: 'milk', price: '3.25', uuid: expect.any(String), created: expect.any(Number) });
    // Creating multiple custom entities: a JSON array.
    const more = await ok('POST', '/items', [
      { name: 'bread', price: '4.00' },
      { name: 'apples', price: '2.50' },
    ]);
    expect(names(more)).toEqual(['apples', 'bread']);
    expect(names(await ok('GET', '/items'))).toEqual(['apples', 'bread', 'milk']);
  });

  it('Entities: retrieving by name and by uuid, updating, deleting', async () => {
    const [byName] = await ok('GET', '/items/milk');
    const [byUuid] = await ok('GET', `/items/${byName.uuid}`);
    expect(byUuid).toMatchObject({ name: 'milk', price: '3.25' });
    // curl -X PUT https://api.usergrid.com/your-org/your-app/items/milk -d '{"price":"4.00", "availability":"in-stock"}'
    const [updated] = await ok('PUT', '/items/milk', { price: '4.00', availability: 'in-stock' });
    expect(updated).toMatchObject({ name: 'milk', price: '4.00', availability: 'in-stock' });
    // Updating a sub-property: the whole nested object is replaced.
    const [nested] = await ok('PUT', '/items/milk', { varieties: [{ name: '1%', price: '3.25' }] });
    expect(nested.varieties).toEqual([{ name: '1%', price: '3.25' }]);
    await ok('DELETE', '/items/apples');
    expect((await curl('GET', '/items/apples')).status).toBe(404);
  });

  it('Updating collections: PUT with an empty ?ql= updates every entity', async () => {
    // curl -X PUT https://api.usergrid.com/your-org/your-app/items/?ql= -d '{"availability":"in-stock"}'
    const changed = await ok('PUT', '/items/?ql=', { availability: 'sold-out' });
    expect(changed.map((e) => `${e.name}:${e.availability}`).sort()).toEqual(['bread:sold-out', 'milk:sold-out']);
  });

  it('Querying your data: ql with where, order by, limit, contains, within and a cursor', async () => {
    await ok('POST', '/restaurants', [
      { name: 'Blue Bottle', city: 'San Francisco', rating: 4, description: 'coffee roasters', location: { latitude: 37.776753, longitude: -122.407846 } },
      { name: 'Tartine', city: 'San Francisco', rating: 5, description: 'bakery and coffee', location: { latitude: 37.761, longitude: -122.424 } },
      { name: 'Katz', city: 'New York', rating: 5, description: 'delicatessen', location: { latitude: 40.722, longitude: -73.987 } },
    ]);
    const q = (ql: string, extra = '') => ok('GET', `/restaurants?ql=${encodeURIComponent(ql)}${extra}`);
    expect(names(await q("select * where city='San Francisco'"))).toEqual(['Blue Bottle', 'Tartine']);
    expect((await q('select * where rating > 4 order by name asc')).map((e) => e.name)).toEqual(['Katz', 'Tartine']);
    expect(names(await q("select * where description contains 'coffee'"))).toEqual(['Blue Bottle', 'Tartine']);
    expect(names(await q("select * where name = 'tart*'"))).toEqual(['Tartine']);
    expect(names(await q('select * where location within 16000 of 37.776753, -122.407846'))).toEqual(['Blue Bottle', 'Tartine']);
    const first = await curl('GET', `/restaurants?ql=${encodeURIComponent('select * order by name asc')}&limit=2`);
    expect(first.body.entities.map((e: { name: string }) => e.name)).toEqual(['Blue Bottle', 'Katz']);
    expect(first.body.cursor).toEqual(expect.any(String));
    const next = await curl('GET', `/restaurants?ql=${encodeURIComponent('select * order by name asc')}&limit=2&cursor=${first.body.cursor}`);
    expect(next.body.entities.map((e: { name: string }) => e.name)).toEqual(['Tartine']);
    expect(next.body.cursor).toBeUndefined();
  });

  it('Users: creating, retrieving by username, email and uuid, and changing the password', async () => {
    // curl -X POST "https://api.usergrid.com/your-org/your-app/users" -d '{"username":"john.doe","email":"john.doe@gmail.com","name":"John Doe", "password":"test1234"}'
    const [john] = await ok('POST', '/users', { username: 'john.doe', email: 'john.doe@gmail.com', name: 'John Doe', password: 'test1234' });
    expect(john).toMatchObject({ type: 'user', username: 'john.doe', email: 'john.doe@gmail.com', name: 'John Doe', activated: true });
    expect(john.password).toBeUndefined();
    for (const id of ['john.doe', 'john.doe@gmail.com', john.uuid]) expect((await ok('GET', `/users/${id}`))[0].uuid).toBe(john.uuid);
    // The user, signed in (the documentation's "Authenticating users"), changes their own password.
    const asJohn = { authorization: `Bearer ${await signIn('john.doe', 'test1234')}` };
    // curl -X PUT https://api.usergrid.com/your-org/your-app/users/john.doe/password -d '{"oldpassword":"test1234","newpassword":"test9999"}'
    expect((await curl('PUT', '/users/john.doe/password', { oldpassword: 'test1234', newpassword: 'test9999' }, asJohn)).status).toBe(200);
    const wrong = await curl('PUT', '/users/john.doe/password', { oldpassword: 'test1234', newpassword: 'test0000' }, asJohn);
    expect([wrong.status, wrong.body.error]).toEqual([400, 'auth_invalid_username_or_password']);
    await signIn('john.doe', 'test9999');
  });

  it('Connections: connecting, listing both ways, and disconnecting, in the short and the long form', async () => {
    await ok('POST', '/dogs', [{ name: 'fido' }, { name: 'rover' }]);
    // curl -X POST https://api.usergrid.com/your-org/your-app/users/john.doe/likes/dogs/fido
    const [fido] = await ok('POST', '/users/john.doe/likes/dogs/fido');
    expect(fido).toMatchObject({ type: 'dog', name: 'fido' });
    await ok('POST', '/users/john.doe/connections/likes/dogs/rover');
    expect(names(await ok('GET', '/users/john.doe/likes'))).toEqual(['fido', 'rover']);
    expect(names(await ok('GET', '/users/john.doe/connections/likes'))).toEqual(['fido', 'rover']);
    expect(names(await ok('GET', '/dogs/fido/connecting/likes'))).toEqual(['john.doe']);
    const [john] = await ok('GET', '/users/john.doe');
    expect(john.metadata.connections).toEqual({ likes: `/users/${john.uuid}/likes` });
    const [rover] = await ok('GET', '/dogs/rover');
    expect(rover.metadata.connecting).toEqual({ likes: `/dogs/${rover.uuid}/connecting/likes` });
    // curl -X DELETE https://api.usergrid.com/your-org/your-app/users/john.doe/likes/dogs/fido
    await ok('DELETE', '/users/john.doe/likes/dogs/fido');
    await ok('DELETE', `/users/john.doe/connections/likes/${rover.uuid}`);
    expect(await ok('GET', '/users/john.doe/likes')).toEqual([]);
  });

  it('Groups: creating by path (nested too), adding and removing users, listing members', async () => {
    // curl -X POST "https://api.usergrid.com/your-org/your-app/groups" -d '{"path":"mynewgroup"}'
    const [group] = await ok('POST', '/groups', { path: 'mynewgroup' });
    expect(group).toMatchObject({ type: 'group', path: 'mynewgroup' });
    await ok('POST', '/groups', { path: 'california/san-francisco' });
    // curl -X POST "https://api.usergrid.com/your-org/your-app/groups/mynewgroup/users/john.doe"
    await ok('POST', '/groups/mynewgroup/users/john.doe');
    await ok('POST', '/groups/california/san-francisco/users/john.doe');
    expect(names(await ok('GET', '/groups/mynewgroup/users'))).toEqual(['john.doe']);
    expect(names(await ok('GET', '/groups/california/san-francisco/users'))).toEqual(['john.doe']);
    expect((await ok('GET', '/groups/california/san-francisco'))[0].path).toBe('california/san-francisco');
    expect(names(await ok('GET', '/users/john.doe/groups'))).toEqual(['california/san-francisco', 'mynewgroup']);
    await ok('DELETE', '/groups/mynewgroup/users/john.doe');
    expect(await ok('GET', '/groups/mynewgroup/users')).toEqual([]);
  });

  it('Roles and permissions: a role with permissions, given to a user, and a user permission', async () => {
    // curl -X POST "https://api.usergrid.com/your-org/your-app/roles" -d '{"name":"manager","title":"Manager"}'
    const [role] = await ok('POST', '/roles', { name: 'manager', title: 'Manager' });
    expect(role).toMatchObject({ type: 'role', name: 'manager', title: 'Manager' });
    // curl -X POST "https://api.usergrid.com/your-org/your-app/roles/manager/permissions" -d '{"permission":"get,put,post,delete:/items/**"}'
    await ok('POST', '/roles/manager/permissions', { permission: 'get,put,post,delete:/items/**' });
    const permissions = await curl('GET', '/roles/manager/permissions');
    expect(JSON.stringify(permissions.body)).toContain('get,put,post,delete:/items/**');
    await ok('POST', '/roles/manager/users/john.doe');
    expect(names(await ok('GET', '/users/john.doe/roles'))).toEqual(['manager']);
    await ok('POST', '/users/john.doe/permissions', { permission: 'get:/restaurants/*' });
    // What the role and the permission give: john.doe, signed in, may change items but not dogs.
    const token = await signIn('john.doe', 'test9999');
    const asJohn = (method: string, path: string, body?: unknown) => curl(method, path, body, { authorization: `Bearer ${token}` });
    expect((await asJohn('PUT', '/items/milk', { price: '5.00' })).status).toBe(200);
    expect((await asJohn('PUT', '/dogs/fido', { owner: 'john' })).status).toBe(403);
    await ok('DELETE', '/roles/manager/users/john.doe');
    expect((await asJohn('PUT', '/items/milk', { price: '6.00' })).status).toBe(403);
  });

  it('Assets: uploading a file as an entity, then retrieving its bytes', async () => {
    // curl -X POST -i -F name='clouds' -F file=@happy_clouds.jpg 'https://api.usergrid.com/your-org/your-app/pictures/'
    const jpeg = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01]), Buffer.alloc(64, 7)]);
    const form = new FormData();
    form.set('name', 'clouds');
    form.set('file', new Blob([jpeg]), 'happy_clouds.jpg');
    const upload = await fetch(`${tenant.server.url}/your-org/your-app/pictures/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenant.adminToken}` },
      body: form,
    });
    const uploaded = (await upload.json()) as { entities: Record<string, any>[] };
    expect(upload.status).toBe(200);
    expect(uploaded.entities[0]).toMatchObject({ type: 'picture', name: 'clouds' });
    expect(uploaded.entities[0]['file-metadata']).toMatchObject({ 'content-type': 'image/jpeg', 'content-length': jpeg.length, checksum: expect.any(String) });
    // curl -X GET -H "Accept: image/jpeg" 'https://api.usergrid.com/your-org/your-app/pictures/clouds'
    const download = await fetch(`${tenant.server.url}/your-org/your-app/pictures/clouds`, {
      headers: { authorization: `Bearer ${tenant.adminToken}`, accept: 'image/jpeg' },
    });
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('image/jpeg');
    expect(Buffer.from(await download.arrayBuffer()).equals(jpeg)).toBe(true);
  });
});

describe('what differs from Usergrid (docs/usergrid.md#differences)', () => {
  const guest = { authorization: '' };

  it('names a missing or bad token unauthorized, /users/me without one too', async () => {
    const bad = await curl('GET', '/items', undefined, { authorization: 'Bearer not-a-token' });
    expect([bad.status, bad.body.error]).toEqual([401, 'unauthorized']);
    const me = await curl('GET', '/users/me', undefined, guest);
    expect([me.status, me.body.error]).toEqual([401, 'unauthorized']);
  });

  it('lists connections per verb only, and never creates an entity through …/connections/{verb}', async () => {
    await ok('POST', '/users/john.doe/likes/dogs/fido');
    expect(await ok('GET', '/users/john.doe/connections')).toEqual([]);
    expect((await curl('POST', '/users/john.doe/connections/likes', { name: 'spot' })).status).toBe(405);
    expect((await curl('GET', '/dogs/spot')).status).toBe(404);
  });

  it('nests group paths without inheriting membership, and creates nested groups by POST only', async () => {
    await ok('POST', '/groups', { path: 'california' });
    expect(names(await ok('GET', '/groups/california/san-francisco/users'))).toEqual(['john.doe']);
    expect(await ok('GET', '/groups/california/users')).toEqual([]);
    const put = await curl('PUT', '/groups/oregon/portland', { title: 'Portland' });
    expect(put.status).toBe(404);
    expect((await curl('GET', '/groups/oregon')).status).toBe(404);
  });
});
