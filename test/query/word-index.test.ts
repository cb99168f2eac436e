/**
 * The word index (docs/design.md#the-word-index) on a real database — SQLite FTS5, or PostgreSQL
 * tsvector when IDP_TEST_DATABASE_URL is set: after any sequence of writes (inserts, whole and
 * partial property updates, removed properties, deletes, moves between collections) it holds a
 * row for exactly the entities with a word, and `contains` answered through it gives the
 * reference's answer — words, prefixes, case, long words, any script.
 */
import { execute } from '../../src/db/run.js';
import type { Database_ } from '../../src/db/open.js';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { splitWords } from '../../src/data/query/functions.js';
import { isPlainObject } from '../../src/data/query/properties.js';
import { parseQuery } from '../../src/data/query/parse.js';
import type { ComparisonOperator, Condition, Literal, OrderKey, Query } from '../../src/data/query/ast.js';
import { encodeCursor } from '../../src/data/query/cursor.js';
import { APP, COLLECTION, openQueryDatabase, reference, type QueryDatabase } from './database.js';
import { applyWrite, applyWritesTogether, emptyCollections, type StoredEntities, type Write } from './writes.js';
import { acrossMigration } from './older-database.js';
import { compileQuery } from '../../src/data/query/compile.js';
import { readInCreatedOrder } from '../../src/data/read-in-created-order.js';
import { UUID_POOL, type GeneratedEntity } from './arbitraries.js';
import { selectRows, TEST_DATABASE_URL } from '../database.js';

let database: QueryDatabase;
const DATABASE_PROPERTY_TIMEOUT = 300_000;
beforeAll(async () => {
  database = await openQueryDatabase();
});
afterAll(async () => database.close());

// Words that are prefixes of each other, differ in case or only past the 64 characters a word is
// kept by, fold beyond ASCII (İ, Σ, ß, the Kelvin sign), carry marks, are astral; separators
// that are punctuation, NUL (on SQLite: PostgreSQL text holds none), and non-ASCII spaces.
const LONG = 'q'.repeat(63);
const WORDS = [
  'alpha',
  'Alphabet',
  'ALP',
  'beta',
  'bé',
  'be\u0301',
  'İstanbul',
  'ΣΟΦΟΣ',
  'σοφος',
  'straße',
  '\u212Aelvin',
  'x1',
  '😀',
  '𝒜b',
  `${LONG}a`,
  `${LONG}ab`,
  `${LONG}A`,
];
const SEPARATORS = [' ', ', ', '-', '\u00a0', '. ', TEST_DATABASE_URL === undefined ? '\u0000' : '\u3000'];

const word = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...WORDS) }, { weight: 1, arbitrary: fc.string({ maxLength: 3, unit: 'grapheme' }) });
const storable = (text: string): string => (TEST_DATABASE_URL === undefined ? text : text.replaceAll('\u0000', ' '));
const text = fc.tuple(fc.array(word, { maxLength: 6 }), fc.constantFrom(...SEPARATORS)).map(([words, separator]) => storable(words.join(separator)));
const value: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 5, arbitrary: text },
  { weight: 1, arbitrary: fc.constantFrom(7, true, null, ['alpha'], { title: 'alpha' }) },
);

const properties: fc.Arbitrary<Record<string, unknown>> = fc.record(
  {
    title: value,
    body: value,
    // n.y.w is three segments, the deepest indexed; n.y.w.v is deeper.
    n: fc.record({ x: value, y: fc.record({ w: fc.oneof(value, fc.record({ v: value })) }, { requiredKeys: [] }) }, { requiredKeys: [] }),
    'not a path': value,
  },
  { requiredKeys: [] },
);

const entityArbitrary: fc.Arbitrary<GeneratedEntity> = fc
  .record({ uuid: fc.constantFrom(...UUID_POOL.slice(0, 24)), created: fc.integer({ min: 0, max: 5 }), properties })
  .map(({ uuid, created, properties }) => ({ properties, record: { ...properties, uuid, type: 'dog', created, modified: created } }));

