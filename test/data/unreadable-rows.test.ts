/**
 * A stored entity whose JSON the database's JSON functions cannot read — nested past SQLite's
 * 1,000 levels, or text that is not JSON — as a database written by an older version may hold
 * (new writes are refused: json-limits.test.ts). Queries over its collection answer with the
 * other entities and leave it as it is (docs/api.md#queries-and-paging).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { clientOf, dialectOf } from '../../src/db/open.js';
import { findEntityByUuid, insertEntity } from '../../src/db/entity-store.js';
import { APP, createDataTest, type DataTest } from './setup.js';

let d: DataTest;
let appUuid: string;
let deepUuid: string;

/** Properties nested `depth` levels deep under `x`, as an older version could store them. */
function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 1; i < depth; i++) value = [value];
  return value;
}

/** The entity as stored, its properties as JSON text (deep ones too). */
async function stored(uuid: string): Promise<string | undefined> {
  const row = await findEntityByUuid(d.t.deps.db, appUuid, uuid);
  return row && JSON.stringify(row.properties);
}

const ql = (text: string) => `ql=${encodeURIComponent(text)}`;
const usernames = (body: { entities: { username: string }[] }) => body.entities.map((user) => user.username).sort();

beforeAll(async () => {
  d = await createDataTest();
  const created = await d.t.request('POST', `${APP}/users`, { json: [{ username: 'fred' }, { username: 'wilma' }, { username: 'barney' }], token: d.admin });
  expect(created.status, created.text).toBe(200);
  appUuid = created.body.application;
  // Straight through the storage layer, past the API's depth limit.
  const deep = await insertEntity(d.t.deps.db, {
    appUuid,
    collection: 'users',
    type: 'user',
    collectionStored: true,
    name: 'deep',
    nameProperty: 'username',
    properties: { x: nested(1100) },
    now: Date.now(),
  });
  deepUuid = deep.uuid;
});
afterAll(() => d.t.close());

