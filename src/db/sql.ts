/**
 * The few SQL expressions SQLite and PostgreSQL spell differently, for storage code that builds
 * its queries with drizzle: each takes the handle the query runs on and writes that database's
 * form. User values are always bound parameters.
 */
import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import { dialectOf } from './open.js';

type Handle = object;

/** SQLite's JSON path of a top-level property; quoted, so any key (dots included) is one label. */
function jsonPath(key: string): string {
  return `$.${JSON.stringify(key)}`;
}

/** The text (or number, as text on PostgreSQL) at `key` of a JSON column; NULL when absent. */
export function jsonText(handle: Handle, column: SQLWrapper, key: string): SQL {
  return dialectOf(handle) === 'postgres' ? sql`(${column} ->> ${key}::text)` : sql`json_extract(${column}, ${jsonPath(key)})`;
}

/** The larger of two values (SQLite's two-argument max). */
export function greater(handle: Handle, a: SQLWrapper, b: SQLWrapper | number): SQL {
  return dialectOf(handle) === 'postgres' ? sql`greatest(${a}, ${b})` : sql`max(${a}, ${b})`;
}

/** The JSON object in `column` without the property at `key`. */
export function jsonWithout(handle: Handle, column: SQLWrapper, key: string): SQL {
  return dialectOf(handle) === 'postgres' ? sql`(${column} - ${key}::text)` : sql`json_remove(${column}, ${jsonPath(key)})`;
}

/** The JSON object in `column` with top-level properties set to the given JSON values. */
export function jsonWith(handle: Handle, column: SQLWrapper, values: Record<string, unknown>): SQL {
  const json = JSON.stringify(values);
  return dialectOf(handle) === 'postgres' ? sql`(${column} || ${json}::jsonb)` : sql`json_patch(${column}, ${json})`;
}

/** Whether the value at `key` of a JSON column is a JSON string. */
export function isJsonText(handle: Handle, column: SQLWrapper, key: string): SQL {
  return dialectOf(handle) === 'postgres' ? sql`jsonb_typeof(${column} -> ${key}::text) = 'string'` : sql`json_type(${column}, ${jsonPath(key)}) = 'text'`;
}
