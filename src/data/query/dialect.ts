/**
 * The SQL each database needs for the query compiler's primitives. compile.ts builds the
 * structure (boolean logic, type guards, keyset conditions) once; a dialect says how to read a
 * column or a JSON property, compare, order, fold case, and call the string and geo functions.
 *
 * Both dialects give the answers of the in-memory reference (evaluate.ts, order.ts) — the
 * property tests in test/query/ run every generated query on both databases and compare.
 *
 * Every user value is a bound parameter. `sql.raw` only receives the fixed text below and, on
 * PostgreSQL, property paths, which the grammar limits to identifiers (checked again here).
 */
import { sql, type Name, type SQL } from 'drizzle-orm';
import type { ComparisonOperator, Direction } from './ast.js';
import { splitWords } from './functions.js';
import { TYPE_RANK } from './order.js';
import type { ColumnName, ValueType } from './properties.js';

export type DialectName = 'sqlite' | 'postgres';

/**
 * An SQL expression and what it yields: a double, an integer (a column or a rank; PostgreSQL
 * compares those with integers so their indexes apply), or text, compared by code point.
 */
export interface Operand {
  readonly sql: SQL;
  readonly type: 'number' | 'integer' | 'text';
}

/** A rectangle of latitudes and longitudes in degrees, south <= north and west <= east (location-index.ts). */
export interface LocationBox {
  readonly south: number;
  readonly north: number;
  readonly west: number;
  readonly east: number;
}

/** What the word index is asked (word-index.ts): entities with every token of `all` (the last perhaps as a prefix), or with `any`. */
export interface WordLookup {
  readonly all: readonly string[];
  readonly lastIsPrefix: boolean;
  readonly any: string;
}

/** One ORDER BY expression of a JSON property's value: the numbers (1/0 for booleans), the folded strings, or both. */
export interface SortValueColumn {
  readonly operand: Operand;
  readonly holds: 'number' | 'string' | 'any';
}

