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
import { TYPE_RANK, sortKeys, type SortKey } from './order.js';

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
}

/**
 * The walk of the property index that gives `query`'s order, or null when it cannot: an order
 * whose first key is a JSON property the index holds (uuid, type, created and modified are
 * columns with their own order — docs/api.md#queries-and-paging).
 */
export function indexOrderOf(query: Query, scope: CollectionScope, dialect: Dialect, cursor: string | undefined): IndexOrder | null {
  if (query.orderBy.length === 0) return null;
  const keys = sortKeys(query);
  const [key] = keys;
  if (key.source.kind !== 'json') return null;
  const path = indexedPath(key.property);
  if (path === null) return null;
  // `order by age, uuid` is walked exactly as `order by age`: its ties are in uuid order.
  const tied = keys.length > 2 || keys[1].direction !== key.direction;
  const after = cursor === undefined ? undefined : decodeCursor(cursor, keys);
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
  };
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
  const rows = sql`${INDEX}.app_uuid = ${scope.appUuid} AND ${INDEX}.collection = ${scope.collection} AND ${INDEX}.path = ${path} AND ${INDEX}.kind = ${sql.raw(String(rank))} AND ${values.sql} IS NOT NULL`;
  // A row's application and collection are its entity's (the triggers write them together), so
  // the entity is looked up by its uuid alone: the only way into `entities` the plan is offered.
  const entity = sql`${INDEX}.entity_uuid = ${scope.uuid}`;
  const bound = after === undefined ? null : boundAfter(values, uuid, key, dialect, after);
  return {
    rank,
    join: sql`${INDEX}`,
    on: bound === null ? sql`${rows} AND ${entity}` : sql`${rows} AND ${bound} AND ${entity}`,
    orderBy: sql`${dialect.orderTerm(values, key.direction, false)}, ${dialect.orderTerm(uuid, key.direction, false)}`,
    indexed: values.sql,
    cut: rank === TYPE_RANK.string,
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
