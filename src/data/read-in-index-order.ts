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
  /** The same for the ranks' walks, where it can test their index rows (NextKeyWalk `sharingWalked`); `where` when undefined. */
  readonly walkedWhere?: SQL;
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
  /** How many index rows a walk among fewer may pass (`walkBudget` by default; undefined: not walked). */
  readonly walkBudget?: (sharing: number, wanted: number) => number | undefined;
}

export async function readInIndexOrder(tx: Tx, read: IndexOrderRead, guard: Guard): Promise<EntityRow[]> {
  return (await readWithin(tx, read, guard, undefined))!;
}

/**
 * readInIndexOrder, each rank's walk passing at most `budget` index rows when one is given;
 * undefined when a rank holds more and its first `budget` rows do not fill the page.
 */
async function readWithin(tx: Tx, read: IndexOrderRead, guard: Guard, budget: number | undefined): Promise<EntityRow[] | undefined> {
  const { entities } = schemaOf(tx);
  const rows: EntityRow[] = [];
  for (const walk of read.order.ranks) {
    const wanted = read.count - rows.length;
    if (wanted <= 0) return rows;
    const bound = budget === undefined ? undefined : await boundOf(tx, read, walk, budget);
    const ranked = await readRank(tx, read, walk, wanted, guard, bound);
    if (ranked === undefined) return undefined;
    rows.push(...ranked);
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

/** The condition keeping a rank's walk to its first `budget` index rows; undefined when the rank holds no more. */
async function boundOf(tx: Tx, read: IndexOrderRead, walk: RankWalk, budget: number): Promise<SQL | undefined> {
  const nth = walk.nth(budget);
  read.ran?.push(sqlOf(tx, nth));
  const last = await row<[number | string, string]>(tx, nth);
  return last === undefined ? undefined : walk.through(...last);
}

/**
 * The first `wanted` entities of one rank in the query's order. Strings are sorted again by the
 * exact order (the index orders them by their cut text, then uuid), after reading the first
 * `wanted` in the exact order of a tie of long texts that the page ends in, since they may belong
 * before the ones read; so is every page of an order of several keys, with the first `wanted` of
 * the value it ends in (index-order.ts `tied`). A tie comes after every value before it in the
 * exact order too, as cutting keeps order, so no more of it can be on the page. With `bound` (a
 * walk within a budget, boundOf): undefined when the rows within it do not fill the page.
 */
async function readRank(tx: Tx, read: IndexOrderRead, walk: RankWalk, wanted: number, guard: Guard, bound: SQL | undefined): Promise<EntityRow[] | undefined> {
  const { entities } = schemaOf(tx);
  const select = (tie?: SQL) => {
    const statement = tx
      .select({ ...getTableColumns(entities), indexed: sql<string | number>`${walk.indexed}` })
      .from(entities)
      .innerJoin(walk.join, walk.on)
      .where(and(read.counting, guard(read.walkedWhere ?? read.where), tie ?? bound))
      .orderBy(tie === undefined ? walk.orderBy : read.orderBy)
      .limit(wanted);
    read.ran?.push(statement.toSQL());
    return statement;
  };
  const rows = await select();
  if (bound !== undefined && rows.length < wanted) return undefined;
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
 * Fewer share it, but at least this many: the next key is walked first within a budget
 * (`walkBudget`), and they are read and sorted only when it does not fill the page. Which way is
 * cheaper depends on the collection's size, which nothing counts cheaply: the 1,000 people of a
 * city among 10,000 are found in a walk of about 110 index rows, among 100,000 of about 1,100.
 */
const SHARED_BY_SOME = 1000;

/**
 * Index rows of the next key a walk may pass per entity sharing the value: a walk that fails
 * costs about half the sort that follows it. At 100,000 people on SQLite (on PostgreSQL), a page
 * of `order by group, score`, 2,000 to a group, took 8.5–9.5 ms sorted and 3.6–3.9 walked (28–31
 * and 10–11); of `order by squad, score`, 1,000 to a squad, whose walk would pass 1,100 rows,
 * 6.6–6.8 sorted and 7.1 with the failed walk before it (17–21 and 25)
 * (docs/benchmarks.md#orders-of-several-keys).
 */
const WALKED_PER_SHARING = 0.5;

/** How many index rows the walk among `sharing` entities may pass to find `wanted`; undefined when it is not tried. */
function walkBudget(sharing: number, wanted: number): number | undefined {
  const budget = Math.round(sharing * WALKED_PER_SHARING);
  return sharing >= SHARED_BY_SOME && budget >= wanted ? budget : undefined;
}

/**
 * The first `wanted` entities whose walked key's index value is `value` (of `rank`), in the order
 * of the keys after it, by walking the next key among them; undefined when fewer than
 * `sharedByMany` share it and a walk within the budget does not find them, or the next key
 * cannot be walked: they are then read and sorted.
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
  const sharing = Number((await row<[number]>(tx, counting))![0]);
  const budget = sharing >= many ? undefined : (read.walkBudget ?? walkBudget)(sharing, wanted);
  if (sharing < many && budget === undefined) return undefined;
  // From the cursor's entity on when the cursor is within this value.
  const order = next.fromCursor?.rank === rank && next.fromCursor.value === value ? next.fromCursor.order : next.order;
  const among = next.sharing(rank, value);
  return await readWithin(
    tx,
    {
      ...read,
      order,
      where: sql`(${read.where} AND ${among})`,
      walkedWhere: sql`(${read.walkedWhere ?? read.where} AND ${next.sharingWalked(rank, value)})`,
      collection: and(read.collection, among),
      count: wanted,
    },
    guard,
    budget,
  );
}

function withoutIndexed({ indexed: _indexed, ...row }: EntityRow & { indexed: unknown }): EntityRow {
  return row;
}
