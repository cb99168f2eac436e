/**
 * `explain=true` (docs/api.md#explain): an administrator sees which index found the entities and
 * how many entity rows the database read; anyone else is refused, and nothing changes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectRefusedUnchanged } from '../helpers.js';
import { dialectOf } from '../../src/db/open.js';
import { APP, appUser, createDataTest, type DataTest } from './setup.js';

let d: DataTest;
let user: string;
let fred: string;
const DOGS = 60;

beforeAll(async () => {
  d = await createDataTest();
  const dogs = Array.from({ length: DOGS }, (_, i) => ({
    name: `dog${i}`,
    age: i % 20,
    color: i % 2 === 0 ? 'Red' : 'blue',
    owner: { city: i < 3 ? 'Oslo' : 'Rome' },
  }));
  const created = await d.t.request('POST', `${APP}/dogs`, { json: dogs, token: d.admin });
  expect(created.status, created.text).toBe(200);
  ({ token: user, uuid: fred } = await appUser(d, 'fred'));
});
afterAll(() => d.t.close());

const postgres = (): boolean => dialectOf(d.t.deps.db) === 'postgres';
/** POSTs `entities` to `collection` a hundred at a time, each POST's entities sharing a `created`. */
async function postByHundreds(collection: string, entities: readonly object[]): Promise<void> {
  for (let from = 0; from < entities.length; from += 100) {
    const posted = await d.t.request('POST', `${APP}/${collection}`, { json: entities.slice(from, from + 100), token: d.admin });
    expect(posted.status, posted.text).toBe(200);
  }
}

/** The first page of `ql` over `collection`, explained: the entities' names and the plan. */
async function readExplained(collection: string, ql: string, limit: number): Promise<{ names: string[]; explain: Record<string, unknown> }> {
  const res = await d.t.request('GET', `${APP}/${collection}?ql=${encodeURIComponent(ql)}&explain=true&limit=${limit}`, { token: d.admin });
  expect(res.status, res.text).toBe(200);
  return { names: res.body.entities.map((entity: { name: string }) => entity.name), explain: res.body.explain };
}

const list = (ql: string, extra = '') => `${APP}/dogs?ql=${encodeURIComponent(ql)}&explain=true&limit=100${extra}`;

