/**
 * The property index's backfill (docs/design.md#filling-the-index-of-an-older-database): the
 * entities stored before the property index existed get their `entity_values` rows after
 * start-up, a batch at a time in uuid order, while the triggers index every new write. The one
 * row of `property_index_backfill` (migrations/…_property_index_backfill.sql) holds how far it
 * got and which instance holds the lease to go on; this module only reads and writes it. Until it
 * is done, queries do not trust the index (data/find.ts). Also the paths a collection's settings
 * leave out of the index.
 */
import { and, asc, eq, sql, type SQL } from 'drizzle-orm';
import { clientOf, dialectOf, remembered, type Db, type Tx, schemaOf } from './open.js';
import { noteEntitiesWritten } from './planner-statistics.js';
import { execute, row } from './run.js';
import { NUMBERING_PATHS_WHERE } from './group-indexing.js';
import { elementsPath } from '../data/query/property-index.js';

const STATE = sql.identifier('property_index_backfill');

/** Databases whose backfill is done: it never becomes undone, so each is read until then only. */
const complete = new WeakSet<object>();

/** Whether every stored entity has its property index rows. */
export async function isPropertyIndexComplete(tx: Tx): Promise<boolean> {
  const driver = clientOf(tx);
  if (complete.has(driver)) return true;
  const state = await row<[number]>(tx, sql`SELECT done FROM ${STATE} WHERE id = 1`);
  const done = state === undefined || Number(state[0]) === 1;
  if (done) complete.add(driver);
  return done;
}

export interface BackfillPosition {
  /** Entities indexed so far, over every run. */
  readonly indexed: number;
  /** Entities still to index, counted when the lease was taken. */
  readonly remaining: number;
}

/**
 * Takes the backfill's lease for `owner` until `now + leaseMs` when nobody holds it or its
 * holder's ran out (it stopped, or died), and says where it stands; null when the backfill is
 * done or another instance holds it.
 */
export async function leasePropertyIndexBackfill(db: Db, owner: string, now: number, leaseMs: number): Promise<BackfillPosition | null> {
  const leased = await execute(
    db,
    sql`UPDATE ${STATE} SET lease_owner = ${owner}, lease_until = ${now + leaseMs}
        WHERE id = 1 AND done = 0 AND (lease_owner IS NULL OR lease_owner = ${owner} OR lease_until < ${now})`,
  );
  if (leased !== 1) return null;
  const [after, indexed] = (await row<[string | null, number]>(db, sql`SELECT after_uuid, indexed FROM ${STATE} WHERE id = 1`)) ?? [null, 0];
  const [remaining] = (await row<[number]>(db, sql`SELECT count(*) FROM entities WHERE uuid > ${after ?? ''}`)) ?? [0];
  return { indexed: Number(indexed), remaining: Number(remaining) };
}

/** Gives the lease up, so another instance (or this one, restarted) goes on at once. */
export async function releasePropertyIndexBackfill(db: Db, owner: string): Promise<void> {
  await execute(db, sql`UPDATE ${STATE} SET lease_owner = NULL, lease_until = NULL WHERE id = 1 AND lease_owner = ${owner}`);
}

export type BackfillStep =
  { readonly state: 'indexed'; readonly entities: number; readonly indexed: number } | { readonly state: 'done' } | { readonly state: 'lost' };

/**
 * Indexes the next `batchSize` entities after the stored position in one transaction, moves the
 * position past them and renews the lease; `done` once no entity is left, `lost` when `owner` no
 * longer holds the lease. Rows an entity already has (written by its triggers since) are kept: a
 * row is what the entity's properties give, whoever writes it, so running a batch twice, or
 * beside a write of one of its entities, leaves the same rows (PostgreSQL runs the transaction
 * serializable, and again when a concurrent write conflicts: db/postgres.ts).
 */
export async function indexNextEntities(db: Db, owner: string, batchSize: number, now: number, leaseMs: number): Promise<BackfillStep> {
  return await db.transaction(async (tx) => {
    const state = await row<[string | null]>(tx, sql`SELECT after_uuid FROM ${STATE} WHERE id = 1 AND done = 0 AND lease_owner = ${owner}`);
    if (state === undefined) return { state: 'lost' as const };
    const after = state[0] ?? '';
    const [count, last] = (await row<[number, string | null]>(
      tx,
      sql`SELECT count(*), max(b.uuid) FROM (SELECT uuid FROM entities WHERE uuid > ${after} ORDER BY uuid LIMIT ${batchSize}) AS b`,
    )) ?? [0, null];
    if (last === null) {
      await execute(tx, sql`UPDATE ${STATE} SET done = 1, lease_owner = NULL, lease_until = NULL WHERE id = 1`);
      return { state: 'done' as const };
    }
    await writeIndexRows(tx, { postgres: sql`e.uuid > ${after} AND e.uuid <= ${last}`, sqlite: sql`entity_uuid > ${after} AND entity_uuid <= ${last}` });
    const entities = Number(count);
    noteEntitiesWritten(tx, entities);
    const [indexed] = (await row<[number]>(
      tx,
      sql`UPDATE ${STATE} SET after_uuid = ${last}, indexed = indexed + ${entities}, lease_until = ${now + leaseMs} WHERE id = 1 RETURNING indexed`,
    )) ?? [0];
    return { state: 'indexed' as const, entities, indexed: Number(indexed) };
  });
}