export interface Dialect {
  readonly true: SQL;
  readonly false: SQL;
  column(name: ColumnName): Operand;
  /** True when the JSON property at `path` holds a value of `type`; never NULL, so `NOT` works. */
  jsonTypeIs(path: readonly string[], type: ValueType): SQL;
  /**
   * The JSON property as a value of `type`: a double (see `number` below), the text, or 1/0 for
   * true/false. Only meaningful where `jsonTypeIs(path, type)` holds, and never an error where
   * it does not (PostgreSQL does not promise to evaluate the guard first).
   *
   * Numbers are doubles: JSON integers beyond 2^53 are exact 64-bit integers in SQLite (and
   * exact numerics in jsonb) but doubles in JavaScript; comparing them as doubles keeps SQL, the
   * reference evaluator and cursors (which carry JavaScript numbers) in agreement, so paging
   * always advances.
   */
  jsonValue(path: readonly string[], type: ValueType): Operand;
  /**
   * True when the JSON property at `path` is an array with an element of `type` for which `test`
   * holds of the element as a value of that type (as `jsonValue` gives it); never NULL. Arrays
   * are compared by element (evaluate.ts `someValue`).
   */
  jsonElement(path: readonly string[], type: ValueType, test: (element: Operand) => SQL): SQL;
  /**
   * A condition implied by "the property at `path` equals `value`" that an index can serve, to
   * be ANDed with the exact test; null when the dialect has none.
   */
  jsonEquals(path: readonly string[], value: number | boolean): SQL | null;
  /** The sort rank of the JSON property's type (order.ts `TYPE_RANK`). */
  jsonSortRank(path: readonly string[]): SQL;
  /** The JSON property's value within its rank: the number, the folded text, 1/0 — NULL in ranks a column does not hold. */
  jsonSortValues(path: readonly string[]): readonly SortValueColumn[];
  /** `left operator right` with the reference's semantics (evaluate.ts `compareTyped`). */
  compare(left: Operand, operator: ComparisonOperator, right: number | string): SQL;
  /** One ORDER BY term; `nullable` when the expression can be NULL (NULL sorts first ascending, as in SQLite). */
  orderTerm(operand: Operand, direction: Direction, nullable: boolean): SQL;
  /** Case folding identical to functions.ts `foldCase`. */
  fold(text: Operand): Operand;
  /** functions.ts `hasPrefix`; `prefix` is already folded. */
  hasPrefix(text: Operand, prefix: string): SQL;
  /** functions.ts `containsWords` on the unfolded text. */
  contains(text: Operand, term: string, prefix: boolean): SQL;
  /** functions.ts `distanceMeters` from the point (latitude, longitude). */
  distance(latitude: Operand, longitude: Operand, toLatitude: number, toLongitude: number): Operand;
  /**
   * A cheap condition implied by "`distance` from (toLatitude, …) is at most `meters`", tested
   * before the distance itself; null when the dialect has none. `toLatitude` is within ±90.
   */
  nearLatitude(latitude: Operand, toLatitude: number, meters: number): SQL | null;
  /**
   * `column = value` as a filter the planner serves from no index: the collection's own
   * condition beside candidates from the property index (compile.ts), so the plan starts from
   * those candidates. PostgreSQL's planner weighs candidates it can estimate against the
   * collection; `few`: they are known to be few (counted, or a page's uuids), and the plan starts
   * from them there too.
   */
  filterOnly(column: SQL, value: string, few: boolean): SQL;
  /** `uuid IN (candidates)`: the entities among the property index's candidates (compile.ts), `few` as for filterOnly. */
  amongCandidates(uuid: SQL, candidates: SQL, few: boolean): SQL;
  /**
   * `EXISTS (subquery)` tested for each row the plan reads, never a set the plan starts from nor
   * one it gathers first: the caller's walk gives the order (index-order.ts NextKeyWalk).
   */
  testedPerRow(subquery: SQL): SQL;
  /**
   * A column of the property index's rows (the migrations) as an operand: its numbers (1/0 for
   * booleans), its folded and cut texts, its entity uuids (index-order.ts); of the table's rows
   * under the name `table`, `entity_values` by default.
   */
  indexColumn(name: 'number' | 'text' | 'uuid', table?: Name): Operand;
  /** The condition on the property index's rows of one property of a collection (property-index.ts, index-order.ts), under the name `table`. */
  indexRowsOf(appUuid: string, collection: string, path: string, table?: Name): SQL;
  /** The same of any of `paths` (a path and its array's elements, property-index.ts `lookup`), under the name `entity_values`. */
  indexRowsOfAny(appUuid: string, collection: string, paths: readonly string[]): SQL;
  /** The condition on the property index's rows that hold a value of type rank `rank` (order.ts TYPE_RANK), under the name `table`. */
  indexRank(rank: number, table?: Name): SQL;
  /**
   * `SELECT entity_uuid …` of the collection's entities whose indexed location meets `box`, from
   * the location index (location-index.ts, the migrations' …_location_index.sql).
   */
  locatedIn(appUuid: string, collection: string, box: LocationBox): SQL;
  /** `SELECT entity_uuid …` of the word index's rows (word-index.ts) that answer `lookup`. */
  wordMatch(lookup: WordLookup): SQL;
  /**
   * The same lookup as `SELECT entity_uuid, created …`: the word index keeps each entity's
   * `created`, so its candidates can be put in created order before any entity is read
   * (docs/design.md#the-word-index).
   */
  wordMatchCreated(lookup: WordLookup): SQL;
}

const INDEX_ROWS = sql.identifier('entity_values');
/** An element of an array property, in the subquery that reads them (Dialect `jsonElement`). */
const ELEMENT = sql.identifier('idp_element');
const LOCATIONS = sql.identifier('entity_locations');
const location = (name: string): SQL => sql`${LOCATIONS}.${sql.identifier(name)}`;
const locationScope = (appUuid: string, collection: string): SQL => sql`${location('app_uuid')} = ${appUuid} AND ${location('collection')} = ${collection}`;

const OPERATORS: Readonly<Record<ComparisonOperator, SQL>> = {
  '=': sql.raw('='),
  '<': sql.raw('<'),
  '<=': sql.raw('<='),
  '>': sql.raw('>'),
  '>=': sql.raw('>='),
};
const DIRECTIONS: Readonly<Record<Direction, SQL>> = { asc: sql.raw('ASC'), desc: sql.raw('DESC') };
const rank = (value: number): SQL => sql.raw(String(value));

/**
 * SQLite: JSON1's json_type/json_extract on the `properties` text, and the idp_* functions that
 * src/db/functions.ts registers on every connection (the reference's own JavaScript). SQLite
 * compares values of different storage classes and its BINARY collation is code-point order,
 * so comparisons and ORDER BY terms are written plainly; NULL sorts first ascending.
 */
