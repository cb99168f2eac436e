/**
 * `order by PROP [asc|desc]` through the property index (docs/design.md#sorting-through-the-property-index):
 * instead of reading and sorting the whole collection, a page walks the index rows of PROP in
 * value order and stops once it is full. order.ts's order of a JSON property is its type rank
 * first (numbers, strings, booleans, then everything else, in both directions), the value within
 * the rank in the query's direction, then the uuid in that direction; the index
 * (…_property_index.sql) holds `kind` (the rank) and the value of every number, string and
 * boolean, so each of the first three ranks is one walk of its rows, and the entities without a
 * row — missing, null, objects, arrays — are the last rank, read as before.
 *
 * The index keeps strings cut to their first INDEXED_TEXT_LENGTH characters. Cutting keeps the
 * order (x <= y implies cut(x) <= cut(y)), so the walk's order is the query's except among
 * strings whose cut texts are equal and that long: read-in-index-order.ts sorts a page's strings again by the
 * exact order, having read the first page of such a tie in that order (`isLongTie`).
 *
 * An order of several keys (`order by city, score`) walks its first key the same way. The walk
 * then orders entities by that key alone, so read-in-index-order.ts also reads the first page, in
 * the query's order, of the value a page ends in (`tied`) and sorts the page by the exact order of
 * all the keys: whatever belongs on the page has a first value no later than that one, and so has
 * been read.
 *
 * Only the order comes from here: the caller keeps the query's exact condition (cursor included),
 * so the index only decides in which order entities are read, never which ones match.
 */
import { sql, type SQL } from 'drizzle-orm';
import type { Query } from './ast.js';
import { decodeCursor } from './cursor.js';
import type { Dialect, Operand } from './dialect.js';
import { indexedPath, indexedText, propertyLabel, type CollectionScope } from './property-index.js';
import { TYPE_RANK, sortKeys, type SortKey, type SortValue } from './order.js';

/** One rank's walk: the entities joined to their index rows of the path, in the query's order. */
export interface RankWalk {
  readonly rank: number;
  /** The table to join to `entities`, and the join condition: the rows of the path and rank, from the cursor on. */
  readonly join: SQL;
  readonly on: SQL;
  /** The ORDER BY list (without the keywords): the index's value, then its entity uuid. */
  readonly orderBy: SQL;
  /** The index's value column, the number or the cut text. */
  readonly indexed: SQL;
  /** Whether the values are cut texts (strings), which may tie where the entities' texts do not (`isLongTie`). */
  readonly cut: boolean;
  /** The statement giving the value and entity uuid of the walk's `n`th index row (from 1), for bounding a walk (`through`). */
  readonly nth: (n: number) => SQL;
  /** The index rows up to and including the one of `value` and `uuid`, in the walk's order. */
  readonly through: (value: number | string, uuid: string) => SQL;
}

export interface IndexOrder {
  /** How `explain` names the index the order came from: `property PATH`. */
  readonly label: string;
  /** The path as the index and the collection settings name it. */
  readonly path: string;
  /** The walks of the ranks the index holds, in order, from the cursor's rank on. */
  readonly ranks: readonly RankWalk[];
  /** The condition holding for exactly the entities of the last rank (no index row), for reading them as before. */
  readonly lastRank: SQL;
  /** More keys follow the walked one: the walk's ties are in no order the query's keys give, and a page also reads the first page of the value it ends in. */
  readonly tied: boolean;
  /** With more keys: the walk of the next one, for the first page of a value many entities share; null when it cannot be walked. */
  readonly next: NextKeyWalk | null;
}

/**
 * The first page of the entities sharing one value of the walked key, in the query's order: the
 * next key's walk among them. Sorting them all costs as many reads as they are (100,000 people of
 * one city among a million: 273 ms for `order by city, score`); the next key's walk reads about
 * (the collection / those sharing the value) entities per entity of the page.
 */
