/**
 * Keyset paging: walking a query page by page with cursors gives the unpaged result, and stays
 * correct while entities are added and removed between pages. A cursor that is not one the
 * server made for the query's order is refused, at the decoder and at the data API.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { compileQuery } from '../../src/data/query/compile.js';
import { decodeCursor, encodeCursor } from '../../src/data/query/cursor.js';
import { compareEntities, matchesQuery } from '../../src/data/query/evaluate.js';
import { sortKeys, sortValuesOf } from '../../src/data/query/order.js';
import { parseQuery } from '../../src/data/query/parse.js';
import type { Query } from '../../src/data/query/ast.js';
import type { EntityRecord } from '../../src/data/query/properties.js';
import { isAppError } from '../../src/errors.js';
import { expectRefusal, type TestResponse } from '../helpers.js';
import { APP, createDataTest, type DataTest } from '../data/setup.js';
import { UUID_POOL, entitiesArbitrary, entityArbitrary, queryArbitrary, type GeneratedEntity } from './arbitraries.js';
import { openQueryDatabase, type QueryDatabase } from './database.js';

let database: QueryDatabase;
// Hundreds of generated cases, each a round of statements on the database (PostgreSQL included).
const DATABASE_PROPERTY_TIMEOUT = 300_000;
beforeAll(async () => {
  database = await openQueryDatabase();
});
afterAll(async () => database.close());

/** What happens before fetching the next page. */
type Change = { kind: 'none' } | { kind: 'insert'; entity: GeneratedEntity } | { kind: 'delete'; pick: number };

// Inserted entities take uuids outside the pool the initial entities use, so they are new.
const freshUuids = Array.from({ length: 64 }, (_, i) => `eeeeeeee-${i.toString(16).padStart(4, '0')}-4000-8000-000000000000`);
const changeArbitrary: fc.Arbitrary<Change> = fc.oneof(
  fc.constant<Change>({ kind: 'none' }),
  entityArbitrary(fc.constantFrom(...freshUuids)).map((entity): Change => ({ kind: 'insert', entity })),
  fc.nat().map((pick): Change => ({ kind: 'delete', pick })),
);

interface Walk {
  readonly pages: EntityRecord[][];
  readonly deleted: ReadonlySet<string>;
}

/** Fetches pages of `limits[i]` entities (limit + 1 rows, as a route does) until the last one. */
async function walk(query: Query, limits: readonly number[], changes: readonly Change[] = []): Promise<Walk> {
  const pages: EntityRecord[][] = [];
  const deleted = new Set<string>();
  const inserted = new Set<string>();
  let cursor: string | undefined;
  // Each page but the last holds at least one entity, so more pages than entities ever stored
  // means a cursor did not advance: fail instead of looping forever.
  const maxPages = (await database.select({ select: null, where: null, orderBy: [] })).length + changes.length + 2;
  for (let page = 0; ; page++) {
    if (page > maxPages) throw new Error(`paging did not end after ${maxPages} pages: a cursor did not advance (cursor ${cursor})`);
    const limit = limits[page % limits.length];
    const rows = await database.select(query, { cursor, limit: limit + 1 });
    pages.push(rows.slice(0, limit));
    if (rows.length <= limit) return { pages, deleted };
    cursor = encodeCursor(query, rows[limit - 1]);
    const change = changes[page] ?? { kind: 'none' };
    if (change.kind === 'insert' && !inserted.has(change.entity.record.uuid)) {
      inserted.add(change.entity.record.uuid);
      await database.insertEntity(change.entity);
    } else if (change.kind === 'delete') {
      const all = await database.select({ select: null, where: null, orderBy: [] });
      const victim = all[change.pick % Math.max(all.length, 1)];
      if (victim !== undefined) {
        deleted.add(victim.uuid);
        await database.deleteEntity(victim.uuid);
      }
    }
  }
}

const limitsArbitrary = fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 5 });

