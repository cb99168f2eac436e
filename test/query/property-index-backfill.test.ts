/**
 * The property index of a database from before it existed
 * (docs/design.md#filling-the-index-of-an-older-database), on SQLite, or PostgreSQL when
 * IDP_TEST_DATABASE_URL is set: the migration leaves the older entities to a backfill after
 * start-up, queries read the collection (and `explain` says why) until it is done, it logs its
 * progress, carries on after a stop where it stopped, only one instance runs it, and writes made
 * meanwhile end up indexed as they are.
 */
import { selectRows, TEST_DATABASE_URL } from '../database.js';
import { execute } from '../../src/db/run.js';
import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import type { Database_ } from '../../src/db/open.js';
import { findEntities } from '../../src/data/find.js';
import { startPropertyIndexBackfill, type Backfill } from '../../src/data/property-index-backfill.js';
import { isPropertyIndexComplete, leasePropertyIndexBackfill } from '../../src/db/property-index-store.js';
import { resolveConfig } from '../../src/config.js';
import { startServer } from '../../server/serve.js';
import { APP } from './database.js';
import { createOlderDatabase, type OlderDatabase } from './older-database.js';

/** Seven dogs of ages 0…6, uuids in age order. */
const DOGS = Array.from({ length: 7 }, (_, i) => [`00000000-0000-4000-8000-00000000010${i}`, { name: `dog${i}`, age: i }] as const);

let older: OlderDatabase | undefined;
let handle: Database_ | undefined;
afterEach(async () => {
  if (older !== undefined && handle !== undefined) await older.remove(handle);
  older = undefined;
  handle = undefined;
});

async function openOlder(): Promise<Database_> {
  older = await createOlderDatabase(DOGS);
  handle = await older.open();
  return handle;
}

/** A logger that keeps the message of every line; `next()` resolves with the next one. */
function capturingLogger() {
  const lines: string[] = [];
  let waiting: ((line: string) => void) | undefined;
  const logger = pino(
    { level: 'info' },
    {
      write(text: string) {
        const line = (JSON.parse(text) as { msg: string }).msg;
        lines.push(line);
        waiting?.(line);
      },
    },
  );
  return {
    logger,
    lines,
    next: () =>
      new Promise((resolve) => {
        waiting = resolve;
      }),
  };
}

function startCapturing(db: Database_, options: { pauseMs?: number } = {}) {
  const capturing = capturingLogger();
  const backfill: Backfill = startPropertyIndexBackfill({ db: db.db, logger: capturing.logger, now: Date.now }, 2, options);
  return { ...capturing, backfill };
}

async function query(db: Database_, ql: string) {
  const page = await findEntities(db.db, APP, { kind: 'collection', collection: 'dogs' }, { ql, explain: true, limit: '100' });
  return { names: page.rows.map((row) => row.properties.name), explain: page.explain! };
}

/** The property index's rows with their paths' names: on SQLite a view of them (docs/design.md#the-property-index). */
const namedRows = (db: Database_) => sql.identifier(db.driver.dialect === 'sqlite' ? 'entity_values_named' : 'entity_values');

async function indexRows(db: Database_): Promise<number> {
  const [{ rows }] = await selectRows<{ rows: number }>(db.db, sql`SELECT count(*) AS rows FROM ${namedRows(db)} WHERE app_uuid = ${APP}`);
  return Number(rows);
}

const SKIPPED = 'the property index is still being built';

