/**
 * A collection's settings (docs/api.md#collection-settings): `unindexed` property paths get no
 * rows in the property index — on every write, and at once for the entities already stored when
 * the setting changes — and queries on them read the collection, with the same answers; only the
 * application's administrators read or change them, and a bad body changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectFieldsNamed, expectRefusal, expectRefusedUnchanged } from '../helpers.js';
import { APP, appUser, createDataTest, type DataTest } from './setup.js';

let d: DataTest;
let user: string;

beforeAll(async () => {
  d = await createDataTest();
  const dogs = Array.from({ length: 20 }, (_, i) => ({ name: `dog${i}`, age: i, photo: `blob${i}`, notes: { body: `note${i}`, tag: `t${i % 2}` } }));
  const created = await d.t.request('POST', `${APP}/dogs`, { json: dogs, token: d.admin });
  expect(created.status, created.text).toBe(200);
  user = (await appUser(d, 'fred')).token;
});
afterAll(() => d.t.close());

const SETTINGS = `${APP}/dogs/_settings`;

/** The paths the index holds rows of for the dogs collection, with how many. */
async function indexedPaths(): Promise<Record<string, number>> {
  // SQLite's rows name their path by number (docs/design.md#the-property-index): its view has the names.
  const table = d.t.deps.db.$client.dialect === 'sqlite' ? 'entity_values_named' : 'entity_values';
  const rows = await d.t.deps.db.$client.query<{ path: string; rows: number }>(
    `SELECT path, count(*) AS rows FROM ${table} WHERE collection = 'dogs' GROUP BY path ORDER BY path`,
  );
  return Object.fromEntries(rows.map((row) => [row.path, Number(row.rows)]));
}

async function explained(ql: string) {
  const res = await d.t.request('GET', `${APP}/dogs?ql=${encodeURIComponent(ql)}&explain=true&limit=100`, { token: d.admin });
  expect(res.status, res.text).toBe(200);
  return { names: (res.body.entities as { name: string }[]).map((entity) => entity.name), explain: res.body.explain };
}

describe('collection settings', () => {
  it('has nothing left out until told', async () => {
    const res = await d.t.request('GET', SETTINGS, { token: d.admin });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toEqual({ unindexed: [] });
    expect(await indexedPaths()).toEqual({ age: 20, name: 20, 'notes.body': 20, 'notes.tag': 20, photo: 20 });
  });

  it('leaves a path and everything below it out of the index, for stored entities and new writes; queries on it read the collection', async () => {
    const put = await d.t.request('PUT', SETTINGS, { json: { unindexed: ['photo', 'notes'] }, token: d.admin });
    expect(put.status, put.text).toBe(200);
    expect(put.body.data).toEqual({ unindexed: ['notes', 'photo'] });
    expect((await d.t.request('GET', SETTINGS, { token: d.admin })).body.data).toEqual({ unindexed: ['notes', 'photo'] });
    expect(await indexedPaths()).toEqual({ age: 20, name: 20 });

    const created = await d.t.request('POST', `${APP}/dogs`, { json: { name: 'rex', age: 3, photo: 'blob3', notes: { body: 'note3' } }, token: d.admin });
    expect(created.status, created.text).toBe(200);
    expect(await indexedPaths()).toEqual({ age: 21, name: 21 });

    const photo = await explained("photo = 'blob3'");
    expect(photo.names.sort()).toEqual(['dog3', 'rex']);
    expect(photo.explain).toMatchObject({ index: null, skipped: "the collection's settings leave photo out of the property index" });
    const note = await explained("notes.body = 'note3*'");
    expect(note.names.sort()).toEqual(['dog3', 'rex']);
    expect(note.explain.index).toBeNull();
    // The other part of an `and` still narrows.
    const both = await explained("photo = 'blob3' and age = 3");
    expect(both.names.sort()).toEqual(['dog3', 'rex']);
    expect(both.explain.skipped).toBeUndefined();
    if (d.t.deps.db.$client.dialect === 'sqlite') expect(both.explain.index).toBe('property age');
    // Neither the condition's path nor the order's: both are named.
    const sorted = await explained("photo = 'blob3' order by notes.body desc");
    expect(sorted.names.sort()).toEqual(['dog3', 'rex']);
    expect(sorted.explain).toMatchObject({ index: null, skipped: "the collection's settings leave photo, notes.body out of the property index" });
  });

  it('indexes a path again once it is taken back', async () => {
    const put = await d.t.request('PUT', SETTINGS, { json: { unindexed: ['notes.tag'] }, token: d.admin });
    expect(put.status, put.text).toBe(200);
    expect(await indexedPaths()).toEqual({ age: 21, name: 21, 'notes.body': 21, photo: 21 });
    const photo = await explained("photo = 'blob3'");
    expect(photo.names.sort()).toEqual(['dog3', 'rex']);
    expect(photo.explain.skipped).toBeUndefined();
    if (d.t.deps.db.$client.dialect === 'sqlite') expect(photo.explain.index).toBe('property photo');
    expect((await d.t.request('PUT', SETTINGS, { json: { unindexed: [] }, token: d.admin })).status).toBe(200);
    expect(await indexedPaths()).toEqual({ age: 21, name: 21, 'notes.body': 21, 'notes.tag': 20, photo: 21 });
  });

  it.each([
    { body: ['photo'], field: 'body' },
    { body: { unindexed: 'photo' }, field: 'unindexed' },
    { body: { unindexed: ['photo', 'a b'] }, field: 'unindexed' },
    { body: { unindexed: ['a.b.c.d'] }, field: 'unindexed' },
    { body: { unindexed: [`${'a'.repeat(64)}.${'b'.repeat(64)}`] }, field: 'unindexed' },
    { body: { unindexed: ['a..b'] }, field: 'unindexed' },
    { body: { unindexed: [''] }, field: 'unindexed' },
    { body: { unindexed: [7] }, field: 'unindexed' },
    { body: { unindexed: [], indexed: ['x'] }, field: 'indexed' },
  ])('refuses $body with 400 naming $field, changing nothing', async ({ body, field }) => {
    const res = await expectRefusedUnchanged(d.t, () => d.t.request('PUT', SETTINGS, { json: body, token: d.admin }), 400, 'illegal_argument');
    expectFieldsNamed(res, field);
  });

  it("is the application's administrators' only, and 404 for a collection that does not exist", async () => {
    await expectRefusedUnchanged(d.t, () => d.t.request('PUT', SETTINGS, { json: { unindexed: ['photo'] }, token: user }), 403, 'forbidden');
    expectRefusal(await d.t.request('GET', SETTINGS, { token: user }), 403, 'forbidden');
    expectRefusal(await d.t.request('GET', `${APP}/unicorns/_settings`, { token: d.admin }), 404, 'entity_not_found');
  });
});