function createSqliteDialect(table: string): Dialect {
  const properties = sql`${sql.identifier(table)}.${sql.identifier('properties')}`;
  const jsonPath = (path: readonly string[]): string => `$.${path.join('.')}`;
  const jsonType = (path: readonly string[]): SQL => sql`json_type(${properties}, ${jsonPath(path)})`;
  const jsonExtract = (path: readonly string[]): SQL => sql`json_extract(${properties}, ${jsonPath(path)})`;
  // json_type names: 'null', 'true', 'false', 'integer', 'real', 'text', 'array', 'object'.
  const typeNames: Record<ValueType, SQL> = {
    number: sql.raw(`('integer', 'real')`),
    string: sql.raw(`('text')`),
    boolean: sql.raw(`('true', 'false')`),
  };
  return {
    true: sql`1`,
    false: sql`0`,
    column: (name) => ({ sql: sql`${sql.identifier(table)}.${sql.identifier(name)}`, type: name === 'created' || name === 'modified' ? 'integer' : 'text' }),
    // json_type is NULL for a missing path; coalesce keeps the guard two-valued.
    jsonTypeIs: (path, type) => sql`coalesce(${jsonType(path)}, 'null') IN ${typeNames[type]}`,
    // json_extract gives true/false as 1/0 already.
    jsonValue: (path, type) =>
      type === 'number'
        ? { sql: sql`CAST(${jsonExtract(path)} AS REAL)`, type: 'number' }
        : { sql: jsonExtract(path), type: type === 'string' ? 'text' : 'integer' },
    // json_each reads a scalar as a one-element array: only an array is read by element.
    jsonElement: (path, type, test) =>
      sql`(coalesce(${jsonType(path)}, '') = 'array' AND EXISTS (SELECT 1 FROM json_each(${properties}, ${jsonPath(path)}) AS ${ELEMENT} WHERE ${ELEMENT}.type IN ${typeNames[type]} AND ${test(
        type === 'number'
          ? { sql: sql`CAST(${ELEMENT}.value AS REAL)`, type: 'number' }
          : { sql: sql`${ELEMENT}.value`, type: type === 'string' ? 'text' : 'integer' },
      )}))`,
    jsonEquals: () => null,
    jsonSortRank: (path) =>
      sql`CASE ${jsonType(path)} WHEN 'integer' THEN ${rank(TYPE_RANK.number)} WHEN 'real' THEN ${rank(TYPE_RANK.number)} WHEN 'text' THEN ${rank(TYPE_RANK.string)} WHEN 'true' THEN ${rank(TYPE_RANK.boolean)} WHEN 'false' THEN ${rank(TYPE_RANK.boolean)} ELSE ${rank(TYPE_RANK.none)} END`,
    jsonSortValues: (path) => [
      {
        operand: {
          sql: sql`CASE ${jsonType(path)} WHEN 'text' THEN idp_fold(${jsonExtract(path)}) WHEN 'integer' THEN CAST(${jsonExtract(path)} AS REAL) WHEN 'real' THEN ${jsonExtract(path)} WHEN 'true' THEN 1 WHEN 'false' THEN 0 END`,
          type: 'number',
        },
        holds: 'any',
      },
    ],
    compare: (left, operator, right) => sql`${left.sql} ${OPERATORS[operator]} ${right}`,
    orderTerm: (operand, direction) => sql`${operand.sql} ${DIRECTIONS[direction]}`,
    fold: (text) => ({ sql: sql`idp_fold(${text.sql})`, type: 'text' }),
    hasPrefix: (text, prefix) => sql`idp_starts_with(${text.sql}, ${prefix})`,
    contains: (text, term, prefix) => sql`idp_contains(${text.sql}, ${term}, ${prefix ? 1 : 0})`,
    distance: (latitude, longitude, toLatitude, toLongitude) => ({
      sql: sql`idp_distance(${latitude.sql}, ${longitude.sql}, ${toLatitude}, ${toLongitude})`,
      type: 'number',
    }),
    nearLatitude: () => null,
    // Without statistics SQLite believes an application's collection small, and walks it in
    // created order rather than look up the candidates; a unary + takes the column out of its
    // index choices (sqlite.org/optoverview.html#disqualifying_where_clause_terms_using_unary_).
    filterOnly: (column, value) => sql`+${column} = ${value}`,
    amongCandidates: (uuid, candidates) => sql`${uuid} IN (${candidates})`,
    testedPerRow: (subquery) => sql`EXISTS (${subquery})`,
    // A row names its property by number (migrations/sqlite/0030_property_index_compact_keys.sql);
    // the number is looked up once per statement, NULL (no rows) for a property no entity has.
    indexRowsOf: (appUuid, collection, path, table = INDEX_ROWS) =>
      sql`${table}.path_id = (SELECT id FROM entity_value_paths WHERE app_uuid = ${appUuid} AND collection = ${collection} AND path = ${path})`,
    indexRowsOfAny: (appUuid, collection, paths) =>
      sql`${INDEX_ROWS}.path_id IN (SELECT id FROM entity_value_paths WHERE app_uuid = ${appUuid} AND collection = ${collection} AND path IN (${sql.join(
        paths.map((path) => sql`${path}`),
        sql`, `,
      )}))`,
    indexRank: (rank, table = INDEX_ROWS) => sql`${table}.kind = ${sql.raw(String(rank))}`,
    // One untyped column: the whole row is the table's key (migrations/sqlite/0012_property_index.sql).
    indexColumn: (name, table = INDEX_ROWS) => ({
      sql: sql`${table}.${sql.identifier(name === 'uuid' ? 'entity_uuid' : 'value')}`,
      type: name === 'number' ? 'number' : 'text',
    }),
    // The R*Tree's box overlap test, which it answers from its index; then the collection, an
    // auxiliary column it filters by.
    locatedIn: (appUuid, collection, box) =>
      sql`SELECT ${location('entity_uuid')} FROM ${LOCATIONS} WHERE ${location('max_latitude')} >= ${box.south} AND ${location('min_latitude')} <= ${box.north} AND ${location('max_longitude')} >= ${box.west} AND ${location('min_longitude')} <= ${box.east} AND ${locationScope(appUuid, collection)}`,
    wordMatch: (lookup) => sql`SELECT entity_words.entity_uuid FROM entity_words WHERE entity_words MATCH ${ftsQuery(lookup)}`,
    wordMatchCreated: (lookup) => sql`SELECT entity_words.entity_uuid, entity_words.created FROM entity_words WHERE entity_words MATCH ${ftsQuery(lookup)}`,
  };
}

