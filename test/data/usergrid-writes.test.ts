/**
 * Writes a Usergrid app makes expecting Usergrid's answer: a PUT on a collection without a query,
 * a PUT on a name that does not exist yet, token revocation under a user, and the reserved
 * sub-resources of users and entities (docs/api.md#entities).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectErrorBody, expectRefusal, expectRefusedUnchanged, snapshot } from '../helpers.js';
import { APP, appUser, createDataTest, type DataTest } from './setup.js';

let d: DataTest;
beforeEach(async () => {
  d = await createDataTest();
});
afterEach(() => d.t.close());

const req = (method: string, path: string, json?: unknown, token = d.admin) => d.t.request(method, `${APP}${path}`, { json, token });
const names = async (path: string) => (await req('GET', `${path}?limit=100`)).body.entities.map((e: { name: string }) => e.name).sort();

describe('PUT on a collection', () => {
  it('without ql creates one entity from the body and leaves every existing one as it was', async () => {
    const before = [];
    for (let i = 0; i < 12; i++) before.push((await req('POST', '/dogs', { name: `dog${i}`, age: i })).body.entities[0]);
    const put = await req('PUT', '/dogs', { name: 'rex', age: 99 });
    expect(put.status, put.text).toBe(200);
    expect(put.body).toMatchObject({ action: 'put', path: '/dogs' });
    expect(put.body.entities).toHaveLength(1);
    expect(put.body.entities[0]).toMatchObject({ type: 'dog', name: 'rex', age: 99 });
    expect(before.map((e) => e.uuid)).not.toContain(put.body.entities[0].uuid);
    const all = (await req('GET', '/dogs?limit=100')).body.entities;
    expect(all).toHaveLength(13);
    for (const old of before)
      expect(all.find((e: { uuid: string }) => e.uuid === old.uuid)).toMatchObject({ name: old.name, age: old.age, modified: old.modified });
  });

  it('with a blank ql updates every entity, up to limit, as Usergrid batch-updates a collection with ?ql=', async () => {
    await req('POST', '/items', [
      { name: 'milk', price: '3.25' },
      { name: 'bread', price: '4.00' },
    ]);
    const put = await req('PUT', '/items/?ql=', { availability: 'in-stock' });
    expect(put.status, put.text).toBe(200);
    expect(put.body).toMatchObject({ action: 'put', params: { ql: [''] } });
    expect(put.body.entities.map((e: { name: string; availability: string }) => `${e.name}:${e.availability}`).sort()).toEqual([
      'bread:in-stock',
      'milk:in-stock',
    ]);
    expect(await names('/items')).toEqual(['bread', 'milk']);
    // Blank all the same, and bounded by limit: one more item, the newest, is the only one changed.
    await req('POST', '/items', { name: 'eggs' });
    const limited = await req('PUT', '/items?ql=%20&limit=1', { availability: 'sold-out' });
    expect(limited.body.entities.map((e: { name: string }) => e.name)).toEqual(['eggs']);
    expect((await req('GET', '/items/milk')).body.entities[0].availability).toBe('in-stock');
  });

  it('without ql and with an array body creates each item, and creates the collection', async () => {
    const put = await req('PUT', '/cats', [{ name: 'tom' }, { name: 'felix' }]);
    expect(put.status, put.text).toBe(200);
    expect(put.body.entities.map((e: { type: string; name: string }) => `${e.type}:${e.name}`)).toEqual(['cat:tom', 'cat:felix']);
    expect(await names('/cats')).toEqual(['felix', 'tom']);
  });

  it('without ql refuses what POST refuses: a name taken, and nothing changes', async () => {
    await req('POST', '/dogs', { name: 'rex', age: 1 });
    const res = await req('PUT', '/dogs', { name: 'REX', age: 2 });
    expectRefusal(res, 400, 'duplicate_unique_property_exists');
    expect((await req('GET', '/dogs/rex')).body.entities[0].age).toBe(1);
  });

  it('with ql or queryStatement updates exactly the entities the query matches', async () => {
    await req('POST', '/dogs', [
      { name: 'rex', color: 'brown' },
      { name: 'fido', color: 'brown' },
      { name: 'spot', color: 'white' },
    ]);
    const byQl = await req('PUT', `/dogs?ql=${encodeURIComponent("select * where color = 'brown'")}`, { owner: 'ann' });
    expect(byQl.status, byQl.text).toBe(200);
    expect(byQl.body.entities.map((e: { name: string }) => e.name).sort()).toEqual(['fido', 'rex']);
    const byStatement = await req('PUT', `/dogs?queryStatement=${encodeURIComponent("select * where name = 'spot'")}`, { owner: 'bob' });
    expect(byStatement.body.entities.map((e: { name: string }) => e.name)).toEqual(['spot']);
    const all = (await req('GET', '/dogs')).body.entities;
    expect(Object.fromEntries(all.map((e: { name: string; owner: string }) => [e.name, e.owner]))).toEqual({ rex: 'ann', fido: 'ann', spot: 'bob' });
    expect(all).toHaveLength(3);
  });
});

describe('PUT on an entity that does not exist yet', () => {
  it('creates it under the name in the path, and a second PUT merges into it', async () => {
    const put = await req('PUT', '/dogs/rex', { name: 'ignored', color: 'brown' });
    expect(put.status, put.text).toBe(200);
    expect(put.body).toMatchObject({ action: 'put', path: '/dogs' });
    expect(put.body.entities[0]).toMatchObject({ type: 'dog', name: 'rex', color: 'brown' });
    const again = await req('PUT', '/dogs/REX', { age: 3 });
    expect(again.body.entities[0]).toMatchObject({ uuid: put.body.entities[0].uuid, name: 'rex', color: 'brown', age: 3 });
    expect(await names('/dogs')).toEqual(['rex']);
  });

  it('creates a user with the path name as username, who can then sign in', async () => {
    const put = await req('PUT', '/users/fred', { email: 'fred@example.com', password: 'sesame-street' });
    expect(put.status, put.text).toBe(200);
    expect(put.body.entities[0]).toMatchObject({ type: 'user', username: 'fred', email: 'fred@example.com' });
    expect(put.body.entities[0]).not.toHaveProperty('password');
    const signIn = await d.t.request('POST', `${APP}/token`, { json: { grant_type: 'password', username: 'fred', password: 'sesame-street' } });
    expect(signIn.status, signIn.text).toBe(200);
  });

  it('is 404 for a uuid, an email or me, and creates nothing', async () => {
    await req('POST', '/dogs', { name: 'rex' });
    for (const path of ['/dogs/0190f4c2-0000-7000-8000-00000000beef', '/users/0190f4c2-0000-7000-8000-00000000beef', '/users/ann@example.com', '/users/me']) {
      await expectRefusedUnchanged(d.t, () => req('PUT', path, { color: 'black' }), 404, 'entity_not_found');
    }
  });

  it('refuses an array body and a password too short, changing nothing', async () => {
    await req('POST', '/dogs', { name: 'rex' });
    await expectRefusedUnchanged(d.t, () => req('PUT', '/dogs/fido', [{ a: 1 }, { a: 2 }]), 400, 'illegal_argument');
    await expectRefusedUnchanged(d.t, () => req('PUT', '/users/fred', { username: 'x', password: 'short' }), 400, 'illegal_argument');
  });

  it('is refused to an app user who may not write there, and to a guest', async () => {
    const ann = await appUser(d, 'ann');
    await expectRefusedUnchanged(d.t, () => req('PUT', '/users/mallory', { password: 'sesame-street' }, ann.token), 403, 'forbidden');
    await expectRefusedUnchanged(d.t, () => d.t.request('PUT', `${APP}/users/mallory`, { json: { password: 'sesame-street' } }), 401, 'unauthorized');
  });
});

describe('revoking tokens under a user', () => {
  const signIn = async (username: string) =>
    (await d.t.request('POST', `${APP}/token`, { json: { grant_type: 'password', username, password: 'sesame-street' } })).body.access_token as string;
  const works = async (token: string) => (await d.t.request('GET', `${APP}/users/me`, { token })).status === 200;

  it.each(['PUT', 'POST'])('%s …/revoketoken ends that token at once and no other, as the user', async (method) => {
    const fred = await appUser(d, 'fred');
    const other = await signIn('fred');
    const res = await d.t.request(method, `${APP}/users/fred/revoketoken?token=${fred.token}`, { token: other });
    expect(res.status, res.text).toBe(200);
    expect(res.body.action).toBe('revoked user token');
    expect(res.text).not.toContain(fred.token);
    expect(await works(fred.token)).toBe(false);
    expect(await works(other)).toBe(true);
    expect((await req('GET', '/revoketoken')).status).toBe(404);
  });

  it.each(['PUT', 'POST'])("%s …/revoketokens as an admin ends every one of the user's tokens, and no one else's", async (method) => {
    const fred = await appUser(d, 'fred');
    const second = await signIn('fred');
    const ann = await appUser(d, 'ann');
    const res = await req(method, '/users/fred/revoketokens');
    expect(res.status, res.text).toBe(200);
    expect(res.body.action).toBe('revoked user tokens');
    expect([await works(fred.token), await works(second), await works(ann.token)]).toEqual([false, false, true]);
    expect(await works(await signIn('fred'))).toBe(true);
  });

  it('refuses another app user, a token of someone else, and a missing token, revoking nothing', async () => {
    const fred = await appUser(d, 'fred');
    const ann = await appUser(d, 'ann');
    await expectRefusedUnchanged(d.t, () => req('PUT', '/users/fred/revoketokens', undefined, ann.token), 403, 'forbidden');
    await expectRefusedUnchanged(d.t, () => req('PUT', `/users/fred/revoketoken?token=${fred.token}`, undefined, ann.token), 403, 'forbidden');
    await expectRefusedUnchanged(d.t, () => req('PUT', `/users/fred/revoketoken?token=${ann.token}`, undefined, fred.token), 400, 'illegal_argument');
    await expectRefusedUnchanged(d.t, () => req('PUT', '/users/fred/revoketoken'), 400, 'illegal_argument');
    await expectRefusedUnchanged(d.t, () => req('GET', '/users/fred/revoketokens'), 405, 'method_not_allowed');
    expect([await works(fred.token), await works(ann.token)]).toEqual([true, true]);
  });
});

describe('the reserved sub-resources of users and entities', () => {
  const SUB_RESOURCES = [
    'token',
    'revoketoken',
    'revoketokens',
    'password',
    'resetpw',
    'activate',
    'deactivate',
    'reactivate',
    'feed',
    'activities',
    'connections',
    'connecting',
    'roles',
    'groups',
    'permissions',
    'devices',
    'notifications',
    'receipts',
  ];
  /** What each route documents that it writes (docs/api.md), by method, owner collection and sub-resource. */
  // An entity's write rewrites its rows in the property index (whose paths SQLite numbers in a
  // table of their own: docs/design.md#the-property-index) and the word index (FTS5 keeps the
  // latter in tables of its own on SQLite: docs/design.md#the-word-index).
  const ENTITY = [
    'entities',
    'entity_values',
    'entity_value_paths',
    'entity_words',
    'entity_words_content',
    'entity_words_data',
    'entity_words_docsize',
    'entity_words_idx',
  ];
  const DOCUMENTED: Record<string, { tables: string[]; creates?: boolean }> = {
    'POST users/password': { tables: ['app_user_credentials'] },
    'PUT users/password': { tables: ['app_user_credentials'] },
    'POST users/revoketoken': { tables: ['token_revocations'] },
    'PUT users/revoketoken': { tables: ['token_revocations'] },
    'POST users/revoketokens': { tables: ['oauth_grants', 'token_revocations'] },
    'PUT users/revoketokens': { tables: ['oauth_grants', 'token_revocations'] },
    // The administrator's switch is stored on the user; deactivating ends the user's sign-ins too.
    'PUT users/deactivate': { tables: [...ENTITY, 'browser_sessions', 'oauth_grants', 'token_revocations'] },
    'PUT users/activate': { tables: ENTITY },
    // The user's own permission rules are stored on the user.
    'POST users/permissions': { tables: ENTITY },
    'DELETE users/permissions': { tables: ENTITY },
    'POST users/activities': { tables: [...ENTITY, 'connections', 'collections'], creates: true },
    'POST users/devices': { tables: [...ENTITY, 'connections', 'collections'], creates: true },
    // Connecting two entities that exist stores the connection and nothing else, in either form.
    'POST users/likes/dogs/rex': { tables: ['connections'] },
    'POST dogs/likes/dogs/rex': { tables: ['connections'] },
    'POST users/connections/likes/dogs/rex': { tables: ['connections'] },
    'POST dogs/connections/likes/dogs/rex': { tables: ['connections'] },
    'POST users/connections/users/fred': { tables: ['connections'] },
    'POST dogs/connections/users/fred': { tables: ['connections'] },
  };
  /** Usergrid's long form of a connection and its reverse, to a name, a type, an entity, or nothing. */
  const CONNECTION_PATHS = ['connections', 'connecting'].flatMap((word) => [
    `${word}/likes`,
    `${word}/likes/dogs`,
    `${word}/likes/dogs/rex`,
    `${word}/likes/nobody`,
    `${word}/users/fred`,
  ]);
  const BODY = { name: 'thing', path: 'thing', verb: 'post', content: 'hi', permission: 'get:/cats/**', newpassword: 'sesame-street-2' };
  const entityCount = async () => (await d.t.deps.db.$client.query<{ n: number }>('select count(*) as n from entities'))[0].n;

  it.each(
    ['users/fred', 'dogs/rex'].flatMap((owner) =>
      [...SUB_RESOURCES, ...CONNECTION_PATHS, 'likes/dogs/rex'].flatMap((sub) =>
        ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'].map((method) => ({ method, owner, sub })),
      ),
    ),
  )('$method /$owner/$sub writes nothing but what it names', async ({ method, owner, sub }) => {
    const fred = await appUser(d, 'fred');
    await req('POST', '/dogs', { name: 'rex' });
    const documented = DOCUMENTED[`${method} ${owner.split('/')[0]}/${sub}`] ?? { tables: [] };
    const [before, count] = [await snapshot(d.t, { except: documented.tables }), await entityCount()];
    const query = sub === 'revoketoken' ? `?token=${fred.token}` : sub === 'permissions' && method === 'DELETE' ? '?permission=get:/cats/**' : '';
    const res = await req(method, `/${owner}/${sub}${query}`, ['POST', 'PUT', 'PATCH'].includes(method) ? BODY : undefined);
    expect(res.status, res.text).toBeLessThan(500);
    if (res.status >= 400) expectErrorBody(res);
    expect(await snapshot(d.t, { except: documented.tables }), `${method} /${owner}/${sub} → ${res.status}`).toBe(before);
    if (!documented.creates) expect(await entityCount(), `${method} /${owner}/${sub} created an entity`).toBe(count);
  });
});