const contains: fc.Arbitrary<Condition> = fc.record({
  kind: fc.constant('contains' as const),
  property: fc.constantFrom('title', 'body', 'n.x', 'n.y.w', 'n.y.w.v', 'missing', 'type'),
  // Whole words, their starts, several words, a word's case variants, words beyond the 64 kept characters.
  term: fc.oneof(
    fc.constantFrom(...WORDS),
    fc.constantFrom(...WORDS).map((w) => Array.from(w).slice(0, 2).join('')),
    fc.constantFrom(...WORDS).map((w) => w.toUpperCase()),
    fc.array(fc.constantFrom(...WORDS), { minLength: 2, maxLength: 3 }).map((words) => words.join(' ')),
    fc.constantFrom(`${LONG}abc`, LONG, '', '-', 'alpha, BETA'),
    fc.string({ maxLength: 3, unit: 'grapheme' }),
  ),
  prefix: fc.boolean(),
});
const condition: fc.Arbitrary<Condition> = fc.oneof(
  { weight: 4, arbitrary: contains },
  { weight: 1, arbitrary: fc.array(contains, { minLength: 2, maxLength: 3 }).map((conditions): Condition => ({ kind: 'and', conditions })) },
  { weight: 1, arbitrary: fc.array(contains, { minLength: 2, maxLength: 3 }).map((conditions): Condition => ({ kind: 'or', conditions })) },
);

const writeArbitrary: fc.Arbitrary<Write> = fc.oneof(
  { weight: 3, arbitrary: entityArbitrary.map((entity): Write => ({ kind: 'insert', entity })) },
  fc.record({ kind: fc.constant('replace' as const), pick: fc.nat(), properties }),
  fc.record({ kind: fc.constant('set' as const), pick: fc.nat(), key: fc.constant('title'), value }),
  fc.record({ kind: fc.constant('remove' as const), pick: fc.nat(), key: fc.constant('title') }),
  fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('move' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('date' as const), pick: fc.nat(), created: fc.integer({ min: 0, max: 5 }) }),
);

/** Whether an entity has a word in a property the index holds (identifier paths through objects, at most three deep). */
function hasWord(properties: Record<string, unknown>, depth = 1): boolean {
  return Object.entries(properties).some(([key, inner]) =>
    !/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)
      ? false
      : isPlainObject(inner)
        ? depth < 3 && hasWord(inner, depth + 1)
        : typeof inner === 'string' && splitWords(inner).length > 0,
  );
}

async function indexedEntities(): Promise<string[]> {
  const rows = await database.handle.driver.query<{ entity_uuid: string }>('SELECT entity_uuid FROM entity_words');
  return rows.map((row) => row.entity_uuid).sort();
}

/** Each row's entity and `created` (…_word_index_created.sql), as `uuid created`. */
async function indexedCreated(): Promise<string[]> {
  const rows = await database.handle.driver.query<{ entity_uuid: string; created: number }>('SELECT entity_uuid, created FROM entity_words');
  return rows.map((row) => `${row.entity_uuid} ${row.created}`).sort();
}

// Orders a page of candidates may be read in created order for (read-in-created-order.ts), and not.
const orders = fc.constantFrom<OrderKey[][]>(
  [],
  [{ property: 'created', direction: 'asc' }],
  [{ property: 'created', direction: 'desc' }],
  [
    { property: 'created', direction: 'asc' },
    { property: 'uuid', direction: 'asc' },
  ],
  [{ property: 'title', direction: 'asc' }],
);

async function answers(query: Query): Promise<string[][]> {
  const ways = Math.max(1, database.narrowings(query));
  const answers: string[][] = [];
  for (let narrowing = 0; narrowing < ways; narrowing++) answers.push((await database.select(query, { narrowing })).map((row) => row.uuid));
  return answers;
}

/**
 * The first two pages of `limit` read through each way's candidates in created order
 * (read-in-created-order.ts), the second from the first's last entity's cursor — for each way
 * that can: a `contains` (or a part of an `and`), in an order by `created`.
 */