export interface NextKeyWalk {
  /** The walk of the keys after the first, from their start. */
  readonly order: IndexOrder;
  /** The same from the cursor's entity on, for the value of its first key (`rank`, `value`), when the cursor holds one that is exact. */
  readonly fromCursor: { readonly rank: number; readonly value: number | string; readonly order: IndexOrder } | null;
  /** Whether an entity's index row of the walked key has `value` in rank `rank` (correlated with the entity read). */
  readonly sharing: (rank: number, value: number | string) => SQL;
  /**
   * The same, correlated with the index row a rank's walk joins (RankWalk): tested on that row
   * before its entity is read, so the walk reads only the entities that share the value.
   */
  readonly sharingWalked: (rank: number, value: number | string) => SQL;
  /** The statement counting the entities with that row, up to `upTo`. */
  readonly counting: (rank: number, value: number | string, upTo: number) => SQL;
}

/**
 * The walk of the property index that gives `query`'s order, or null when it cannot: an order
 * whose first key is a JSON property the index holds (uuid, type, created and modified are
 * columns with their own order — docs/api.md#queries-and-paging).
 */
export function indexOrderOf(query: Query, scope: CollectionScope, dialect: Dialect, cursor: string | undefined): IndexOrder | null {
  if (query.orderBy.length === 0) return null;
  const keys = sortKeys(query);
  return orderOfKeys(keys, scope, dialect, cursor === undefined ? undefined : decodeCursor(cursor, keys));
}

/** indexOrderOf for the sort keys `keys` (the last is the uuid), from the cursor's sort values `after`. */
function orderOfKeys(keys: readonly SortKey[], scope: CollectionScope, dialect: Dialect, after: readonly SortValue[] | undefined): IndexOrder | null {
  const [key] = keys;
  if (key.source.kind !== 'json') return null;
  const path = indexedPath(key.property);
  if (path === null) return null;
  // `order by age, uuid` is walked exactly as `order by age`: its ties are in uuid order.
  const tied = keys.length > 2 || keys[1].direction !== key.direction;
  const [rank, value] = after === undefined ? [TYPE_RANK.number, null] : (after[0] as readonly [number, number | string | null]);
  // With more keys the cursor's entity may be followed by others of its first value, in any uuid order.
  const from = value === null ? undefined : tied ? { value } : { value, uuid: after!.at(-1) as string };
  const ranks = [TYPE_RANK.number, TYPE_RANK.string, TYPE_RANK.boolean]
    .filter((walked) => walked >= rank)
    .map((walked) => rankWalk(scope, path, key, dialect, walked, walked === rank ? from : undefined));
  return {
    label: propertyLabel(path),
    path,
    ranks,
    lastRank: sql`${dialect.jsonSortRank(key.source.path)} = ${sql.raw(String(TYPE_RANK.none))}`,
    tied,
    next: tied ? nextKeyWalk(keys, path, scope, dialect, after) : null,
  };
}

/** The walk of the keys after the first among the entities sharing a value of the first (NextKeyWalk), or null. */
function nextKeyWalk(
  keys: readonly SortKey[],
  path: string,
  scope: CollectionScope,
  dialect: Dialect,
  after: readonly SortValue[] | undefined,
): NextKeyWalk | null {
  const rest = keys.slice(1);
  const order = orderOfKeys(rest, scope, dialect, undefined);
  if (order === null) return null;
  // The cursor's entity bounds the walk only among entities of exactly its first value: a cut
  // text as long as the index keeps is shared by longer texts, before and after it.
  const [rank, value] = (after?.[0] ?? [TYPE_RANK.none, null]) as readonly [number, number | string | null];
  const exact = value !== null && !(typeof value === 'string' && isLongTie(indexedText(value)));
  const rows = (rank: number, value: number | string, table = INDEX): SQL =>
    sql`${rankRows(scope, path, dialect, rank, table)} AND ${dialect.compare(dialect.indexColumn(rank === TYPE_RANK.string ? 'text' : 'number', table), '=', value)}`;
  return {
    order,
    fromCursor: exact
      ? { rank, value: typeof value === 'string' ? indexedText(value) : value, order: orderOfKeys(rest, scope, dialect, after!.slice(1))! }
      : null,
    // The entity's own row, by the whole key of the index: a lookup per entity walked.
    sharing: (rank, value) => dialect.testedPerRow(sql`SELECT 1 FROM ${INDEX} WHERE ${rows(rank, value)} AND ${INDEX}.entity_uuid = ${scope.uuid}`),
    sharingWalked: (rank, value) =>
      dialect.testedPerRow(sql`SELECT 1 FROM ${INDEX} AS ${SHARED} WHERE ${rows(rank, value, SHARED)} AND ${SHARED}.entity_uuid = ${INDEX}.entity_uuid`),
    counting: (rank, value, upTo) => sql`SELECT count(*) FROM (SELECT 1 FROM ${INDEX} WHERE ${rows(rank, value)} LIMIT ${upTo}) AS sharing`,
  };
}