// An FTS5 query: quoted tokens, all required; `"…"*` is a prefix (sqlite.org/fts5.html#full_text_query_syntax).
// SQLite stores no `any` token: its rows have no size limit.
const ftsQuery = ({ all, lastIsPrefix }: WordLookup): string => all.map((token) => `"${token}"`).join(' ') + (lastIsPrefix ? '*' : '');

/** A number parameter as a PostgreSQL double (the driver sends parameters as text). */
const float = (value: number): SQL => sql`CAST(${value} AS double precision)`;

/** A property path segment the grammar allows (tokenize.ts WORD); anything else is refused. */
const SEGMENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Integers up to this magnitude are exact doubles, so JavaScript compares them exactly. */
const EXACT_INTEGER = 2 ** 53;

/** PostgreSQL text holds no NUL: a literal with one is rewritten exactly (see createPostgresDialect). */
const NUL = '\u0000';

/** `left operator right` on PostgreSQL text, for a literal that may hold a NUL. */
function comparePostgresText(left: SQL, operator: ComparisonOperator, right: string): SQL {
  const cut = right.indexOf(NUL);
  if (cut < 0) return sql`${left} ${OPERATORS[operator]} ${right}`;
  const before = right.slice(0, cut);
  switch (operator) {
    case '=':
      return sql.raw('FALSE');
    case '<':
    case '<=':
      return sql`${left} <= ${before}`;
    case '>':
    case '>=':
      return sql`${left} > ${before}`;
  }
}