describe('the property index of an older database', () => {
  it('is left to the backfill by the migration; queries read the collection meanwhile and say so', async () => {
    const db = await openOlder();
    expect(await isPropertyIndexComplete(db.db)).toBe(false);
    expect(await indexRows(db)).toBe(0);
    const answer = await query(db, 'age >= 5');
    expect(answer.names).toEqual(['dog6', 'dog5']);
    expect(answer.explain).toMatchObject({ index: null, skipped: SKIPPED });
    // The word index is filled by its migration, so `contains` uses it meanwhile.
    const words = await query(db, "name contains 'dog1'");
    expect(words.names).toEqual(['dog1']);
    // PostgreSQL's planner may read a collection this small whole (null), never the property index.
    if (db.driver.dialect === 'sqlite') expect(words.explain.index).toBe('full-text name');
    else expect([null, 'full-text name']).toContain(words.explain.index);
    expect(words.explain.skipped).toBeUndefined();
    // A query no index could help with has nothing to say about it.
    expect((await query(db, 'not age >= 5')).explain.skipped).toBeUndefined();
    // Nor is the order read from it: the collection is sorted.
    const sorted = await query(db, 'order by age desc');
    expect(sorted.names).toEqual(['dog6', 'dog5', 'dog4', 'dog3', 'dog2', 'dog1', 'dog0']);
    expect(sorted.explain).toMatchObject({ index: null, skipped: SKIPPED });
    expect(sorted.explain).not.toHaveProperty('order');
  });

  it('logs its progress, carries on where a stopped one stopped, then queries use the index', async () => {
    const db = await openOlder();
    // A long pause between batches: the test stops it after its first.
    const first = startCapturing(db, { pauseMs: 60_000 });
    expect(await first.next()).toBe('property index: indexing the 7 stored entities');
    expect(await first.next()).toBe('property index: 2 of 7 entities (28%)');
    await first.backfill.stop();
    expect(await isPropertyIndexComplete(db.db)).toBe(false);
    expect(await indexRows(db)).toBe(2 * 2);
    // Still read from the collection, and right: four of the matches have no rows yet.
    expect((await query(db, 'age >= 2')).names).toEqual(['dog6', 'dog5', 'dog4', 'dog3', 'dog2']);

    // Written while it is under way: an entity not yet indexed changed, another added.
    await execute(db.db, sql`UPDATE entities SET properties = ${JSON.stringify({ name: 'dog5', age: 50 })} WHERE uuid = ${DOGS[5][0]}`);
    await execute(
      db.db,
      sql`INSERT INTO entities (uuid, app_uuid, collection, type, properties, created, modified)
          VALUES ('00000000-0000-4000-8000-000000000200', ${APP}, 'dogs', 'dog', ${JSON.stringify({ name: 'dog7', age: 7 })}, 9, 9)`,
    );

    const second = startCapturing(db);
    await second.backfill.finished();
    expect(second.lines).toEqual([
      'property index: indexing the 8 stored entities',
      'property index: 4 of 8 entities (50%)',
      'property index: 6 of 8 entities (75%)',
      'property index: 8 of 8 entities (100%)',
      'property index: complete; queries use it from now on',
    ]);
    expect(await isPropertyIndexComplete(db.db)).toBe(true);
    // Two rows for each of the eight dogs, and for dog5 its new age only.
    expect(await indexRows(db)).toBe(16);
    const column = sql.raw(db.driver.dialect === 'sqlite' ? 'value' : 'num');
    const [{ age }] = await selectRows<{ age: number }>(
      db.db,
      sql`SELECT ${column} AS age FROM ${namedRows(db)} WHERE entity_uuid = ${DOGS[5][0]} AND path = 'age'`,
    );
    expect(Number(age)).toBe(50);
    const answer = await query(db, 'age >= 7');
    expect(answer.names).toEqual(['dog7', 'dog5']);
    expect(answer.explain.skipped).toBeUndefined();
    if (db.driver.dialect === 'sqlite') expect(answer.explain.index).toBe('property age');
    // Written during the backfill or before it, every dog is in the order the index gives.
    const sorted = await query(db, 'order by age desc');
    expect(sorted.names).toEqual(['dog5', 'dog7', 'dog6', 'dog4', 'dog3', 'dog2', 'dog1', 'dog0']);
    if (db.driver.dialect === 'sqlite') expect(sorted.explain).toMatchObject({ index: 'property age', order: 'property age' });
  });

  it('is filled by `idp serve` after it listens, IDP_PROPERTY_INDEX_BATCH entities at a time', async () => {
    older = await createOlderDatabase(DOGS);
    const { logger, lines } = capturingLogger();
    const server = await startServer(resolveConfig({ port: '0', ...older.flags }, { IDP_PROPERTY_INDEX_BATCH: '3' }), logger);
    try {
      await server.propertyIndexBuilt();
    } finally {
      await server.close();
    }
    expect(lines.filter((line) => line.startsWith('property index:'))).toEqual([
      'property index: indexing the 7 stored entities',
      'property index: 3 of 7 entities (42%)',
      'property index: 6 of 7 entities (85%)',
      'property index: 7 of 7 entities (100%)',
      'property index: complete; queries use it from now on',
    ]);
    handle = await older.open();
    expect(await indexRows(handle)).toBe(DOGS.length * 2);
  });

  it('runs on one instance at a time: another takes over once the lease is given up or runs out', async () => {
    const db = await openOlder();
    const first = startCapturing(db, { pauseMs: 60_000 });
    await first.next();
    await first.next();
    const now = Date.now();
    expect(await leasePropertyIndexBackfill(db.db, 'another instance', now, 60_000)).toBeNull();
    // A lease that ran out (its instance died) is taken over.
    expect(await leasePropertyIndexBackfill(db.db, 'another instance', now + 61_000, 60_000)).toEqual({ indexed: 2, remaining: 5 });
    await first.backfill.stop();
    expect(await leasePropertyIndexBackfill(db.db, 'a third instance', now + 62_000, 60_000)).toBeNull();
  });

  it('marks a database whose index is complete — filled by its migration, or no entities — as such', async () => {
    // The property index migration ran before it left the filling to the backfill: rows for all.
    older = await createOlderDatabase(DOGS, '_property_index_backfill');
    handle = await older.open();
    // …_property_index_compact_keys.sql makes SQLite's rows anew, and …_array_elements.sql adds
    // the elements' on both: the backfill walks every entity once more.
    expect(await indexRows(handle)).toBe(handle.driver.dialect === 'sqlite' ? 0 : DOGS.length * 2);
    expect(await isPropertyIndexComplete(handle.db)).toBe(false);
    await startCapturing(handle).backfill.finished();
    expect(await indexRows(handle)).toBe(DOGS.length * 2);
    expect(await isPropertyIndexComplete(handle.db)).toBe(true);
    expect((await query(handle, 'age >= 5')).explain.skipped).toBeUndefined();
    await older.remove(handle);
    older = await createOlderDatabase([]);
    handle = await older.open();
    expect(await isPropertyIndexComplete(handle.db)).toBe(true);
  });

  it("gets the rows of arrays' elements once upgraded: queries read the collection until the backfill has walked every entity again", async () => {
    // Even dogs are tagged ['even', 'nI'], odd ones 'odd' (a string, indexed before too).
    const tagged = DOGS.map(([uuid, properties], i) => [uuid, { ...properties, tags: i % 2 === 0 ? ['even', `n${i}`, 'EVEN'] : 'odd' }] as const);
    older = await createOlderDatabase(tagged, '_array_elements');
    handle = await older.open();
    expect(await isPropertyIndexComplete(handle.db)).toBe(false);
    const meanwhile = await query(handle, "tags = 'Even' and age < 3 or tags = 'n6' or tags = 'odd' and age = 1");
    expect(meanwhile.names).toEqual(['dog6', 'dog2', 'dog1', 'dog0']);
    expect(meanwhile.explain).toMatchObject({ index: null, skipped: SKIPPED });
    await startCapturing(handle).backfill.finished();
    // name and age of each, the odd dogs' tags, and the even dogs' two distinct elements ('even' once).
    expect(await indexRows(handle)).toBe(DOGS.length * 2 + 3 + 4 * 2);
    const answer = await query(handle, "tags = 'Even' and age < 3 or tags = 'n6' or tags = 'odd' and age = 1");
    expect(answer.names).toEqual(['dog6', 'dog2', 'dog1', 'dog0']);
    expect(answer.explain.index).toBe('property tags');
    expect((await query(handle, "tags = 'ev*'")).names).toEqual(['dog6', 'dog4', 'dog2', 'dog0']);
  });

  it.runIf(TEST_DATABASE_URL === undefined)(
    'gets the rows of the names SQLite quotes once upgraded: queries read the collection until the backfill has walked every entity again',
    async () => {
      // Indexed by the view before …_property_index_compact_keys.sql, which left out `first_name`.
      const people = DOGS.map(([uuid, properties]) => [uuid, { ...properties, first_name: properties.name.toUpperCase(), n: { _y: properties.age } }] as const);
      older = await createOlderDatabase(people, '_property_index_compact_keys');
      handle = await older.open();
      expect(await isPropertyIndexComplete(handle.db)).toBe(false);
      const meanwhile = await query(handle, "first_name = 'DOG3' or n._y = 5");
      expect(meanwhile.names).toEqual(['dog5', 'dog3']);
      expect(meanwhile.explain).toMatchObject({ index: null, skipped: SKIPPED });
      await startCapturing(handle).backfill.finished();
      expect(await indexRows(handle)).toBe(DOGS.length * 4);
      const answer = await query(handle, "first_name = 'DOG3' or n._y = 5");
      expect(answer.names).toEqual(['dog5', 'dog3']);
      expect(answer.explain.index).toBe('property first_name, property n._y');
      expect((await query(handle, 'order by first_name desc')).names).toEqual(['dog6', 'dog5', 'dog4', 'dog3', 'dog2', 'dog1', 'dog0']);
    },
  );
});