describe('cursor paging', () => {
  it(
    'walks the same sequence as one unpaged query',
    async () => {
      await fc.assert(
        fc.asyncProperty(entitiesArbitrary, queryArbitrary, limitsArbitrary, async (entities, query, limits) => {
          await database.replaceEntities(entities);
          const expected = (await database.select(query)).map((row) => row.uuid);
          const { pages } = await walk(query, limits);
          expect(pages.flat().map((row) => row.uuid)).toEqual(expected);
          // Every page but the last is full, and a full last page is followed by no cursor.
          pages.slice(0, -1).forEach((page, i) => expect(page.length).toBe(limits[i % limits.length]));
        }),
        { numRuns: 300 },
      );
    },
    DATABASE_PROPERTY_TIMEOUT,
  );

  it('pages past integers beyond 2^53, which SQLite keeps exact and JavaScript rounds', async () => {
    // fast-check's counterexample: the cursor carried the rounded double, SQLite compared it with the
    // exact integer, and the first row was "after" its own cursor forever.
    const big = { n: { x: -71020672200464910 } };
    await database.replaceEntities([
      { record: { uuid: '9e3779b1-0000-4abc-8def-000000000000', type: 'dog', created: 0, modified: 0, ...big }, properties: big },
      { record: { uuid: 'e3779b10-d001-4abc-8def-00000000000f', type: 'dog', created: 0, modified: 0 }, properties: {} },
    ]);
    const query = parseQuery('order by n.x asc');
    expect((await walk(query, [1])).pages.flat().map((row) => row.uuid)).toEqual([
      '9e3779b1-0000-4abc-8def-000000000000',
      'e3779b10-d001-4abc-8def-00000000000f',
    ]);
    expect((await database.select(parseQuery('where n.x = -71020672200464910'))).map((row) => row.uuid)).toEqual(['9e3779b1-0000-4abc-8def-000000000000']);
  });

  it(
    'never repeats or skips an entity while others are inserted and deleted between pages',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          entitiesArbitrary,
          queryArbitrary,
          limitsArbitrary,
          fc.array(changeArbitrary, { maxLength: 12 }),
          async (entities, query, limits, changes) => {
            await database.replaceEntities(entities);
            const { pages, deleted } = await walk(query, limits, changes);
            const seen = pages.flat();
            const seenUuids = seen.map((row) => row.uuid);
            expect(new Set(seenUuids).size).toBe(seenUuids.length);
            // Strictly ascending in the query's order: no repeats, no going back.
            const compare = compareEntities(query);
            seen.slice(1).forEach((row, i) => expect(compare(seen[i], row)).toBeLessThan(0));
            // Every original match that was never deleted was returned.
            const survivors = entities
              .map((entity) => entity.record)
              .filter((record) => matchesQuery(query, record) && !deleted.has(record.uuid))
              .map((record) => record.uuid);
            expect(seenUuids).toEqual(expect.arrayContaining(survivors));
            // Everything returned matches the query.
            seen.forEach((row) => expect(matchesQuery(query, row)).toBe(true));
          },
        ),
        { numRuns: 300 },
      );
    },
    DATABASE_PROPERTY_TIMEOUT,
  );

  it('round-trips the sort values of any entity', () => {
    fc.assert(
      fc.property(queryArbitrary, entityArbitrary(fc.constantFrom(...UUID_POOL)), (query, entity) => {
        const keys = sortKeys(query);
        const values = decodeCursor(encodeCursor(query, entity.record), keys);
        expect(values).toEqual(sortValuesOf(entity.record, keys));
      }),
    );
  });

  it('refuses a cursor made for another order', () => {
    const record: EntityRecord = { uuid: UUID_POOL[0], type: 'dog', created: 1, modified: 1, name: 'fred' };
    const cursor = encodeCursor(parseQuery('order by name'), record);
    for (const dialect of ['sqlite', 'postgres'] as const) {
      expect(() => compileQuery(parseQuery('order by name'), { dialect, cursor })).not.toThrow();
      expect(() => compileQuery(parseQuery("name = 'x' order by name asc"), { dialect, cursor })).not.toThrow();
      for (const other of ['order by name desc', '', 'order by a', 'order by name, created']) {
        expectIllegalCursor(() => compileQuery(parseQuery(other), { dialect, cursor }), 'another order');
      }
    }
  });

  it('refuses malformed and damaged cursors', () => {
    const query = parseQuery('order by name');
    const keys = sortKeys(query);
    const encode = (payload: unknown): string => Buffer.from(JSON.stringify(payload)).toString('base64url');
    const signature = 'name asc,uuid asc';
    const bad = [
      '',
      'not a cursor!',
      '%%%',
      Buffer.from('{"v":1').toString('base64url'),
      encode(null),
      encode([1, 2]),
      encode({ v: 2, o: signature, k: [[2, 'fred'], UUID_POOL[0]] }),
      encode({ v: 1, o: signature, k: [[2, 'fred']] }),
      encode({ v: 1, o: signature, k: [[2, 5], UUID_POOL[0]] }),
      encode({ v: 1, o: signature, k: [[1, 'x'], UUID_POOL[0]] }),
      encode({ v: 1, o: signature, k: [[3, 2], UUID_POOL[0]] }),
      encode({ v: 1, o: signature, k: [[4, 0], UUID_POOL[0]] }),
      encode({ v: 1, o: signature, k: [[9, null], UUID_POOL[0]] }),
      encode({ v: 1, o: signature, k: [[2, 'fred'], 7] }),
      encode({ v: 1, o: signature, k: [[2, 'fred', 1], UUID_POOL[0]] }),
    ];
    for (const cursor of bad) expectIllegalCursor(() => decodeCursor(cursor, keys));
    expect(decodeCursor(encode({ v: 1, o: signature, k: [[4, null], UUID_POOL[0]] }), keys)).toEqual([[4, null], UUID_POOL[0]]);
  });

  it('refuses arbitrary strings as cursors, always with illegal_argument', () => {
    const keys = sortKeys(parseQuery(''));
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.base64String(),
          fc.json().map((json) => Buffer.from(json).toString('base64url')),
        ),
        (cursor) => {
          expectIllegalCursor(() => decodeCursor(cursor, keys));
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe('cursors at the data API', () => {
  let d: DataTest;
  beforeAll(async () => {
    d = await createDataTest();
    const created = await d.t.request('POST', `${APP}/dogs`, { json: [{ name: 'ada' }, { name: 'bea' }, { name: 'cid' }], token: d.admin });
    expect(created.status, created.text).toBe(200);
  });
  afterAll(async () => d.t.close());

  const list = (query: Record<string, string>) => d.t.request('GET', `${APP}/dogs?${new URLSearchParams(query)}`, { token: d.admin });
  const names = (res: TestResponse) => res.body.entities.map((entity: { name: string }) => entity.name);
  const BY_NAME = { ql: 'order by name', limit: '2' };

  /** The cursor of the first page of `query`, checked to lead to the rest. */
  async function cursorOf(query: Record<string, string>): Promise<string> {
    const first = await list(query);
    expect(first.status, first.text).toBe(200);
    expect(first.body.cursor).toEqual(expect.any(String));
    return first.body.cursor;
  }

  /** The cursor's JSON with `change` applied, encoded again. */
  function tampered(cursor: string, change: (payload: { v: unknown; o: unknown; k: unknown[] }) => void): string {
    const payload = JSON.parse(Buffer.from(cursor, 'base64url').toString());
    change(payload);
    return Buffer.from(JSON.stringify(payload)).toString('base64url');
  }

  function expectBadCursor(res: TestResponse, problem: string): void {
    expectRefusal(res, 400, 'illegal_argument');
    expect(res.body.fields).toEqual({ cursor: res.body.error_description });
    expect(res.body.error_description).toBe(`cursor ${problem}; request the first page again without it`);
  }

  it('a cursor leads to the next page, and the last page has none', async () => {
    const first = await list(BY_NAME);
    expect(names(first)).toEqual(['ada', 'bea']);
    const second = await list({ ...BY_NAME, cursor: first.body.cursor });
    expect(second.status, second.text).toBe(200);
    expect(names(second)).toEqual(['cid']);
    expect(second.body.cursor).toBeUndefined();
  });

  it('refuses garbage with 400 illegal_argument', async () => {
    for (const garbage of ['not a cursor!', '%%%', 'AAAA', Buffer.from('[1,2]').toString('base64url')]) {
      expectBadCursor(await list({ ...BY_NAME, cursor: garbage }), 'is not a cursor');
    }
  });

  it('refuses a truncated cursor', async () => {
    const cursor = await cursorOf(BY_NAME);
    expectBadCursor(await list({ ...BY_NAME, cursor: cursor.slice(0, Math.floor(cursor.length / 2)) }), 'is not a cursor');
    expectBadCursor(await list({ ...BY_NAME, cursor: cursor.slice(0, -1) }), 'is not a cursor');
  });

  it('refuses a tampered cursor', async () => {
    const cursor = await cursorOf(BY_NAME);
    expectBadCursor(await list({ ...BY_NAME, cursor: `x${cursor.slice(1)}` }), 'is not a cursor');
    expectBadCursor(await list({ ...BY_NAME, cursor: tampered(cursor, (payload) => (payload.v = 2)) }), 'is not a cursor');
    expectBadCursor(await list({ ...BY_NAME, cursor: tampered(cursor, (payload) => (payload.k[payload.k.length - 1] = 7)) }), 'is damaged');
    expectBadCursor(await list({ ...BY_NAME, cursor: tampered(cursor, (payload) => payload.k.pop()) }), 'is damaged');
    expectBadCursor(
      await list({ ...BY_NAME, cursor: tampered(cursor, (payload) => (payload.o = 'name desc,uuid desc')) }),
      'was made for another order (name desc,uuid desc)',
    );
  });

  it("refuses another query's cursor when its order differs, and accepts it under the same order", async () => {
    const cursor = await cursorOf(BY_NAME);
    const signature = JSON.parse(Buffer.from(cursor, 'base64url').toString()).o;
    expectBadCursor(await list({ limit: '2', cursor }), `was made for another order (${signature})`);
    expectBadCursor(await list({ ql: 'order by name desc', limit: '2', cursor }), `was made for another order (${signature})`);
    const narrower = await list({ ql: "name > 'a' order by name", limit: '2', cursor });
    expect(narrower.status, narrower.text).toBe(200);
    expect(names(narrower)).toEqual(['cid']);
  });
});

function expectIllegalCursor(run: () => unknown, mentions?: string): void {
  let thrown: unknown;
  try {
    run();
  } catch (error) {
    thrown = error;
  }
  expect(isAppError(thrown)).toBe(true);
  if (!isAppError(thrown)) return;
  expect(thrown.error).toBe('illegal_argument');
  expect(thrown.fields.cursor).toBe(thrown.message);
  if (mentions !== undefined) expect(thrown.message).toContain(mentions);
}