/** `left operator right` on an integer column, with an integer where that is exact (so its index applies). */
function comparePostgresInteger(left: SQL, operator: ComparisonOperator, right: number): SQL {
  if (Math.abs(right) >= EXACT_INTEGER) return sql`CAST(${left} AS double precision) ${OPERATORS[operator]} ${right}`;
  if (Number.isInteger(right)) return sql`${left} ${OPERATORS[operator]} ${right}`;
  switch (operator) {
    case '=':
      return sql.raw('FALSE');
    case '<':
      return sql`${left} < ${Math.ceil(right)}`;
    case '<=':
      return sql`${left} <= ${Math.floor(right)}`;
    case '>':
      return sql`${left} > ${Math.floor(right)}`;
    case '>=':
      return sql`${left} >= ${Math.ceil(right)}`;
  }
}

// The text column is COLLATE "C" (0007_property_index.sql); the uuids are compared and ordered so
// too, as the indexes of 0023_property_index_order.sql hold them.
const postgresIndexColumns = (table: Name): Readonly<Record<'number' | 'text' | 'uuid', Operand>> => ({
  number: { sql: sql`${table}.num`, type: 'number' },
  text: { sql: sql`${table}.text`, type: 'text' },
  uuid: { sql: sql`(${table}.entity_uuid COLLATE "C")`, type: 'text' },
});
const POSTGRES_INDEX_COLUMNS = postgresIndexColumns(INDEX_ROWS);

/**
 * A plain EXISTS in WHERE becomes a semi-join, and where PostgreSQL believes its rows few (the
 * entities of one city, a tenth of 100,000, taken for 620), the plan reads them all and sorts
 * them: 106 ms for the first page of `order by city, score` instead of walking `score`. Under IS
 * TRUE it stays a subplan; OFFSET 0 keeps that subplan from being hashed, which reads every row
 * it could match before the first test (the 10,000 of a city at 100,000: 42 ms, against 2.3 ms
 * tested row by row).
 */
const postgresTestedPerRow = (subquery: SQL): SQL => sql`(EXISTS (${subquery} OFFSET 0)) IS TRUE`;

/**
 * Dialect `jsonEquals` on PostgreSQL: the document written around the value, or around an array of
 * it (an array matches by element), the value a parameter of its own (node-postgres sends a
 * number as String writes it, which is how JSON writes it) so that statements by query shape can
 * refill it (query-shapes.ts).
 */
function postgresJsonEquals(properties: SQL, path: readonly string[], value: number | boolean): SQL {
  const before = path.map((key) => `{${JSON.stringify(key)}:`).join('');
  const contains = (open: string, close: string): SQL =>
    sql`${properties} @> CAST(CAST(${before + open} AS text) || CAST(${value} AS text) || CAST(${close + '}'.repeat(path.length)} AS text) AS jsonb)`;
  return sql`(${contains('', '')} OR ${contains('[', ']')})`;
}

/**
 * Dialect `jsonElement` on PostgreSQL, `value` the property's jsonb: jsonb_array_elements refuses
 * anything but an array, and the CASEs keep each cast to elements of its type, as PostgreSQL does
 * not promise to test the type first.
 */
function postgresJsonElement(value: SQL, type: ValueType, test: (element: Operand) => SQL): SQL {
  const element = sql`${ELEMENT}.value`;
  const typed: Operand =
    type === 'number'
      ? { sql: sql`CASE WHEN jsonb_typeof(${element}) = 'number' THEN CAST(${element} AS double precision) END`, type: 'number' }
      : type === 'string'
        ? { sql: sql`(${element} #>> '{}')`, type: 'text' }
        : { sql: sql`CASE ${element} WHEN 'true'::jsonb THEN 1 WHEN 'false'::jsonb THEN 0 END`, type: 'integer' };
  return sql`(coalesce(jsonb_typeof(${value}) = 'array', FALSE) AND EXISTS (SELECT 1 FROM jsonb_array_elements(CASE WHEN jsonb_typeof(${value}) = 'array' THEN ${value} END) AS ${ELEMENT}(value) WHERE jsonb_typeof(${element}) = ${sql.raw(`'${type}'`)} AND ${test(typed)}))`;
}

