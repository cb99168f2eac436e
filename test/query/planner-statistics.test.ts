/**
 * Planner statistics after a bulk load (docs/design.md#planner-statistics): on PostgreSQL a
 * collection loaded in bulk is analyzed by idp itself, without waiting for autovacuum, so a
 * selective query is answered through the property index at once, and the property index is
 * vacuumed so its index-only scans need not read its pages. On SQLite nothing is analyzed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { dialectOf } from '../../src/db/open.js';
import { execute, row } from '../../src/db/run.js';
import { keepPlannerStatistics, type StatisticsKeeper } from '../../src/db/planner-statistics.js';
import { APP, createDataTest, type DataTest } from '../data/setup.js';
import { TEST_DATABASE_URL } from '../database.js';

let d: DataTest;
let keeper: StatisticsKeeper;
const failures: unknown[] = [];
const PEOPLE = 4000;
const BATCH = 1000;

const postgres = (): boolean => dialectOf(d.t.deps.db) === 'postgres';

beforeAll(async () => {
  d = await createDataTest();
  keeper = keepPlannerStatistics(d.t.deps.db, (error) => failures.push(error));
  // The collection loaded in bulk: PEOPLE people, BATCH to a POST.
  await postPeople(0, PEOPLE);
});
afterAll(async () => {
  await keeper.stop();
  await d.t.close();
});

/** Whether `table` was vacuumed by a VACUUM statement (not autovacuum). */
async function vacuumed(table: string): Promise<boolean> {
  const found = await row<[string | null]>(d.t.deps.db, sql`SELECT last_vacuum FROM pg_stat_user_tables WHERE relid = to_regclass(${table})`);
  return found?.[0] != null;
}

/** The rows of `entities` as its last analysis counted them (pg_class.reltuples). */
async function estimatedEntities(): Promise<number> {
  const found = await row<[number | string]>(d.t.deps.db, sql`SELECT reltuples FROM pg_class WHERE oid = to_regclass('entities')`);
  return Number(found?.[0] ?? 0);
}

/** Posts `count` people numbered from `from`, 1,000 to a request. */
async function postPeople(from: number, count: number): Promise<void> {
  for (let start = from; start < from + count; start += BATCH) {
    const people = Array.from({ length: Math.min(BATCH, from + count - start) }, (_, k) => ({
      name: `p${start + k}`,
      age: (start + k) % 1000,
      about: `likes tag${(start + k) % 100}`,
      city: (start + k) % 2 === 0 ? 'Rome' : 'Oslo',
    }));
    const created = await d.t.request('POST', `${APP}/people`, { json: people, token: d.admin });
    expect(created.status, created.text).toBe(200);
  }
}

/** Whether PostgreSQL holds statistics of `table` (an ANALYZE ran on it). */
async function analyzed(table: string): Promise<boolean> {
  const found = await row<[number]>(d.t.deps.db, sql`SELECT count(*) FROM pg_stats WHERE schemaname = current_schema() AND tablename = ${table}`);
  return Number(found?.[0] ?? 0) > 0;
}

describe('planner statistics after a bulk load', () => {
  it('a collection loaded in bulk is analyzed, and a selective query then reads only its matches through the property index', async () => {
    await keeper.settled();
    expect(failures).toEqual([]);
    if (postgres()) {
      for (const table of ['entities', 'entity_values', 'entity_words']) expect(await analyzed(table), table).toBe(true);
      // The property index is vacuumed as well, so its index-only scans need not visit its pages.
      expect(await vacuumed('entity_values')).toBe(true);
    }
    for (const ql of ['age = 7', 'age > 996']) {
      const res = await d.t.request('GET', `${APP}/people?ql=${encodeURIComponent(ql)}&explain=true&limit=10`, { token: d.admin });
      expect(res.status, res.text).toBe(200);
      expect(res.body.entities).toHaveLength(ql === 'age = 7' ? 4 : 10);
      // PostgreSQL's own plan: `entities` read by uuid, the property index's candidates, and no more rows than match.
      expect(res.body.explain, ql).toEqual({ index: 'property age', rows_read: ql === 'age = 7' ? 4 : 12 });
    }
    // Of an `and`, the narrower part, whichever comes first: 4 people of age 7, not the 2,000
    // in Rome (data/find.ts chooseNarrowing).
    const both = await d.t.request('GET', `${APP}/people?ql=${encodeURIComponent("city = 'Oslo' and age = 7")}&explain=true&limit=10`, { token: d.admin });
    expect(both.status, both.text).toBe(200);
    expect(both.body.entities.map((person: { name: string }) => person.name).sort()).toEqual(['p1007', 'p2007', 'p3007', 'p7']);
    expect(both.body.explain).toEqual({ index: 'property age', rows_read: 4 });
  });

  // SQLite plans without statistics: nothing is analyzed there.
  it.skipIf(TEST_DATABASE_URL === undefined)(
    `a growing table is analyzed again once it has doubled since its last analysis, not before${TEST_DATABASE_URL === undefined ? ' (skipped: PostgreSQL only)' : ''}`,
    async () => {
      // Autovacuum's own analyses would move the threshold under the test.
      for (const table of ['entities', 'entity_values', 'entity_words', 'entity_locations'])
        await execute(d.t.deps.db, sql.raw(`ALTER TABLE ${table} SET (autovacuum_enabled = false)`));
      // A keeper of its own, counting from nothing, after an analysis of the table as it stands.
      await keeper.stop();
      await execute(d.t.deps.db, sql`ANALYZE entities`);
      keeper = keepPlannerStatistics(d.t.deps.db, (error) => failures.push(error));
      const held = await estimatedEntities();
      // The 4,000 people above and the test's users.
      expect(held).toBeGreaterThanOrEqual(PEOPLE);
      await postPeople(PEOPLE, held - 1);
      await keeper.settled();
      expect(failures).toEqual([]);
      expect(await estimatedEntities()).toBe(held);
      // One more: as many written as the table held at its last analysis.
      await postPeople(PEOPLE + held - 1, 1);
      await keeper.settled();
      expect(failures).toEqual([]);
      expect(await estimatedEntities()).toBe(2 * held);
    },
  );
});