async function pagesInCreatedOrder(query: Query, limit: number): Promise<string[][]> {
  const compiled = compileQuery(query, { dialect: database.handle.driver.dialect, index: { appUuid: APP, collection: COLLECTION } });
  if (compiled.created === null) return [];

  const ways = compiled.narrowed.flatMap((narrowing, i) => (narrowing.created === undefined ? [] : [i]));
  const pages: string[][] = [];
  for (const narrowing of ways) {
    const first = await database.select(query, { narrowing, limit, inCreatedOrder: true });
    const last = first.at(-1);
    const second =
      first.length < limit || last === undefined
        ? []
        : await database.select(query, { narrowing, limit, inCreatedOrder: true, cursor: encodeCursor(query, last) });
    pages.push([...first, ...second].map((record) => record.uuid));
  }
  return pages;
}

/** Up to four queries of `condition`, each with an order and a page's size. */
const queriesOf = (condition: fc.Arbitrary<Condition>) => fc.array(fc.tuple(condition, orders, fc.integer({ min: 1, max: 4 })), { minLength: 1, maxLength: 4 });

/** The model of the collections after `writes` to empty ones. */
async function storedAfter(writes: readonly Write[]): Promise<StoredEntities> {
  const stored = await emptyCollections(database);
  for (const write of writes) await applyWrite(database, write, stored);
  return stored;
}

const dogsOf = (stored: StoredEntities): GeneratedEntity[] =>
  [...stored.values()].filter((entry) => entry.collection === COLLECTION).map((entry) => entry.entity);

/** Stores dogs titled `titles` in SQL, the `i`th with uuid UUID_POOL[i] and `created(i)`. */
async function insertTitles(database: Database_, titles: readonly string[], created: (i: number) => number): Promise<void> {
  for (const [i, title] of titles.entries()) {
    await execute(
      database.db,
      sql`INSERT INTO entities (uuid, app_uuid, collection, type, properties, created, modified) VALUES (${UUID_POOL[i]}, ${APP}, 'dogs', 'dog', ${JSON.stringify({ title })}, ${created(i)}, 0)`,
    );
  }
}

/** The word index holds a row for exactly the entities of `stored` with a word, and `contains` answers as the reference does. */
async function expectWordsAsStored(stored: StoredEntities, conditions: [Condition, OrderKey[], number][]): Promise<void> {
  // The test database's other cat (database.ts) has the word 'fred'.
  const other = 'ffffffff-0000-4000-8000-000000000000';
  const withWords = [...stored.values()].filter(({ entity }) => hasWord(entity.properties)).map(({ entity }) => entity.record);
  expect((await indexedEntities()).filter((uuid) => uuid !== other)).toEqual(withWords.map((record) => record.uuid).sort());
  expect((await indexedCreated()).filter((row) => !row.startsWith(other))).toEqual(withWords.map((record) => `${record.uuid} ${record.created}`).sort());
  const dogs = dogsOf(stored);
  for (const [where, orderBy, limit] of conditions) {
    const query: Query = { select: null, where, orderBy };
    const expectedAnswer = reference(query, dogs);
    for (const answer of await answers(query)) expect(answer).toEqual(expectedAnswer);
    for (const pages of await pagesInCreatedOrder(query, limit)) expect(pages).toEqual(expectedAnswer.slice(0, 2 * limit));
  }
}