/** The property index's rows on PostgreSQL: named by application, collection and path (0007_property_index.sql). */
const POSTGRES_INDEX_ROWS: Pick<Dialect, 'indexRowsOf' | 'indexRowsOfAny' | 'indexColumn' | 'indexRank'> = {
  indexRowsOf: (appUuid, collection, path, table = INDEX_ROWS) =>
    sql`${table}.app_uuid = ${appUuid} AND ${table}.collection = ${collection} AND ${table}.path = ${path}`,
  indexRowsOfAny: (appUuid, collection, paths) =>
    sql`${INDEX_ROWS}.app_uuid = ${appUuid} AND ${INDEX_ROWS}.collection = ${collection} AND ${INDEX_ROWS}.path IN (${sql.join(
      paths.map((path) => sql`${path}`),
      sql`, `,
    )})`,
  indexColumn: (name, table) => (table === undefined ? POSTGRES_INDEX_COLUMNS : postgresIndexColumns(table))[name],
  // Only strings have a text (0007_property_index.sql), and the text index does not hold `kind`:
  // named by it, the rows of a string are found in that index alone, not each looked up in the
  // table (counting 4,000 people of a city at 100,000: 19 ms with `kind`).
  indexRank: (rank, table = INDEX_ROWS) => (rank === TYPE_RANK.string ? sql`${table}.text IS NOT NULL` : sql`${table}.kind = ${sql.raw(String(rank))}`),
};

/**
 * PostgreSQL: jsonb operators on `properties`, and the idp_* SQL functions of the migrations
 * src/db/migrations/postgres/0001_query_functions.sql, which give the results of the JavaScript
 * in functions.ts (the argument is made there, and test/query/postgres.test.ts checks it), and
 * 0020_builtin_distance.sql, whose distance is functions.ts's within rounding (docs/api.md#distances).
 *
 * - A property is `properties #> '{a,b}'` (jsonb; NULL when missing — and when a segment meets an
 *   array, since segments are never integers, so only objects are descended, as readProperty does).
 *   Types are `jsonb_typeof`'s 'number', 'string', 'boolean' (others: 'null', 'object', 'array').
 * - Numbers are double precision (the jsonb numeric cast; never `real`, which is float4),
 *   booleans 1/0, inside a CASE on the type, as casts raise errors on other values.
 * - Text compares and sorts COLLATE "C": UTF-8 byte order, which is code-point order
 *   (functions.ts `compareText`), whatever the database's collation.
 * - Integer columns (created, modified) are compared with integers — `x > 1.5` as `x > 1`, an
 *   exact rewrite for integers — so their btree index stays usable.
 * - ORDER BY: the JSON sort value is two columns, the numbers (1/0 for booleans) and the folded
 *   strings, since a CASE has one type here; within a rank one of them is all NULL and ties.
 *   Nullable terms say NULLS FIRST/LAST, SQLite's order; NOT NULL columns do not, so an index
 *   on them still serves the order.
 * - Text cannot hold NUL (U+0000) in PostgreSQL — neither jsonb strings nor text columns nor
 *   text parameters — so no stored value contains one, and a literal (or cursor value) with a
 *   NUL is rewritten exactly for NUL-free values: with P its part before the first NUL, x = L
 *   never holds, x < L iff x <= P, x > L iff x > P (NUL is the least code point); a prefix with
 *   NUL never matches; a `contains` term is split into words here (NUL is no word character).
 * - `within` tests a latitude band (latitudeBand below) before the PL/pgSQL distance, which is
 *   slower; the band holds every match.
 *
 * Indexes (migration 0001_query_functions.sql, beside the btree ones of schema.ts):
 * - `entities_properties`: GIN (properties jsonb_path_ops). `=` on a number or boolean adds
 *   `properties @> '{"a":{"b":value}}' OR properties @> '{"a":{"b":[value]}}'` (an array matches
 *   by element), which it serves. Implied by the exact test, so adding it
 *   changes no answer: for booleans plainly; for numbers because every stored number was written
 *   by JSON.stringify (the entity layer stores JavaScript values), i.e. is the shortest decimal
 *   of a double, as the literal's is, so equal doubles are equal numerics. Strings get no
 *   containment: `=` on strings is case-insensitive, containment is not.
 * - `entities_app_collection_created` (schema.ts) serves the default order, created DESC.
 */
