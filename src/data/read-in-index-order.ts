/**
 * Reads a page of a collection in an order whose first key is a property by walking the property index
 * (query/index-order.ts, docs/design.md#sorting-through-the-property-index) instead of reading
 * and sorting the whole collection: `order by score asc` at 100,000 entities took 87 ms sorted
 * and takes 1.0 ms walked on SQLite, 312 ms and 1.4 ms on PostgreSQL (docs/benchmarks.md). The
 * ranks the index holds (numbers, strings, booleans) are walked one after the other, each joined
 * to its entities, with the query's exact condition, until the page is full; the entities of
 * the last rank (no value of those types) are then read as the collection was before.
 */
import { and, getTableColumns, sql, type SQL } from 'drizzle-orm';
import type { EntityRow, Guard } from '../db/entity-store.js';
import type { Statement } from '../db/explain.js';
import { type Tx, schemaOf } from '../db/open.js';
import { row, sqlOf } from '../db/run.js';
import { isLongTie, type IndexOrder, type RankWalk } from './query/index-order.js';

export interface IndexOrderRead {
  readonly order: IndexOrder;
  /** The query's exact order of two entities (evaluate.ts `compareEntities`). */
  readonly compare: (a: EntityRow, b: EntityRow) => number;
  /** The query's exact condition, cursor included (compile.ts `where`). */
  readonly where: SQL;
  /** The query's ORDER BY (compile.ts `orderBy`), for the last rank and for the first page of a tie (readRank). */
  readonly orderBy: SQL;
  /** The collection's condition, for the last rank. */
  readonly collection: SQL | undefined;
  /** How many entities to read. */
  readonly count: number;
  /** explain.ts `countingRows` condition, when explaining. */
  readonly counting: SQL | undefined;
  /** With `explain`: where each statement run is added (rendered only then, as rendering costs as much as running). */
  readonly ran: Statement[] | undefined;
  /** How many entities sharing a value of the walked key make walking the next key among them worth it; SHARED_BY_MANY by default. */
  readonly sharedByMany?: number;
}

export async function readInIndexOrder(tx: Tx, read: IndexOrderRead, guard: Guard): Promise<EntityRow[]> {
  const { entities } = schemaOf(tx);
  const rows: EntityRow[] = [];
  for (const walk of read.order.ranks) {
    const wanted = read.count - rows.length;
    if (wanted <= 0) return rows;
    rows.push(...(await readRank(tx, read, walk, wanted, guard)));
  }
  const wanted = read.count - rows.length;
  if (wanted <= 0) return rows;
  const last = tx
    .select(getTableColumns(entities))
    .from(entities)
    .where(and(read.counting, read.collection, guard(sql`(${read.where} AND ${read.order.lastRank})`)))
    .orderBy(read.orderBy)
    .limit(wanted);
  read.ran?.push(last.toSQL());
  rows.push(...(await last));
  return rows;
}

/**
 * The first `wanted` entities of one rank in the query's order. Strings are sorted again by the
 * exact order (the index orders them by their cut text, then uuid), after reading the first
 * `wanted` in the exact order of a tie of long texts that the page ends in, since they may belong
 * before the ones read; so is every page of an order of several keys, with the first `wanted` of
 * the value it ends in (index-order.ts `tied`). A tie comes after every value before it in the
 * exact order too, as cutting keeps order, so no more of it can be on the page.
 */
async function readRank(tx: Tx, read: IndexOrderRead, walk: RankWalk, wanted: number, guard: Guard): Promise<EntityRow[]> {
  const { entities } = schemaOf(tx);
  const select = (tie?: SQL) => {
    const statement = tx
      .select({ ...getTableColumns(entities), indexed: sql<string | number>`${walk.indexed}` })
      .from(entities)
      .innerJoin(walk.join, walk.on)
      .where(and(read.counting, guard(read.where), tie))
      .orderBy(tie === undefined ? walk.orderBy : read.orderBy)
      .limit(wanted);
    read.ran?.push(statement.toSQL());
    return statement;
  };
  const rows = await select();
  if (!walk.cut && !read.order.tied) return rows.map(withoutIndexed);
  const page = rows.map(withoutIndexed);
  const last = rows.at(-1);
  if (rows.length === wanted && last !== undefined && (read.order.tied || isLongTie(String(last.indexed)))) {
    const seen = new Set(rows.map((row) => row.uuid));
    // A long text's tie may hold texts that differ after the cut, which the next key does not order.
    const longTie = walk.cut && isLongTie(String(last.indexed));
    const tie =
      (longTie ? undefined : await readSharingByNextKey(tx, read, walk.rank, last.indexed, wanted, guard)) ??
      (await select(sql`${walk.indexed} = ${last.indexed}`)).map(withoutIndexed);
    page.push(...tie.filter((row) => !seen.has(row.uuid)));
  }
  return page.sort(read.compare).slice(0, wanted);
}

/**
 * Entities sharing one value of the walked key at least this many are read by walking the next
 * key among them (index-order.ts NextKeyWalk) rather than all read and sorted. Sorting costs about
 * 1.5 µs per entity sharing the value, the walk about 2.6 µs per entity of the next key it passes,
 * (the collection / those sharing) per entity of the page: for the first 11 of one value among a
 * million on SQLite, 250 sharing it took 1.4 ms sorted and 114 ms walked, 4,000 6.4 and 5.9 ms,
 * 16,000 24 and 2.0 ms (docs/design.md#sorting-through-the-property-index).
 */
const SHARED_BY_MANY = 4000;

/**
 * The first `wanted` entities whose walked key's index value is `value` (of `rank`), in the order
 * of the keys after it, by walking the next key among them; undefined when fewer than
 * `sharedByMany` share it, or the next key cannot be walked: they are then read and sorted.
 */
async function readSharingByNextKey(
  tx: Tx,
  read: IndexOrderRead,
  rank: number,
  value: string | number,
  wanted: number,
  guard: Guard,
): Promise<EntityRow[] | undefined> {
  const { next } = read.order;
  if (next === null) return undefined;
  const many = read.sharedByMany ?? SHARED_BY_MANY;
  const counting = next.counting(rank, value, many);
  read.ran?.push(sqlOf(tx, counting));
  const [sharing] = (await row<[number]>(tx, counting))!;
  if (Number(sharing) < many) return undefined;
  // From the cursor's entity on when the cursor is within this value.
  const order = next.fromCursor?.rank === rank && next.fromCursor.value === value ? next.fromCursor.order : next.order;
  const among = next.sharing(rank, value);
  return await readInIndexOrder(
    tx,
    {
      ...read,
      order,
      where: sql`(${read.where} AND ${among})`,
      collection: and(read.collection, among),
      count: wanted,
    },
    guard,
  );
}

function withoutIndexed({ indexed: _indexed, ...row }: EntityRow & { indexed: unknown }): EntityRow {
  return row;
}