describe('the word index', () => {
  it(
    'holds a row for exactly the entities with a word after any writes, and answers contains as the reference does',
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(writeArbitrary, { minLength: 1, maxLength: 25 }), queriesOf(condition), async (writes, conditions) => {
          await expectWordsAsStored(await storedAfter(writes), conditions);
        }),
        { numRuns: 120 },
      );
    },
    DATABASE_PROPERTY_TIMEOUT,
  );

  it(
    'holds a row for exactly the entities with a word after writes started together (creates indexed at the end of their group commit on SQLite)',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.array(writeArbitrary, { minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 4 }),
          queriesOf(condition),
          async (batches, conditions) => {
            const stored = await emptyCollections(database);
            for (const batch of batches) await applyWritesTogether(database, batch, stored);
            await expectWordsAsStored(stored, conditions);
          },
        ),
        { numRuns: 100 },
      );
    },
    DATABASE_PROPERTY_TIMEOUT,
  );

  it(
    'reads the candidates of contains and of modified in created order a page at a time, after any writes, as the reference orders the answer',
    async () => {
      // Few words, so that most entities are candidates and pages are full; `created` from 0 to 3, so that many tie.
      const title = fc.array(fc.constantFrom('alpha', 'beta', 'Alphabet', 'gamma'), { maxLength: 4 }).map((words) => words.join(' '));
      const dense = fc
        .record({ uuid: fc.constantFrom(...UUID_POOL.slice(0, 24)), created: fc.integer({ min: 0, max: 3 }), title })
        .map(({ uuid, created, title }): GeneratedEntity => ({ properties: { title }, record: { title, uuid, type: 'dog', created, modified: created } }));
      const denseWrite: fc.Arbitrary<Write> = fc.oneof(
        { weight: 4, arbitrary: dense.map((entity): Write => ({ kind: 'insert', entity })) },
        fc.record({ kind: fc.constant('set' as const), pick: fc.nat(), key: fc.constant('title'), value: title }),
        fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }),
        fc.record({ kind: fc.constant('move' as const), pick: fc.nat() }),
        fc.record({ kind: fc.constant('date' as const), pick: fc.nat(), created: fc.integer({ min: 0, max: 3 }) }),
      );
      const term = fc.constantFrom('alpha', 'alp', 'beta', 'alpha beta', 'beta alpha', 'gamma');
      const denseContains = fc.record({ kind: fc.constant('contains' as const), property: fc.constant('title'), term, prefix: fc.boolean() });
      // The candidates of modified are read in created order too (property-index.ts columnCandidates), a band's among them;
      // those of created are not taken there (compile.ts readsAnotherOrder).
      const columnCompare = fc.record({
        kind: fc.constant('compare' as const),
        property: fc.constantFrom('created', 'modified'),
        operator: fc.constantFrom<ComparisonOperator>('=', '<', '<=', '>', '>='),
        value: fc.integer({ min: -1, max: 4 }).map((value): Literal => ({ kind: 'number', value })),
      });
      const denseCondition: fc.Arbitrary<Condition> = fc.oneof(
        { weight: 3, arbitrary: denseContains },
        fc.tuple(denseContains, denseContains).map((conditions): Condition => ({ kind: 'and', conditions })),
        { weight: 2, arbitrary: columnCompare },
        fc.tuple(columnCompare, columnCompare).map((conditions): Condition => ({ kind: 'and', conditions })),
        fc.tuple(denseContains, columnCompare).map((conditions): Condition => ({ kind: 'and', conditions })),
      );
      let paged = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(denseWrite, { minLength: 8, maxLength: 30 }), queriesOf(denseCondition), async (writes, conditions) => {
          const dogs = dogsOf(await storedAfter(writes));
          for (const [where, orderBy, limit] of conditions) {
            const query: Query = { select: null, where, orderBy };
            const expected = reference(query, dogs).slice(0, 2 * limit);
            for (const pages of await pagesInCreatedOrder(query, limit)) {
              expect(pages).toEqual(expected);
              if (expected.length > limit) paged++;
            }
          }
        }),
        { numRuns: 150 },
      );
      // Second pages were read.
      expect(paged).toBeGreaterThan(20);
    },
    DATABASE_PROPERTY_TIMEOUT,
  );

  const fixture: GeneratedEntity[] = [
    'The Quick brown fox',
    'quickly, quickest!',
    'İSTANBUL straße',
    'ΣΟΦΟΣ σοφός',
    `${LONG}ab ${LONG}AC`,
    'caf\u00e9 cafe\u0301',
    'no match here',
  ].map((title, i) => ({ properties: { title }, record: { title, uuid: UUID_POOL[i], type: 'dog', created: i, modified: i } }));

  it.each([
    ["title contains 'quick'", 1],
    ["title contains 'QUICK*'", 2],
    ["title contains 'brown fox'", 1],
    ["title contains 'fox brown'", 0],
    ["title contains 'quick fox'", 0],
    ["title contains 'i̇stanbul'", 1],
    ["title contains 'STRASSE'", 0],
    ["title contains 'σοφος'", 1],
    ["title contains 'σοφός'", 1],
    [`title contains '${LONG}ab'`, 1],
    [`title contains '${LONG}a'`, 0],
    [`title contains '${LONG}a*'`, 1],
    [`title contains '${LONG}ac'`, 1],
    ["title contains 'café'", 1],
    ["title contains 'cafe*'", 1],
    ["title contains 'quick' or title contains 'here'", 2],
  ] as const)('answers %s through the index as the reference does (%i matches)', async (ql, count) => {
    // The writes above may have left entities with these uuids in `cats`.
    await emptyCollections(database);
    await database.replaceEntities(fixture);
    const query = parseQuery(ql);
    const expected = reference(query, fixture);
    expect(expected).toHaveLength(count);
    expect(database.narrowings(query)).toBe(1);
    expect(await answers(query)).toEqual([expected]);
  });

  it('is built by the migration for the entities already stored', async () => {
    const titles = ['Zebra crossing', 'no words here? yes', '', '!?'];
    await acrossMigration(
      '_word_index',
      (before) => insertTitles(before, titles, () => 0),
      async (after) => {
        const rows = await after.driver.query<{ entity_uuid: string }>('SELECT entity_uuid FROM entity_words');
        expect(rows.map((row) => row.entity_uuid).sort()).toEqual([UUID_POOL[0], UUID_POOL[1]].sort());
        const compiled = compileQuery(parseQuery("title contains 'zebra'"), { dialect: after.driver.dialect, index: { appUuid: APP, collection: 'dogs' } });
        const found = await selectRows<{ entity_uuid: string }>(after.db, compiled.narrowed[0].candidates);
        expect(found.map((row) => row.entity_uuid)).toEqual([UUID_POOL[0]]);
      },
    );
  });
  it('keeps created in the word index once migrated, for the entities already stored and those written after', async () => {
    const titles = ['Zebra crossing', 'zebra', 'a zebra', 'no stripes', 'zebras', 'zebra again'];
    await acrossMigration(
      '_word_index_created',
      (before) => insertTitles(before, titles, (i) => i % 3),
      async (after) => {
        const rows = await after.driver.query<{ entity_uuid: string; created: number }>('SELECT entity_uuid, created FROM entity_words');
        expect(rows.map((row) => `${row.entity_uuid} ${row.created}`).sort()).toEqual(titles.map((_, i) => `${UUID_POOL[i]} ${i % 3}`).sort());
        // The table made again (on SQLite its shadow tables with it), nothing left of the old one.
        const tables = await after.driver.query<{ name: string }>(
          TEST_DATABASE_URL === undefined
            ? "SELECT name FROM sqlite_master WHERE name LIKE 'entity_words%' AND type = 'table' ORDER BY name"
            : "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_name LIKE 'entity_words%'",
        );
        expect(tables.map((table) => table.name)).toEqual(
          TEST_DATABASE_URL === undefined
            ? ['entity_words', 'entity_words_config', 'entity_words_content', 'entity_words_data', 'entity_words_docsize', 'entity_words_idx']
            : ['entity_words'],
        );
        // Written after: through the new triggers, then read in created order as the reference orders them.
        await execute(after.db, sql`UPDATE entities SET created = 7 WHERE uuid = ${UUID_POOL[3]}`);
        await execute(after.db, sql`UPDATE entities SET properties = ${JSON.stringify({ title: 'zebra at last' })} WHERE uuid = ${UUID_POOL[3]}`);
        await execute(after.db, sql`DELETE FROM entities WHERE uuid = ${UUID_POOL[1]}`);
        const query = parseQuery("title contains 'zebra'");
        const compiled = compileQuery(query, { dialect: after.driver.dialect, index: { appUuid: APP, collection: 'dogs' } });
        const found = await readInCreatedOrder(
          after.db,
          {
            candidates: compiled.narrowed[0].created!,
            order: compiled.created!,
            where: compiled.where,
            orderBy: compiled.orderBy,
            count: 3,
            counting: undefined,
            ran: [],
          },
          (condition) => condition,
        );
        const stored = titles
          .map((title, i): GeneratedEntity => {
            const properties = { title: i === 3 ? 'zebra at last' : title };
            const created = i === 3 ? 7 : i % 3;
            return { properties, record: { ...properties, uuid: UUID_POOL[i], type: 'dog', created, modified: 0 } };
          })
          .filter((_, i) => i !== 1);
        expect(found.map((row) => row.uuid)).toEqual(reference(query, stored).slice(0, 3));
        expect(found[0].uuid).toBe(UUID_POOL[3]);
      },
    );
  });
});
