/**
 * Keeps PostgreSQL's planner statistics of the entity tables current after bulk writes
 * (docs/design.md#planner-statistics). Right after a bulk load PostgreSQL has none for
 * `entities` and its indexes' tables — autovacuum looks once a minute at most — and takes each
 * for one row: `age > 5000` at 10,000 entities then joined `entities` with `entity_values` by a
 * nested loop, 9 to 22 s, against 7 ms after `ANALYZE` (docs/benchmarks.md#queries-as-collections-grow).
 *
 * Every entity insert (entity-store.ts) and backfill batch (property-index-store.ts) counts here;
 * once an instance has written as many entities as the table held at its last analysis, it
 * analyzes the tables again (vacuuming the property index, REFRESH), a moment later (so the writes
 * of that moment have committed), one analysis at a time, never inside a request: a failure is
 * reported, and the next threshold tries again. SQLite plans without statistics and gets none.
 */
import { sql } from 'drizzle-orm';
import type { Driver } from './driver.js';
import { clientOf, dialectOf, type Db, type Tx } from './open.js';
import { execute, row } from './run.js';

export interface StatisticsOptions {
  /** Entities written by this instance since the last analysis before another is considered. */
  readonly minRows: number;
  /** … and at least this fraction of the rows `entities` held at the last analysis (by anyone). */
  readonly fraction: number;
  /** From the threshold to the analysis: a bulk load gets one per delay (plus its length) at most. */
  readonly delayMs: number;
}

const DEFAULTS: StatisticsOptions = {
  // One POST of 1,000 entities (the largest the body limit lets through, docs/api.md#limits).
  minRows: 1000,
  // The table doubled: what autovacuum, which analyzes each tenth more but looks once a minute at
  // most, may not have seen yet. Between analyses the planner scales a table's row count by its
  // pages. Analyses at each fifth more took about 15% of PostgreSQL's CPU under the create of
  // `parse` while its table grew (docs/benchmarks.md#analyzing-when-the-table-doubled).
  fraction: 1,
  delayMs: 1000,
};

/**
 * The tables analyzed: the entities and the property, word and location indexes derived from
 * them (migrations/postgres/…_property_index.sql, …_word_index.sql, …_location_index.sql).
 * SKIP_LOCKED: one that another instance (or autovacuum) is analyzing right now is left to it.
 * The property index is vacuumed too, which marks the pages written since in its visibility map:
 * until then an index-only scan of it (a count of the entities sharing a value, a narrowing's
 * candidates) visits each row's page as well. Counting 4,000 people of a city among a million
 * took 6.1 ms right after their import and 0.7 ms once vacuumed (docs/benchmarks.md#vacuuming-the-property-index).
 */
const REFRESH = [sql`VACUUM (ANALYZE, SKIP_LOCKED) entity_values`, sql`ANALYZE (SKIP_LOCKED) entities, entity_words, entity_locations`];

export interface StatisticsKeeper {
  /** Resolves once no analysis is due or under way (tests wait for it). */
  settled(): Promise<void>;
  /** Cancels a pending analysis and waits for one under way. */
  stop(): Promise<void>;
}

/** What entity writes reach: the keeper of their database. */
const keepers = new WeakMap<Driver, { note(count: number): void }>();

/**
 * Counts `count` entities written through `tx`'s database; starts the analysis when they pass the
 * threshold. Costs a map lookup when no keeper runs (SQLite, commands, tests).
 */
export function noteEntitiesWritten(tx: Tx, count: number): void {
  keepers.get(clientOf(tx))?.note(count);
}

/** Starts keeping `db`'s statistics (PostgreSQL only); `onError` hears of a failed analysis. */
export function keepPlannerStatistics(db: Db, onError: (error: unknown) => void, overrides: Partial<StatisticsOptions> = {}): StatisticsKeeper {
  if (dialectOf(db) !== 'postgres') return { settled: async () => undefined, stop: async () => undefined };
  const options = { ...DEFAULTS, ...overrides };
  const driver = clientOf(db);
  let written = 0;
  // Entities to write before looking again: the larger of minRows and fraction of the table.
  let threshold = options.minRows;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;

  /** Runs REFRESH when this instance's writes are a large enough part of the table; else raises the threshold. */
  async function refreshIfDue(): Promise<void> {
    const [tuples] = (await row<[number]>(db, sql`SELECT reltuples FROM pg_class WHERE oid = to_regclass('entities')`)) ?? [0];
    // reltuples is -1 for a table never analyzed.
    threshold = Math.max(options.minRows, Math.ceil(options.fraction * Math.max(0, Number(tuples))));
    if (written < threshold) return;
    written = 0;
    for (const statement of REFRESH) await execute(db, statement);
  }

  function scheduleIfDue(): void {
    if (stopped || written < threshold || timer !== undefined || running !== undefined) return;
    timer = setTimeout(run, options.delayMs);
    timer.unref();
  }

  function run(): void {
    timer = undefined;
    running = refreshIfDue()
      .catch(onError)
      .finally(() => {
        running = undefined;
        scheduleIfDue();
      });
  }

  keepers.set(driver, {
    note(count) {
      written += count;
      scheduleIfDue();
    },
  });
  return {
    async settled() {
      while (timer !== undefined || running !== undefined) {
        if (timer !== undefined) {
          clearTimeout(timer);
          run();
        }
        await running;
      }
    },
    async stop() {
      stopped = true;
      keepers.delete(driver);
      clearTimeout(timer);
      timer = undefined;
      await running;
    },
  };
}