/**
 * Writes the property index rows the triggers write, of the entities and paths `which` selects:
 * on PostgreSQL a condition on `entities e` and `idp_entity_values(…) v`, on SQLite on
 * `entity_values_source`, where the rows' paths are numbered first and the rows then name them
 * by number (migrations/sqlite/…_property_index_compact_keys.sql).
 */
async function writeIndexRows(tx: Tx, which: { readonly postgres: SQL; readonly sqlite: SQL }): Promise<void> {
  if (dialectOf(tx) === 'postgres') {
    await execute(
      tx,
      sql`INSERT INTO entity_values SELECT v.* FROM entities e, idp_entity_values(e.uuid, e.app_uuid, e.collection, e.properties) v
          WHERE ${which.postgres} FOR KEY SHARE OF e ON CONFLICT DO NOTHING`,
    );
    return;
  }
  await execute(tx, sql`${sql.raw(NUMBERING_PATHS_WHERE)} ${which.sqlite}`);
  await execute(tx, sql`INSERT OR IGNORE INTO entity_values SELECT path_id, kind, value, entity_uuid FROM entity_values_source WHERE ${which.sqlite}`);
}

/**
 * The property paths a collection leaves out of the index (docs/api.md#collection-settings),
 * remembered until they change (read-cache.ts).
 */
export function findUnindexedPaths(tx: Tx, appUuid: string, collection: string): Promise<readonly string[]> {
  const { unindexedPaths } = schemaOf(tx);
  return remembered(tx, `unindexed:${appUuid}:${collection}`, [unindexedPaths], async () => {
    const rows = await tx
      .select({ path: unindexedPaths.path })
      .from(unindexedPaths)
      .where(and(eq(unindexedPaths.appUuid, appUuid), eq(unindexedPaths.collection, collection)))
      .orderBy(asc(unindexedPaths.path));
    return rows.map((row) => row.path);
  });
}

/**
 * Makes `paths` the collection's unindexed paths, in the caller's transaction: the index rows of
 * a path newly left out are deleted, those of a path taken back in are written from the
 * collection's entities (the triggers read the table from then on).
 */
export async function replaceUnindexedPaths(tx: Tx, appUuid: string, collection: string, paths: readonly string[]): Promise<void> {
  const { unindexedPaths } = schemaOf(tx);
  const current = await findUnindexedPaths(tx, appUuid, collection);
  const leftOut = paths.filter((path) => !current.includes(path));
  const takenBack = current.filter((path) => !paths.includes(path));
  const scope = and(eq(unindexedPaths.appUuid, appUuid), eq(unindexedPaths.collection, collection));
  for (const path of leftOut) {
    await execute(
      tx,
      dialectOf(tx) === 'postgres'
        ? sql`DELETE FROM entity_values WHERE app_uuid = ${appUuid} AND collection = ${collection} AND ${underPath(path)}`
        : sql`DELETE FROM entity_values WHERE path_id IN (SELECT id FROM entity_value_paths WHERE app_uuid = ${appUuid} AND collection = ${collection} AND ${underPath(path)})`,
    );
    await tx.insert(unindexedPaths).values({ appUuid, collection, path });
  }
  for (const path of takenBack) {
    await tx.delete(unindexedPaths).where(and(scope, eq(unindexedPaths.path, path)));
    await writeIndexRows(tx, {
      postgres: sql`e.app_uuid = ${appUuid} AND e.collection = ${collection} AND ${underPath(path)}`,
      sqlite: sql`app_uuid = ${appUuid} AND collection = ${collection} AND ${underPath(path)}`,
    });
  }
}

/**
 * `path` is the given one, its array's elements (`path[]`, property-index.ts `elementsPath`) or
 * below it (paths are ASCII identifiers joined by dots).
 */
function underPath(path: string) {
  return sql`(path = ${path} OR path = ${elementsPath(path)} OR substr(path, 1, ${sql.raw(String(path.length + 1))}) = ${`${path}.`})`;
}