describe('an entity nested past 1,000 levels', () => {
  it('answers a query over its collection with the entities that match, and names it in a warning on SQLite', async () => {
    const warn = vi.spyOn(d.t.deps.logger, 'warn');
    // `not` has no index to find its candidates (docs/api.md#explain): the query reads every user.
    const res = await d.t.request('GET', `${APP}/users?${ql("select * where not (not username contains 'fred')")}`, { token: d.admin });
    expect(res.status, res.text).toBe(200);
    expect(usernames(res.body)).toEqual(['fred']);
    // PostgreSQL's jsonb reads the deep document: nothing is skipped there.
    if (dialectOf(d.t.deps.db) === 'sqlite') {
      expect(warn).toHaveBeenCalledWith(expect.objectContaining({ collection: 'users', skipped: [deepUuid] }), expect.stringContaining('skipped'));
    } else {
      expect(warn).not.toHaveBeenCalled();
    }
    warn.mockRestore();
  });

  it('is not read by a query the property index answers (docs/design.md#the-property-index)', async () => {
    const warn = vi.spyOn(d.t.deps.logger, 'warn');
    const res = await d.t.request('GET', `${APP}/users?${ql("select * where username='fred'")}`, { token: d.admin });
    expect(res.status, res.text).toBe(200);
    expect(usernames(res.body)).toEqual(['fred']);
    expect(warn).not.toHaveBeenCalled();
    warn.mockRestore();
  });

  it('pages through the collection by a property, cursor and all', async () => {
    const first = await d.t.request('GET', `${APP}/users?${ql('select * order by username')}&limit=2`, { token: d.admin });
    expect(first.status, first.text).toBe(200);
    const second = await d.t.request('GET', `${APP}/users?${ql('select * order by username')}&limit=2&cursor=${first.body.cursor}`, {
      token: d.admin,
    });
    expect(second.status, second.text).toBe(200);
    const seen = [...usernames(first.body), ...usernames(second.body)].sort();
    expect(seen.filter((name) => name !== 'deep')).toEqual(['barney', 'fred', 'wilma']);
  });

  it('updates the entities a PUT with ql matches and leaves it untouched', async () => {
    const before = await stored(deepUuid);
    const res = await d.t.request('PUT', `${APP}/users?${ql("select * where username='fred'")}`, { json: { city: 'Bedrock' }, token: d.admin });
    expect(res.status, res.text).toBe(200);
    expect(res.body.entities.map((user: { username: string; city: string }) => [user.username, user.city])).toEqual([['fred', 'Bedrock']]);
    const fred = await d.t.request('GET', `${APP}/users/fred`, { token: d.admin });
    expect(fred.body.entities[0].city).toBe('Bedrock');
    expect(await stored(deepUuid)).toBe(before);
  });

  it('deletes the entities a DELETE with ql matches and leaves it untouched', async () => {
    const before = await stored(deepUuid);
    const res = await d.t.request('DELETE', `${APP}/users?${ql("select * where username='wilma'")}`, { token: d.admin });
    expect(res.status, res.text).toBe(200);
    expect(usernames(res.body)).toEqual(['wilma']);
    expect((await d.t.request('GET', `${APP}/users/wilma`, { token: d.admin })).status).toBe(404);
    expect(await stored(deepUuid)).toBe(before);
  });

  it('is answered whole by uuid: JavaScript reads what SQLite will not', async () => {
    const res = await d.t.request('GET', `${APP}/users/${deepUuid}`, { token: d.admin });
    expect(res.status, res.text).toBe(200);
    expect(res.body.entities[0]).toMatchObject({ uuid: deepUuid, username: 'deep' });
    expect(JSON.stringify(res.body.entities[0].x)).toBe(JSON.stringify(nested(1100)));
  });

  it('does not stop the other users signing in by email', async () => {
    const created = await d.t.request('POST', `${APP}/users`, {
      json: { username: 'betty', email: 'betty@example.com', password: 'betty-password' },
      token: d.admin,
    });
    expect(created.status, created.text).toBe(200);
    const res = await d.t.request('POST', `${APP}/token`, { json: { grant_type: 'password', username: 'Betty@Example.com', password: 'betty-password' } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.user.username).toBe('betty');
  });
});

describe('a device nested past 1,000 levels', () => {
  it('does not stop a notification to every device reaching the others', async () => {
    const notifier = await d.t.request('POST', `${APP}/notifiers`, { json: { name: 'dev', provider: 'noop', environment: 'development' }, token: d.admin });
    expect(notifier.status, notifier.text).toBe(200);
    const device = await d.t.request('POST', `${APP}/devices`, { json: { name: 'phone', 'dev.notifier.id': 'token-1' }, token: d.admin });
    expect(device.status, device.text).toBe(200);
    await insertEntity(d.t.deps.db, {
      appUuid,
      collection: 'devices',
      type: 'device',
      collectionStored: true,
      name: 'deep-phone',
      properties: { 'dev.notifier.id': 'token-2', x: nested(1100) },
      now: Date.now(),
    });
    const sent = await d.t.request('POST', `${APP}/devices/*/notifications`, { json: { payloads: { dev: 'hello' } }, token: d.admin });
    expect(sent.status, sent.text).toBe(200);
    // PostgreSQL reads the deep device too.
    expect(sent.body.entities[0].expectedCount).toBe(dialectOf(d.t.deps.db) === 'sqlite' ? 1 : 2);
  });

  it('does not stop a notification to the devices a query matches reaching the readable ones', async () => {
    // The notifier, the readable device and the deep one of the test before.
    const sent = await d.t.request('POST', `${APP}/devices?${ql("select * where name = 'phone' or name = 'deep-phone'")}`, {
      json: { payloads: { dev: 'hello' } },
      token: d.admin,
    });
    expect(sent.status, sent.text).toBe(200);
    expect(sent.body.entities[0].expectedCount).toBe(dialectOf(d.t.deps.db) === 'sqlite' ? 1 : 2);
  });
});

describe.runIf(process.env.IDP_TEST_DATABASE_URL === undefined)('an entity whose stored text is not JSON (SQLite: jsonb refuses such text)', () => {
  let brokenUuid: string;
  beforeAll(async () => {
    const created = await d.t.request('POST', `${APP}/users`, { json: { username: 'broken' }, token: d.admin });
    brokenUuid = created.body.entities[0].uuid;
    await clientOf(d.t.deps.db).run('update entities set properties = ? where uuid = ?', ['{"username": "broken", "x": [1,', brokenUuid]);
  });

  it('answers a query over its collection with the others', async () => {
    // `not` has no index to find its candidates (docs/api.md#explain): the query reads every user.
    const res = await d.t.request('GET', `${APP}/users?${ql("select * where not (not username contains 'fred')")}`, { token: d.admin });
    expect(res.status, res.text).toBe(200);
    expect(usernames(res.body)).toEqual(['fred']);
  });

  it('updates and deletes what a query matches and leaves its text as it was', async () => {
    const raw = async () => (await clientOf(d.t.deps.db).query<{ properties: string }>('select properties from entities where uuid = ?', [brokenUuid]))[0];
    const put = await d.t.request('PUT', `${APP}/users?${ql("select * where username='barney'")}`, { json: { city: 'Bedrock' }, token: d.admin });
    expect(put.status, put.text).toBe(200);
    expect(usernames(put.body)).toEqual(['barney']);
    const removed = await d.t.request('DELETE', `${APP}/users?${ql("select * where username='barney'")}`, { token: d.admin });
    expect(removed.status, removed.text).toBe(200);
    expect(usernames(removed.body)).toEqual(['barney']);
    expect(await raw()).toEqual({ properties: '{"username": "broken", "x": [1,' });
  });
});