function createPostgresDialect(table: string): Dialect {
  const properties = sql`${sql.identifier(table)}.${sql.identifier('properties')}`;
  const pathLiteral = (path: readonly string[]): SQL => {
    if (path.length === 0 || !path.every((segment) => SEGMENT.test(segment))) throw new TypeError(`not a property path: ${path.join('.')}`);
    return sql.raw(`'{${path.join(',')}}'`);
  };
  const jsonb = (path: readonly string[]): SQL => sql`(${properties} #> ${pathLiteral(path)})`;
  const jsonText = (path: readonly string[]): SQL => sql`(${properties} #>> ${pathLiteral(path)})`;
  const jsonType = (path: readonly string[]): SQL => sql`jsonb_typeof(${jsonb(path)})`;
  const typeNames: Record<ValueType, SQL> = { number: sql.raw(`'number'`), string: sql.raw(`'string'`), boolean: sql.raw(`'boolean'`) };
  const asNumber = (path: readonly string[]): SQL => sql`CASE WHEN ${jsonType(path)} = 'number' THEN CAST(${jsonb(path)} AS double precision) END`;
  const asBit = (path: readonly string[]): SQL => sql`CASE ${jsonb(path)} WHEN 'true'::jsonb THEN 1 WHEN 'false'::jsonb THEN 0 END`;
  const collated = (text: SQL): SQL => sql`(${text} COLLATE "C")`;

  return {
    true: sql.raw('TRUE'),
    false: sql.raw('FALSE'),
    column: (name) => {
      const column = sql`${sql.identifier(table)}.${sql.identifier(name)}`;
      return name === 'created' || name === 'modified' ? { sql: column, type: 'integer' } : { sql: collated(column), type: 'text' };
    },
    jsonTypeIs: (path, type) => sql`coalesce(${jsonType(path)} = ${typeNames[type]}, FALSE)`,
    jsonValue: (path, type) => {
      switch (type) {
        case 'number':
          return { sql: asNumber(path), type: 'number' };
        case 'string':
          return { sql: jsonText(path), type: 'text' };
        case 'boolean':
          return { sql: asBit(path), type: 'integer' };
      }
    },
    jsonElement: (path, type, test) => postgresJsonElement(jsonb(path), type, test),
    jsonEquals: (path, value) => postgresJsonEquals(properties, path, value),
    jsonSortRank: (path) =>
      sql`CASE ${jsonType(path)} WHEN 'number' THEN ${rank(TYPE_RANK.number)} WHEN 'string' THEN ${rank(TYPE_RANK.string)} WHEN 'boolean' THEN ${rank(TYPE_RANK.boolean)} ELSE ${rank(TYPE_RANK.none)} END`,
    jsonSortValues: (path) => [
      {
        operand: {
          sql: sql`CASE ${jsonType(path)} WHEN 'number' THEN CAST(${jsonb(path)} AS double precision) WHEN 'boolean' THEN ${asBit(path)} END`,
          type: 'number',
        },
        holds: 'number',
      },
      {
        operand: { sql: collated(sql`CASE WHEN ${jsonType(path)} = 'string' THEN idp_fold(${jsonText(path)}) END`), type: 'text' },
        holds: 'string',
      },
    ],
    compare: (left, operator, right) => {
      if (left.type === 'text' && typeof right === 'string') return comparePostgresText(left.sql, operator, right);
      if (left.type === 'integer' && typeof right === 'number') return comparePostgresInteger(left.sql, operator, right);
      return sql`${left.sql} ${OPERATORS[operator]} ${right}`;
    },
    orderTerm: (operand, direction, nullable) =>
      nullable
        ? sql`${operand.sql} ${DIRECTIONS[direction]} ${sql.raw(direction === 'asc' ? 'NULLS FIRST' : 'NULLS LAST')}`
        : sql`${operand.sql} ${DIRECTIONS[direction]}`,
    fold: (text) => ({ sql: collated(sql`idp_fold(${text.sql})`), type: 'text' }),
    hasPrefix: (text, prefix) => (prefix.includes(NUL) ? sql.raw('FALSE') : sql`idp_starts_with(${text.sql}, ${prefix})`),
    // The term's words are split here, by functions.ts itself, once per query (a NUL in the term
    // only separates words, like a space, and never reaches PostgreSQL).
    contains: (text, term, prefix) => sql`idp_contains_words(${text.sql}, ${splitWords(term).join(' ')}, ${sql.raw(prefix ? 'TRUE' : 'FALSE')})`,
    distance: (latitude, longitude, toLatitude, toLongitude) => ({
      sql: sql`idp_distance(${latitude.sql}, ${longitude.sql}, ${float(toLatitude)}, ${float(toLongitude)})`,
      type: 'number',
    }),
    nearLatitude: (latitude, toLatitude, meters) => {
      const band = latitudeBand(meters);
      return band === null ? null : sql`(abs(${latitude.sql}) > 90 OR abs(${latitude.sql} - ${float(toLatitude)}) <= ${float(band)})`;
    },
    // The planner weighs candidates against the collection by its statistics. Few candidates are
    // looked up whatever it believes: `|| ''` takes the column out of its index choices (as
    // SQLite's unary +), ARRAY(…) runs the candidates' lookup once before any entity is read, and
    // `= ANY` of it probes the primary key for each. Without them it took the location index's 90
    // candidates among a million for 4,972 (it keeps no statistics for box overlap), walked the
    // collection newest first and looked each entity up in the location index: 872 ms
    // (docs/benchmarks.md#within-and-contains-on-postgresql).
    filterOnly: (column, value, few) => (few ? sql`${column} || '' = ${value}` : sql`${column} = ${value}`),
    amongCandidates: (uuid, candidates, few) => (few ? sql`${uuid} = ANY(ARRAY(${candidates}))` : sql`${uuid} IN (${candidates})`),
    testedPerRow: postgresTestedPerRow,
    ...POSTGRES_INDEX_ROWS,
    // Box overlap (&&), which the GiST index serves; x is the longitude. Inclusive of the edges,
    // and loose by 1e-6 like every geometric comparison of PostgreSQL: only ever more candidates.
    locatedIn: (appUuid, collection, box) =>
      sql`SELECT ${location('entity_uuid')} FROM ${LOCATIONS} WHERE ${location('bounds')} && box(point(${float(box.west)}, ${float(box.south)}), point(${float(box.east)}, ${float(box.north)})) AND ${locationScope(appUuid, collection)}`,
    wordMatch: (lookup) => sql`SELECT entity_words.entity_uuid FROM entity_words WHERE ${wordsMatch(lookup)}`,
    // migrations/postgres/0027_word_index_created.sql
    wordMatchCreated: (lookup) => sql`SELECT entity_words.entity_uuid, entity_words.created FROM entity_words WHERE ${wordsMatch(lookup)}`,
  };
}