/** The index rows of one path and type rank of the collection, of the index under the name `table`. */
function rankRows(scope: CollectionScope, path: string, dialect: Dialect, rank: number, table = INDEX): SQL {
  return sql`${dialect.indexRowsOf(scope.appUuid, scope.collection, path, table)} AND ${dialect.indexRank(rank, table)}`;
}

/** Whether a cut text is as long as the index keeps: longer texts may cut to it too, ordered by what follows. */
export function isLongTie(text: string): boolean {
  return indexedText(`${text}x`) === text;
}

function rankWalk(
  scope: CollectionScope,
  path: string,
  key: SortKey,
  dialect: Dialect,
  rank: number,
  after?: { value: number | string; uuid?: string },
): RankWalk {
  const values = dialect.indexColumn(rank === TYPE_RANK.string ? 'text' : 'number');
  const uuid = dialect.indexColumn('uuid');
  const rows = sql`${rankRows(scope, path, dialect, rank)} AND ${values.sql} IS NOT NULL`;
  // A row's application and collection are its entity's (the triggers write them together), so
  // the entity is looked up by its uuid alone: the only way into `entities` the plan is offered.
  const entity = sql`${INDEX}.entity_uuid = ${scope.uuid}`;
  const bound = after === undefined ? null : boundAfter(values, uuid, key, dialect, after);
  const orderBy = sql`${dialect.orderTerm(values, key.direction, false)}, ${dialect.orderTerm(uuid, key.direction, false)}`;
  const walked = bound === null ? rows : sql`${rows} AND ${bound}`;
  return {
    rank,
    join: sql`${INDEX}`,
    on: sql`${walked} AND ${entity}`,
    orderBy,
    indexed: values.sql,
    cut: rank === TYPE_RANK.string,
    nth: (n) => sql`SELECT ${values.sql}, ${uuid.sql} FROM ${INDEX} WHERE ${walked} ORDER BY ${orderBy} LIMIT 1 OFFSET ${n - 1}`,
    through: (value, last) => sql`(${values.sql}, ${uuid.sql}) ${sql.raw(key.direction === 'asc' ? '<=' : '>=')} (${value}, ${last})`,
  };
}

/**
 * The index rows after the cursor's (value, uuid): one row-value comparison, a range the index
 * serves, so a page deep into many entities of one value starts where the last one ended. A
 * number or boolean is held exactly, and so is a string shorter than the cut; a longer one only
 * bounds the range by its cut text, as does a cursor holding a NUL, which PostgreSQL cannot take
 * as text (dialect.ts compares with it exactly), or one of an order of several keys, whose ties
 * are not in uuid order — the exact condition decides within.
 */
function boundAfter(values: Operand, uuid: Operand, key: SortKey, dialect: Dialect, after: { value: number | string; uuid?: string }): SQL {
  // The cursor holds the folded text (order.ts).
  const value = typeof after.value === 'string' ? indexedText(after.value) : after.value;
  const from = key.direction === 'asc' ? '>=' : '<=';
  if (after.uuid === undefined || (typeof value === 'string' && (isLongTie(value) || value.includes(NUL))) || after.uuid.includes(NUL)) {
    return dialect.compare(values, from, value);
  }
  return sql`(${values.sql}, ${uuid.sql}) ${sql.raw(key.direction === 'asc' ? '>' : '<')} (${value}, ${after.uuid})`;
}

const NUL = '\u0000';
const INDEX = sql.identifier('entity_values');
const SHARED = sql.identifier('shared');