describe('explain=true on a collection', () => {
  it.each([
    { ql: 'age = 7', index: 'property age', matches: 3 },
    { ql: "name = 'DOG7'", index: 'property name', matches: 1 },
    { ql: "owner.city = 'oslo'", index: 'property owner.city', matches: 3 },
    { ql: 'age >= 18', index: 'property age', matches: 6 },
    // One band of the index between the bounds: 6 dogs, where either bound alone has 30 or more.
    { ql: 'age >= 10 and age < 12', index: 'property age', matches: 6 },
    { ql: "name > 'dog2' and color = 'red' and name < 'dog3'", index: 'property name', matches: 5 },
    { ql: "name = 'dog1*' and age >= 10", index: 'property name', matches: 10 },
    // The narrower part of an `and`, whichever comes first: 3 of age 7, not 57 in Rome.
    { ql: "owner.city = 'rome' and age = 7", index: 'property age', matches: 3 },
    { ql: "age = 7 or name = 'dog5*'", index: 'property age, property name', matches: 14 },
    { ql: "name contains 'DOG7'", index: 'full-text name', matches: 1 },
    { ql: "name contains 'dog1*'", index: 'full-text name', matches: 11 },
    { ql: "name contains 'dog7' or age = 8", index: 'full-text name, property age', matches: 4 },
    // A word no dog has, and a term without words, which matches nothing: no candidates, not a dog read.
    { ql: "name contains 'cat'", index: 'full-text name', matches: 0 },
    { ql: "name contains ''", index: 'full-text name', matches: 0 },
    { ql: "name contains '-!' or age = 8", index: 'full-text name, property age', matches: 3 },
  ])('names the index for $ql for $ql and reads only its candidates', async ({ ql, index, matches }) => {
    const res = await d.t.request('GET', list(ql), { token: d.admin });
    expect(res.status, res.text).toBe(200);
    expect(res.body.entities).toHaveLength(matches);
    expect(res.body.explain.rows_read).toBeGreaterThanOrEqual(matches);
    // PostgreSQL's planner weighs the index against reading the table by its cost, and the
    // table of a test is a few pages: it may read it all, and says so.
    if (postgres() && res.body.explain.index === null) return;
    expect(res.body.explain.index).toBe(index);
    // `name = 'dog1*' and age >= 10` reads the 11 names starting dog1, not all 60 dogs.
    expect(res.body.explain.rows_read).toBeLessThanOrEqual(14);
  });

  it("finds an entity by uuid from the entities' own key, however the uuid is written, alone or combined", async () => {
    const found = await d.t.request('GET', `${APP}/dogs/dog7`, { token: d.admin });
    const other = await d.t.request('GET', `${APP}/dogs/dog8`, { token: d.admin });
    const [seven, eight] = [found.body.entities[0].uuid as string, other.body.entities[0].uuid as string];
    for (const [ql, names] of [
      [`uuid = ${seven.toUpperCase()}`, ['dog7']],
      [`uuid = '${seven}'`, ['dog7']],
      [`uuid = ${seven} or uuid = '${eight.toUpperCase()}'`, ['dog8', 'dog7']],
      [`uuid = ${seven} and age = 8`, []],
      [`uuid = ${seven} and age = 7`, ['dog7']],
      [`age = 7 and uuid = ${seven}`, ['dog7']],
      // Another collection's entity is no candidate of this one.
      [`uuid = ${fred}`, []],
      ["uuid = 'dog7'", []],
      // No uuid holds a NUL (and PostgreSQL is sent none).
      ["uuid = 'x\u0000y'", []],
    ] as const) {
      const res = await d.t.request('GET', list(ql), { token: d.admin });
      expect(res.status, res.text).toBe(200);
      expect(
        res.body.entities.map((entity: { name: string }) => entity.name),
        ql,
      ).toEqual(names);
      if (postgres() && res.body.explain.index === null) continue;
      expect(res.body.explain.index, ql).toBe('uuid');
      expect(res.body.explain.rows_read, ql).toBeLessThanOrEqual(2);
    }
  });

  it("finds entities by an array's elements from the property index, each condition by an element of its own", async () => {
    // Toy i: tags [tI%20, Squeaky (every third) or quiet, 'SQUEAKY' again], sizes [i%10, 100+i].
    const toys = Array.from({ length: 60 }, (_, i) => ({
      name: `toy${i}`,
      tags: [`t${i % 20}`, i % 3 === 0 ? 'Squeaky' : 'quiet', ...(i % 3 === 0 ? ['SQUEAKY'] : [])],
      sizes: [i % 10, 100 + i],
    }));
    await postByHundreds('toys', toys);
    const names = (test: (toy: (typeof toys)[number], i: number) => boolean): string[] => toys.flatMap((toy, i) => (test(toy, i) ? [toy.name] : [])).reverse();
    // Each query, its matches, and the most entity rows it may read (its candidates).
    for (const [ql, matches, most] of [
      ["tags = 'T7'", names((_, i) => i % 20 === 7), 3],
      ["tags = 'squ*'", names((_, i) => i % 3 === 0), 20],
      // The three of t7, of which one squeaks.
      ["tags = 't7' and tags = 'squeaky'", ['toy27'], 3],
      ['sizes > 158', ['toy59'], 1],
      // Each bound by another element: 100+i above 155, i%10 below 7; only the elements passing both are read.
      ['sizes > 155 and sizes < 7', ['toy56'], 1],
      ['sizes > 157 and sizes < 1', [], 0],
      ['not sizes < 159', [], 60],
    ] as const) {
      const read = await readExplained('toys', ql, 100);
      expect(read.names, ql).toEqual(matches);
      if (ql.startsWith('not')) continue;
      expect(read.explain.index, ql).toBe(ql.startsWith('tags') ? 'property tags' : 'property sizes');
      // PostgreSQL's planner may read the test's few pages of the table instead (as above).
      if (postgres() && read.explain.rows_read === 60) continue;
      expect(read.explain.rows_read, ql).toBeLessThanOrEqual(most);
    }
    // In a property's order an array sorts last, by uuid: after every toy whose `sizes` is a number.
    await postByHundreds('toys', [{ name: 'plain', sizes: 5 }]);
    expect((await readExplained('toys', 'order by sizes desc', 2)).names).toEqual(['plain', expect.stringMatching(/^toy/)]);
  });

  it("finds entities by created or modified from those columns' own indexes, in created order and in a property's", async () => {
    const before = await d.t.request('GET', `${APP}/dogs/dog5`, { token: d.admin });
    const { created, modified } = before.body.entities[0] as { created: number; modified: number };
    await new Promise((resolve) => setTimeout(resolve, 5));
    const changed = await d.t.request('PUT', `${APP}/dogs/dog5`, { json: { seen: true }, token: d.admin });
    expect(changed.status, changed.text).toBe(200);
    // One dog changed since the others were made: found from the modified index, not by walking the name index's 60.
    for (const ql of [`modified > ${modified} order by name`, `modified > ${modified}`, `modified >= ${modified + 1} and modified < ${Date.now() + 60_000}`]) {
      const read = await readExplained('dogs', ql, 10);
      expect(read.names, ql).toEqual(['dog5']);
      // PostgreSQL's planner may read the test's few pages of the table instead (as above).
      if (postgres() && read.explain.index === null) continue;
      expect(read.explain, ql).toEqual({ index: 'modified', rows_read: 1 });
    }
    const all = await readExplained('dogs', `created = ${created} order by name desc`, 3);
    expect(all.names).toEqual(['dog9', 'dog8', 'dog7']);
    // In created order the created index is walked from the bound: a page and one more, not the 60 candidates.
    const newest = await readExplained('dogs', `created <= ${created}`, 10);
    expect(newest.names).toHaveLength(10);
    expect(newest.explain.index).toBeNull();
    if (!postgres()) expect(newest.explain.rows_read).toBe(11);
  });

  it.each(["name contains '*'", "type contains 'dog'", 'not age = 7', ''])('reads the collection for %j, which the index cannot answer', async (ql) => {
    const res = await d.t.request('GET', list(ql), { token: d.admin });
    expect(res.status, res.text).toBe(200);
    expect(res.body.explain.index).toBeNull();
    // PostgreSQL may read the whole table, other collections' rows included.
    if (postgres()) expect(res.body.explain.rows_read).toBeGreaterThanOrEqual(DOGS);
    else expect(res.body.explain.rows_read).toBe(DOGS);
  });

  it('reads a collection in created order when the index has a thousand candidates or more, as that stops after a page', async () => {
    const cats = Array.from({ length: 1000 }, (_, i) => ({ name: `cat${i}`, color: 'red', born: i }));
    const posted = await d.t.request('POST', `${APP}/cats`, { json: cats, token: d.admin });
    expect(posted.status, posted.text).toBe(200);
    const broad = await d.t.request('GET', `${APP}/cats?ql=${encodeURIComponent("color = 'red'")}&explain=true&limit=10`, { token: d.admin });
    expect(broad.status, broad.text).toBe(200);
    expect(broad.body.entities).toHaveLength(10);
    expect(broad.body.explain.index).toBeNull();
    // One POST: the thousand share their `created`, in uuid order. The collection's index holds
    // both: a page and the one saying there is more, not the thousand read and sorted.
    expect(broad.body.entities.map((cat: { name: string }) => cat.name)).toEqual(Array.from({ length: 10 }, (_, i) => `cat${999 - i}`));
    if (!postgres()) expect(broad.body.explain.rows_read).toBe(11);
    const newest = await d.t.request('GET', `${APP}/cats?explain=true&limit=10`, { token: d.admin });
    expect(newest.body.entities.map((cat: { name: string }) => cat.name)).toEqual(Array.from({ length: 10 }, (_, i) => `cat${999 - i}`));
    if (!postgres()) expect(newest.body.explain).toEqual({ index: null, rows_read: 11 });
    const narrow = await d.t.request('GET', `${APP}/cats?ql=${encodeURIComponent("color = 'red' and born >= 995")}&explain=true`, { token: d.admin });
    expect(narrow.body.entities).toHaveLength(5);
    if (!postgres()) expect(narrow.body.explain).toEqual({ index: 'property born', rows_read: 5 });
  });

  it('reads the candidates of contains in created order a page at a time, not all of them, and keeps to updates and deletes', async () => {
    // Every other owl sings: 150 candidates, fewer than the thousand from which the collection is
    // read newest first. One POST: one `created`, the uuids in the array's order.
    const owls = Array.from({ length: 300 }, (_, i) => ({ name: `owl${i}`, about: i % 2 === 0 ? 'sings at dawn' : 'quiet' }));
    expect((await d.t.request('POST', `${APP}/owls`, { json: owls, token: d.admin })).status).toBe(200);
    const read = async (ql: string, cursor?: string) => {
      const res = await d.t.request('GET', `${APP}/owls?ql=${encodeURIComponent(ql)}&explain=true&limit=5${cursor === undefined ? '' : `&cursor=${cursor}`}`, {
        token: d.admin,
      });
      expect(res.status, res.text).toBe(200);
      return { names: res.body.entities.map((owl: { name: string }) => owl.name) as string[], explain: res.body.explain, cursor: res.body.cursor as string };
    };
    const newest = await read("about contains 'sings'");
    expect(newest.names).toEqual(['owl298', 'owl296', 'owl294', 'owl292', 'owl290']);
    // A page and the entity that says there is another, not the 150 candidates.
    if (!postgres()) expect(newest.explain).toEqual({ index: 'full-text about', rows_read: 6 });
    const next = await read("about contains 'sings'", newest.cursor);
    expect(next.names).toEqual(['owl288', 'owl286', 'owl284', 'owl282', 'owl280']);
    if (!postgres()) expect(next.explain).toEqual({ index: 'full-text about', rows_read: 6 });
    const oldest = await read("about contains 'sings' order by created asc");
    expect(oldest.names).toEqual(['owl0', 'owl2', 'owl4', 'owl6', 'owl8']);
    if (!postgres()) expect(oldest.explain).toEqual({ index: 'full-text about', rows_read: 6 });
    // An owl stops singing, one leaves, one starts: each keeps its `created`, so its place.
    expect((await d.t.request('PUT', `${APP}/owls/owl298`, { json: { about: 'quiet now' }, token: d.admin })).status).toBe(200);
    expect((await d.t.request('DELETE', `${APP}/owls/owl296`, { token: d.admin })).status).toBe(200);
    expect((await d.t.request('PUT', `${APP}/owls/owl1`, { json: { about: 'sings too' }, token: d.admin })).status).toBe(200);
    expect((await read("about contains 'sings'")).names).toEqual(['owl294', 'owl292', 'owl290', 'owl288', 'owl286']);
    expect((await read("about contains 'sings' order by created asc")).names).toEqual(['owl0', 'owl1', 'owl2', 'owl4', 'owl6']);
    // Ordered otherwise, the candidates are read and sorted as before.
    const byName = await read("about contains 'sings' order by name desc");
    expect(byName.names).toEqual(['owl98', 'owl96', 'owl94', 'owl92', 'owl90']);
    if (!postgres()) expect(byName.explain).toEqual({ index: 'full-text about', rows_read: 149 });
  });

  it('names the location index for a within on location, and reads only the places inside its box', async () => {
    // A grid of 100 places a tenth of a degree apart around Oslo, and one at the north pole.
    const places = Array.from({ length: 100 }, (_, i) => ({
      name: `place${i}`,
      location: { latitude: 59 + Math.floor(i / 10) / 10, longitude: 10 + (i % 10) / 10 },
    }));
    places.push({ name: 'pole', location: { latitude: 90, longitude: 0 } });
    expect((await d.t.request('POST', `${APP}/places`, { json: places, token: d.admin })).status).toBe(200);
    const near = async (ql: string) => {
      const res = await d.t.request('GET', `${APP}/places?ql=${encodeURIComponent(ql)}&explain=true&limit=1000`, { token: d.admin });
      expect(res.status, res.text).toBe(200);
      return { names: res.body.entities.map((place: { name: string }) => place.name).sort(), explain: res.body.explain };
    };
    const oslo = await near('location within 1000 of 59.5, 10.5');
    expect(oslo.names).toEqual(['place55']);
    const pole = await near('location within 1000 of 89.999, 123');
    expect(pole.names).toEqual(['pole']);
    // PostgreSQL reads a collection this small whole, rather than look up the candidates (below for a larger one).
    for (const { explain } of [oslo, pole]) {
      if (postgres() && explain.index === null) continue;
      expect(explain).toEqual({ index: 'spatial location', rows_read: 1 });
    }
    // Farther than any two points are apart: no box narrows it, so the collection is read.
    const all = await near('location within 21000000 of 0, 0');
    expect(all.names).toHaveLength(places.length);
    expect(all.explain.index).toBeNull();
  });

  it('reads the few candidates of a within, and of a contains in created order, by uuid on either database; many, the collection newest first', async () => {
    // 3,000 places on a grid 0.01° apart (about 1.1 km north to south, 0.7 km east to west), every
    // 100th with a rare word: enough entities that PostgreSQL's planner looks the candidates up
    // rather than read the collection. Its planner has no statistics for the location index's box
    // overlap, so the candidates are counted first, as on SQLite (docs/design.md#the-location-index).
    const places = Array.from({ length: 3000 }, (_, i) => ({
      name: `spot${i}`,
      about: i % 100 === 0 ? 'a rare view' : 'a common view',
      location: { latitude: 50 + Math.floor(i / 60) / 100, longitude: 10 + (i % 60) / 100 },
    }));
    await postByHundreds('spots', places);
    const read = (ql: string) => readExplained('spots', ql, 5);
    // Spot 1518 (50.25, 10.18) and its neighbours east and west: 3 candidates in the box, 3 matches.
    const near = await read('location within 1000 of 50.25, 10.18 order by name asc');
    expect(near.names).toEqual(['spot1517', 'spot1518', 'spot1519']);
    expect(near.explain).toEqual({ index: 'spatial location', rows_read: 3 });
    // 30 candidates, ordered by `created` in the word index: the newest page and the one saying there is more.
    const rare = await read("about contains 'rare'");
    expect(rare.names).toEqual(['spot2900', 'spot2800', 'spot2700', 'spot2600', 'spot2500']);
    expect(rare.explain).toEqual({ index: 'full-text about', rows_read: 6 });
    // About 2,100 candidates, a thousand or more: the collection, newest first (on PostgreSQL as its planner sees fit).
    const wide = await read('location within 20000 of 50.25, 10.3');
    expect(wide.names).toEqual(['spot2559', 'spot2558', 'spot2557', 'spot2556', 'spot2555']);
    expect(wide.explain.index).toBeNull();
    if (!postgres()) expect(wide.explain.rows_read).toBeLessThan(1000);
    // The newest page of the collection reads a page, though its last hundred share a `created`.
    const newest = await read('');
    expect(newest.names).toEqual(['spot2999', 'spot2998', 'spot2997', 'spot2996', 'spot2995']);
    expect(newest.explain.index).toBeNull();
    if (!postgres()) expect(newest.explain.rows_read).toBe(6);
    else expect(newest.explain.rows_read).toBeLessThan(100);
  });

  it('reads the few candidates of a range, prefix or equality by uuid on either database, and many in created order, though PostgreSQL misjudges their number', async () => {
    // 3,000 readings: `level` 0–2,999, and `size` up to a million beside it. PostgreSQL keeps one
    // set of statistics for the values of every path, so it takes `level >= 2995` for a good
    // part of the collection (most sizes are that large) and would walk the collection newest
    // first, reading all of it; the candidates are counted first (docs/design.md#the-property-index, "The plan").
    const readings = Array.from({ length: 3000 }, (_, i) => ({
      name: `r${i}`,
      level: i,
      size: (i * 7919) % 1_000_003,
      code: `c${i}`,
      shade: i % 3 === 0 ? 'dark' : 'light',
    }));
    await postByHundreds('readings', readings);
    const read = (ql: string) => readExplained('readings', ql, 10);
    const high = await read('level >= 2995');
    expect(high.names).toEqual(['r2999', 'r2998', 'r2997', 'r2996', 'r2995']);
    expect(high.explain).toEqual({ index: 'property level', rows_read: 5 });
    const coded = await read("code = 'c299*'");
    expect(coded.names).toEqual(['r2999', 'r2998', 'r2997', 'r2996', 'r2995', 'r2994', 'r2993', 'r2992', 'r2991', 'r2990']);
    expect(coded.explain).toEqual({ index: 'property code', rows_read: 11 });
    // 2,990 candidates: the collection newest first, a page and the one saying there is more.
    const wide = await read('level >= 10');
    expect(wide.names).toEqual(Array.from({ length: 10 }, (_, i) => `r${2999 - i}`));
    expect(wide.explain.index).toBeNull();
    if (!postgres()) expect(wide.explain.rows_read).toBe(11);
    else expect(wide.explain.rows_read).toBeLessThan(200);
    // An equality of a thousand: the collection newest first on either database, though
    // PostgreSQL takes them for fewer and would read and sort the thousand.
    const dark = await read("shade = 'dark'");
    expect(dark.names).toEqual(Array.from({ length: 10 }, (_, i) => `r${2997 - 3 * i}`));
    expect(dark.explain.index).toBeNull();
    expect(dark.explain.rows_read).toBeLessThanOrEqual(40);
    // And of a few, by uuid from its candidates.
    const seven = await read("shade = 'dark' and level = 2997");
    expect(seven.names).toEqual(['r2997']);
    expect(seven.explain).toEqual({ index: 'property level', rows_read: 1 });
  });

  it('reads a collection ordered by modified a page at a time, an entity just changed first', async () => {
    // One at a time, a few milliseconds apart: each its own `modified` (ties would be read in uuid order too).
    const pause = () => new Promise((resolve) => setTimeout(resolve, 3));
    for (let i = 0; i < 12; i++) {
      const posted = await d.t.request('POST', `${APP}/hens`, { json: { name: `hen${i}` }, token: d.admin });
      expect(posted.status, posted.text).toBe(200);
      await pause();
    }
    const changed = await d.t.request('PUT', `${APP}/hens/hen3`, { json: { color: 'grey' }, token: d.admin });
    expect(changed.status, changed.text).toBe(200);
    const res = await d.t.request('GET', `${APP}/hens?ql=${encodeURIComponent('order by modified desc')}&explain=true&limit=5`, { token: d.admin });
    expect(res.status, res.text).toBe(200);
    expect(res.body.entities.map((hen: { name: string }) => hen.name)).toEqual(['hen3', 'hen11', 'hen10', 'hen9', 'hen8']);
    // Through entities_app_collection_modified: a page and the row saying there is another, not the 12 sorted.
    if (!postgres()) expect(res.body.explain.rows_read).toBe(6);
    else expect(res.body.explain.rows_read).toBeGreaterThanOrEqual(5);
  });

  it('reads a collection ordered by one property from the index a page at a time, in both directions, with a cursor, and says so', async () => {
    // 2,000 birds: `rank` a number (in pairs of ties), a string or a boolean, and missing from every tenth.
    const birds = Array.from({ length: 2000 }, (_, i) => ({
      name: `bird${i}`,
      color: i % 2 === 0 ? 'red' : 'blue',
      ...(i % 10 !== 9 && { rank: i % 3 === 0 ? Math.floor(i / 6) : i % 3 === 1 ? `R${Math.floor(i / 7)}` : i % 4 === 0 }),
    }));
    expect((await d.t.request('POST', `${APP}/birds`, { json: birds, token: d.admin })).status).toBe(200);
    const read = async (ql: string, cursor?: string) => {
      const res = await d.t.request(
        'GET',
        `${APP}/birds?ql=${encodeURIComponent(ql)}&explain=true&limit=10${cursor === undefined ? '' : `&cursor=${cursor}`}`,
        {
          token: d.admin,
        },
      );
      expect(res.status, res.text).toBe(200);
      return { names: res.body.entities.map((bird: { name: string }) => bird.name) as string[], explain: res.body.explain, cursor: res.body.cursor as string };
    };
    const queries = ['order by rank asc', 'order by rank desc', "color = 'red' order by rank desc", "name = 'bird1*' order by rank"];
    const walked = new Map<string, string[][]>();
    for (const ql of queries) {
      const first = await read(ql);
      expect(first.explain).toMatchObject({ index: 'property rank', order: 'property rank' });
      // A page and the row that says there is another, not the collection; an unindexed condition tests each row the walk reads.
      if (!postgres()) expect(first.explain.rows_read).toBeLessThanOrEqual(ql.includes('color') ? 30 : ql.includes('name') ? 200 : 11);
      const second = await read(ql, first.cursor);
      expect(second.explain.order).toBe('property rank');
      walked.set(ql, [first.names, second.names]);
    }
    expect(walked.get('order by rank desc')![0][0]).toBe('bird1998');
    // Left out of the index by the collection's settings: sorted as before, the same pages, and said why.
    expect((await d.t.request('PUT', `${APP}/birds/_settings`, { json: { unindexed: ['rank'] }, token: d.admin })).status).toBe(200);
    for (const ql of queries) {
      const first = await read(ql);
      expect(first.explain.skipped).toBe("the collection's settings leave rank out of the property index");
      expect(first.explain).not.toHaveProperty('order');
      const second = await read(ql, first.cursor);
      expect([first.names, second.names]).toEqual(walked.get(ql));
    }
  });

  it('reads the first page of an order of two keys among a thousand sharing the first by walking the second, not by sorting the thousand', async () => {
    // Two teams of 1,000: a walk of `score` among one team passes about two rows per entity of the page.
    const players = Array.from({ length: 2000 }, (_, i) => ({ name: `player${i}`, team: i % 2, score: (i * 7919) % 10_007 }));
    for (const part of [players.slice(0, 1000), players.slice(1000)]) {
      expect((await d.t.request('POST', `${APP}/players`, { json: part, token: d.admin })).status).toBe(200);
    }
    const expected = players
      .filter((player) => player.team === 0)
      .sort((a, b) => a.score - b.score)
      .slice(0, 10)
      .map((player) => player.name);
    const res = await d.t.request('GET', `${APP}/players?ql=${encodeURIComponent('order by team, score')}&explain=true&limit=10`, { token: d.admin });
    expect(res.status, res.text).toBe(200);
    expect(res.body.entities.map((player: { name: string }) => player.name)).toEqual(expected);
    expect(res.body.explain).toMatchObject({ index: 'property team', order: 'property team' });
    // Sorted, the thousand of team 0 would be read.
    expect(res.body.explain.rows_read).toBeLessThan(100);
  });

  it('is absent without the parameter, and with explain=false', async () => {
    for (const suffix of ['', '&explain=false']) {
      const res = await d.t.request('GET', `${APP}/dogs?ql=${encodeURIComponent('age = 7')}${suffix}`, { token: d.admin });
      expect(res.status, res.text).toBe(200);
      expect(res.body).not.toHaveProperty('explain');
    }
  });

  it('explains a PUT by query and changes what it matches', async () => {
    const res = await d.t.request('PUT', `${APP}/dogs?ql=${encodeURIComponent("name = 'dog3'")}&explain=true`, { json: { good: true }, token: d.admin });
    expect(res.status, res.text).toBe(200);
    expect(res.body.entities.map((dog: { name: string; good: boolean }) => [dog.name, dog.good])).toEqual([['dog3', true]]);
    if (!postgres()) expect(res.body.explain).toEqual({ index: 'property name', rows_read: 1 });
    const after = await d.t.request('GET', list('good = true'), { token: d.admin });
    expect(after.body.entities.map((dog: { name: string }) => dog.name)).toEqual(['dog3']);
    if (!postgres()) expect(after.body.explain).toEqual({ index: 'property good', rows_read: 1 });
    expect(after.body.explain.rows_read).toBeGreaterThanOrEqual(1);
  });

  it("refuses an app user: the plan is the application's administrators' to see", async () => {
    await expectRefusedUnchanged(d.t, () => d.t.request('GET', list('age = 7'), { token: user }), 403, 'forbidden');
    await expectRefusedUnchanged(
      d.t,
      () => d.t.request('PUT', `${APP}/dogs?ql=${encodeURIComponent("name = 'dog4'")}&explain=true`, { json: { good: true }, token: user }),
      403,
      'forbidden',
    );
  });

  it('refuses a value other than true or false', async () => {
    const res = await expectRefusedUnchanged(d.t, () => d.t.request('GET', `${APP}/dogs?explain=yes`, { token: d.admin }), 400, 'illegal_argument');
    expect(res.body.fields).toEqual({ explain: 'not true or false' });
  });
});