// A tsquery of quoted lexemes, taken as written: `&` all, `:*` a prefix, `|` the row of an entity
// with too many words (migrations/postgres/0022_word_index.sql).
const wordsMatch = ({ all, lastIsPrefix, any }: WordLookup): SQL =>
  sql`entity_words.words @@ CAST(${`${all.map((token) => `'${token}'`).join(' & ')}${lastIsPrefix ? ':*' : ''} | '${any}'`} AS tsquery)`;

/**
 * How far in latitude (degrees) a point within ±90 can be from one within `meters` of it, with
 * room to spare; null when that spans every latitude. idp_distance is a PL/pgSQL function, so
 * `within` first keeps only this band, which the arithmetic below shows holds every match (of
 * distanceMeters, and of idp_distance, which differs from it by rounding far inside the margins).
 *
 * For latitudes φ1, φ2 within ±90 the cosines in distanceMeters are >= 0 (90·(pi/180) rounds
 * below pi/2), so h >= sin²(Δφ/2) and the computed distance is at least 2R·asin(|sin(Δφ/2)|),
 * which is R·|Δφ| up to rounding: relative 1e-15, and 1e-8 where asin is steep, at |Δφ/2| near
 * pi/2. Below |Δφ| ≈ 1e-150 (degrees) sin² underflows and that fails — the distance may even
 * be 0 — so the band is widened by 1e-139, above which nothing underflows. So a point with
 * |Δφ| > meters / (R·pi/180) · (1 + 1e-6) + 1e-139 is farther than `meters`. The test
 * `abs(φ1 - φ2) <= band` rounds |Δφ| by one part in 2^53, within those margins too.
 */
export function latitudeBand(meters: number): number | null {
  const band = (meters / ((EARTH_RADIUS_METERS * Math.PI) / 180)) * (1 + 1e-6) + 1e-139;
  return band >= 180 ? null : band;
}

// functions.ts distanceMeters' radius, rounded down: the band only grows.
const EARTH_RADIUS_METERS = 6_371_008;

/** Builds a dialect whose column references are qualified by `table` (the entities table or its alias). */
export const dialects: ReadonlyMap<DialectName, (table: string) => Dialect> = new Map([
  ['sqlite', createSqliteDialect],
  ['postgres', createPostgresDialect],
]);
