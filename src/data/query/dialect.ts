/**
 * The SQL each database needs for the query compiler's primitives. compile.ts builds the
 * structure (boolean logic, type guards, keyset conditions) once; a dialect only says how to
 * read a column or a JSON property, fold case, and call the string and geo functions. Adding
 * PostgreSQL means adding one more `Dialect` here (jsonb operators, its own functions).
 *
 * Every user value is a bound parameter; `sql.raw` only ever receives the fixed text below.
 */
import { sql, type SQL } from 'drizzle-orm';
import { TYPE_RANK } from './order.js';
import type { ColumnName, ValueType } from './properties.js';

export type DialectName = 'sqlite';

export interface Dialect {
  readonly true: SQL;
  readonly false: SQL;
  column(name: ColumnName): SQL;
  /** True when the JSON property at `path` holds a value of `type`; never NULL, so `NOT` works. */
  jsonTypeIs(path: readonly string[], type: ValueType): SQL;
  /** The JSON property's scalar value: a number, the text, or 1/0 for true/false. */
  jsonValue(path: readonly string[]): SQL;
  /**
   * A number as a double. JSON integers beyond 2^53 are exact 64-bit integers in SQLite but doubles
   * in JavaScript; comparing them as doubles keeps SQL, the reference evaluator and cursors (which
   * carry JavaScript numbers) in agreement, so paging always advances.
   */
  real(value: SQL): SQL;
  /** The sort rank of the JSON property's type (order.ts `TYPE_RANK`). */
  jsonSortRank(path: readonly string[]): SQL;
  /** The JSON property's value within its rank: the number, the folded text, 1/0, or NULL. */
  jsonSortValue(path: readonly string[]): SQL;
  /** Case folding identical to functions.ts `foldCase`. */
  fold(text: SQL): SQL;
  /** functions.ts `hasPrefix`; `prefix` is already folded. */
  hasPrefix(text: SQL, prefix: string): SQL;
  /** functions.ts `containsWords` on the unfolded text. */
  contains(text: SQL, term: string, prefix: boolean): SQL;
  /** functions.ts `distanceMeters` from the point (latitude, longitude). */
  distance(latitude: SQL, longitude: SQL, toLatitude: number, toLongitude: number): SQL;
}

/**
 * SQLite: JSON1's json_type/json_extract on the `properties` text, and the idp_* functions that
 * src/db/functions.ts registers on every connection.
 */
function createSqliteDialect(table: string): Dialect {
  const properties = sql`${sql.identifier(table)}.${sql.identifier('properties')}`;
  const jsonPath = (path: readonly string[]): string => `$.${path.join('.')}`;
  const jsonType = (path: readonly string[]): SQL => sql`json_type(${properties}, ${jsonPath(path)})`;
  const jsonValue = (path: readonly string[]): SQL => sql`json_extract(${properties}, ${jsonPath(path)})`;
  // json_type names: 'null', 'true', 'false', 'integer', 'real', 'text', 'array', 'object'.
  const typeNames: Record<ValueType, SQL> = {
    number: sql.raw(`('integer', 'real')`),
    string: sql.raw(`('text')`),
    boolean: sql.raw(`('true', 'false')`),
  };
  const rank = (value: number): SQL => sql.raw(String(value));
  return {
    true: sql`1`,
    false: sql`0`,
    column: (name) => sql`${sql.identifier(table)}.${sql.identifier(name)}`,
    // json_type is NULL for a missing path; coalesce keeps the guard two-valued.
    jsonTypeIs: (path, type) => sql`coalesce(${jsonType(path)}, 'null') IN ${typeNames[type]}`,
    jsonValue,
    real: (value) => sql`CAST(${value} AS REAL)`,
    jsonSortRank: (path) =>
      sql`CASE ${jsonType(path)} WHEN 'integer' THEN ${rank(TYPE_RANK.number)} WHEN 'real' THEN ${rank(TYPE_RANK.number)} WHEN 'text' THEN ${rank(TYPE_RANK.string)} WHEN 'true' THEN ${rank(TYPE_RANK.boolean)} WHEN 'false' THEN ${rank(TYPE_RANK.boolean)} ELSE ${rank(TYPE_RANK.none)} END`,
    jsonSortValue: (path) =>
      sql`CASE ${jsonType(path)} WHEN 'text' THEN idp_fold(${jsonValue(path)}) WHEN 'integer' THEN CAST(${jsonValue(path)} AS REAL) WHEN 'real' THEN ${jsonValue(path)} WHEN 'true' THEN 1 WHEN 'false' THEN 0 END`,
    fold: (text) => sql`idp_fold(${text})`,
    hasPrefix: (text, prefix) => sql`idp_starts_with(${text}, ${prefix})`,
    contains: (text, term, prefix) => sql`idp_contains(${text}, ${term}, ${prefix ? 1 : 0})`,
    distance: (latitude, longitude, toLatitude, toLongitude) =>
      sql`idp_distance(${latitude}, ${longitude}, ${toLatitude}, ${toLongitude})`,
  };
}

/** Builds a dialect whose column references are qualified by `table` (the entities table or its alias). */
export const dialects: ReadonlyMap<DialectName, (table: string) => Dialect> = new Map([['sqlite', createSqliteDialect]]);
