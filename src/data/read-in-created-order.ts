/**
 * Reads a page of a collection in created order (the default order, newest first, or `order by
 * created`) through an index that keeps each candidate's `created`: the word index
 * (docs/design.md#the-word-index), or the entities' own for a comparison of `modified`
 * (property-index.ts columnCandidates). The candidates are put in the query's order — created, then
 * uuid — from the index's rows alone, and their entities are read in that order, a batch at a
 * time, only until the page is full of entities that pass the exact condition. Every match is a
 * candidate and the index holds the entity's own `created` (its triggers), so the entities read
 * are the first of the query's answer, whatever the batches.
 *
 * `about contains 'tag777'` among a million people (1,000 candidates) read 11,223 entities newest
 * first (15 ms median in `bench query`), or would read all 1,000 candidates and sort them (about
 * 12 ms); ordering the candidates first (0.7 ms) reads 11: 3.0 ms
 * (docs/benchmarks.md#contains-in-created-order). On PostgreSQL, which read and sorted the 1,000
 * candidates, 19–22 → 2.6–4.5 ms as statements side by side
 * (docs/benchmarks.md#within-and-contains-on-postgresql).
 */
import { and, getTableColumns, inArray, sql, type SQL } from 'drizzle-orm';
import type { EntityRow, Guard } from '../db/entity-store.js';
import type { Statement } from '../db/explain.js';
import { type Tx, schemaOf } from '../db/open.js';
import { rows } from '../db/run.js';
import type { CreatedCandidates, CreatedOrder } from './query/compile.js';

export interface CreatedOrderRead {
  readonly candidates: CreatedCandidates;
  readonly order: CreatedOrder;
  /** The query's exact condition, cursor included (compile.ts `where`). */
  readonly where: SQL;
  /** The query's ORDER BY (compile.ts `orderBy`): a batch's entities are sorted by it. */
  readonly orderBy: SQL;
  /** How many entities to read. */
  readonly count: number;
  /** explain.ts `countingRows` condition, when explaining. */
  readonly counting: SQL | undefined;
  /** With `explain`: where each statement reading entities is added. */
  readonly ran: Statement[] | undefined;
}

/** Candidates per batch at most: each is a parameter of the batch's read of entities. */
const LARGEST_BATCH = 1000;
/** How much larger each batch is than the one before, when the one before left the page short. */
const GROWTH = 4;

export async function readInCreatedOrder(tx: Tx, read: CreatedOrderRead, guard: Guard): Promise<EntityRow[]> {
  const { entities } = schemaOf(tx);
  const found: EntityRow[] = [];
  let after = read.order.after;
  let batch = Math.min(read.count, LARGEST_BATCH);
  for (;;) {
    const keys = await candidatesAfter(tx, read, after, batch);
    if (keys.length === 0) return found;
    const select = tx
      .select(getTableColumns(entities))
      .from(entities)
      .where(
        and(
          read.counting,
          read.candidates.collection,
          inArray(
            entities.uuid,
            keys.map((key) => key.uuid),
          ),
          guard(read.where),
        ),
      )
      .orderBy(read.orderBy);
    read.ran?.push(select.toSQL());
    found.push(...(await select).slice(0, read.count - found.length));
    if (found.length >= read.count || keys.length < batch) return found;
    after = keys[keys.length - 1];
    batch = Math.min(batch * GROWTH, LARGEST_BATCH);
  }
}

/** The next `batch` candidates after `after`, in the query's order, from the index's rows alone. */
async function candidatesAfter(tx: Tx, read: CreatedOrderRead, after: CreatedOrder['after'], batch: number): Promise<{ created: number; uuid: string }[]> {
  const direction = sql.raw(read.order.direction === 'asc' ? 'ASC' : 'DESC');
  const beyond =
    after === null ? sql`` : sql` WHERE (c.created, c.entity_uuid) ${sql.raw(read.order.direction === 'asc' ? '>' : '<')} (${after.created}, ${after.uuid})`;
  const keys = await rows<[number, string]>(
    tx,
    sql`SELECT c.created, c.entity_uuid FROM (${read.candidates.candidates}) AS c${beyond} ORDER BY c.created ${direction}, c.entity_uuid ${direction} LIMIT ${batch}`,
  );
  return keys.map(([created, uuid]) => ({ created, uuid }));
}
