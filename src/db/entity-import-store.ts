/**
 * The bulk import's writes (docs/design.md#the-bulk-import): a batch of new entities of one
 * collection in one transaction of its own, committed with its index rows, so no query ever sees
 * an entity without them.
 *
 * On SQLite the batch's index rows are written by one statement per index, in the index's key
 * order, rather than by the insert triggers one entity at a time (their WHEN condition,
 * migrations/sqlite/0026_deferred_index_build.sql, lets them pass while deferIndexing is on).
 * Each entity's trigger writes its ~7 property index rows at random places of one b-tree, and the
 * commit then writes thousands of randomly dirtied pages; sorted, the rows of a batch fill
 * neighbouring pages. Measured at 100,000 people (bench/query.js, docs/benchmarks.md#the-bulk-import).
 * PostgreSQL inserts the batch as a POST of an array does (insertEntities), its triggers indexing.
 */
import { atomicAlone } from './driver.js';
import { insertEntities, type NewEntity } from './entity-store.js';
import { deferIndexing } from './functions.js';
import { clientOf, type Db } from './open.js';
import { noteEntitiesWritten } from './planner-statistics.js';
import { indexEntitiesAfter, lastEntityRowid } from './group-indexing.js';
import type { SqliteDriver } from './sqlite.js';

/**
 * SQLite's page cache during a batch, in KiB (`cache_size` takes a negative number of KiB): the
 * index pages a batch dirties stay in memory until its commit instead of spilling to the WAL.
 */
const BATCH_CACHE_KIB = 64 * 1024;

/**
 * Entities per batch on PostgreSQL at most, whatever is configured: its trigger indexes the rows
 * of each INSERT anyway, and its planner needs statistics while a collection grows
 * (planner-statistics.ts analyzes each time the table has grown by half during an import). One
 * batch of 100,000 left the planner without them until after the commit, and the first query
 * after the import read by nested loops for minutes.
 */
const POSTGRES_BATCH = 10_000;

/** The entities per batch of an import into `db`, given the configured number (config.ts `importBatch`). */
export function importBatchSize(db: Db, configured: number): number {
  return clientOf(db).dialect === 'sqlite' ? configured : Math.min(configured, POSTGRES_BATCH);
}

/** Stores `list` (new entities of one collection) in one transaction with their index rows. */
export async function insertEntityBatch(db: Db, list: readonly NewEntity[]): Promise<void> {
  const driver = clientOf(db);
  if (driver.dialect !== 'sqlite') {
    await db.transaction(async (tx) => {
      await insertEntities(tx, list);
    });
    // Counted again once committed: a batch's transaction lasts long enough for the analysis its
    // insert asked for (planner-statistics.ts, a second later) to run before the commit, without
    // its rows; a planner left with that reads 100,000 entities by nested loops for minutes.
    noteEntitiesWritten(db, list.length);
    return;
  }
  const { sqlite } = driver as SqliteDriver;
  // Its own exclusive transaction, not a unit of a group commit (group-commit.ts): the batch is
  // large, and nothing else may insert while the triggers leave the indexes alone.
  await atomicAlone(
    driver,
    async () => {
      const cacheSize = sqlite.pragma('cache_size', { simple: true }) as number;
      sqlite.pragma(`cache_size = -${BATCH_CACHE_KIB}`);
      try {
        // The write lock is held from `begin immediate`: every row above this rowid is the batch's.
        const last = lastEntityRowid(sqlite);
        deferIndexing(sqlite, true);
        try {
          await insertEntities(db, list);
        } finally {
          deferIndexing(sqlite, false);
        }
        indexEntitiesAfter(sqlite, last, { numberFirstPaths: true });
      } finally {
        sqlite.pragma(`cache_size = ${cacheSize}`);
      }
    },
    'begin immediate',
  );
}
