/**
 * SQL functions the query compiler (src/data/query/) relies on, registered on every SQLite
 * connection. Their bodies are the same JavaScript the in-memory evaluator runs
 * (src/data/query/functions.ts), so SQL and reference semantics cannot drift apart. SQLite's own
 * lower()/LIKE/instr are not used: they fold ASCII only and stop at NUL characters.
 * PostgreSQL cannot run this JavaScript: its idp_fold, idp_starts_with and idp_contains_words are
 * SQL in migrations/postgres/0001_query_functions.sql, written and tested
 * (test/query/postgres.test.ts) to give these functions' results; its idp_distance
 * (0020_builtin_distance.sql) gives distanceMeters' within rounding (docs/api.md#distances).
 */
import type Database from 'better-sqlite3';
import { containsWords, distanceMeters, foldCase, hasPrefix } from '../data/query/functions.js';
import { indexedText, indexRowsOf } from '../data/query/property-index.js';
import { entityToken, entityWords } from '../data/query/word-index.js';

/** Rows counted by idp_count_row, by the token of the query that counts (explain.ts). */
export const countedRows = new Map<string, number>();

/** Connections whose entity insert triggers leave the indexes to the bulk import (deferIndexing). */
const deferring = new WeakSet<Database.Database>();

/**
 * Has the insert triggers of `entities` on `sqlite` leave the property, word and location indexes
 * alone (`on`), or index every insert again: the bulk import writes each batch's index rows
 * itself, inside its own transaction (entity-import-store.ts,
 * migrations/sqlite/0026_deferred_index_build.sql).
 */
export function deferIndexing(sqlite: Database.Database, on: boolean): void {
  if (on) deferring.add(sqlite);
  else deferring.delete(sqlite);
}

export function registerSqlFunctions(sqlite: Database.Database): void {
  // idp_index_deferred(): 1 while the bulk import writes the indexes itself (deferIndexing), else 0.
  // Not deterministic: SQLite asks again for every row.
  sqlite.function('idp_index_deferred', () => (deferring.has(sqlite) ? 1 : 0));
  // idp_count_row(token): 1, counting the call: a query's rows read, for `explain` (explain.ts).
  // Not deterministic, so SQLite calls it for every row it reads.
  sqlite.function('idp_count_row', (token: unknown) => {
    if (typeof token === 'string' && countedRows.has(token)) countedRows.set(token, countedRows.get(token)! + 1);
    return 1;
  });
  const options = { deterministic: true };
  // idp_fold(text): case-folded text; other values pass through (NULL stays NULL).
  sqlite.function('idp_fold', options, (value: unknown) => (typeof value === 'string' ? foldCase(value) : asSqlValue(value)));
  // idp_starts_with(text, prefix): 1 when text starts with prefix, else 0.
  sqlite.function('idp_starts_with', options, (text: unknown, prefix: unknown) =>
    typeof text === 'string' && typeof prefix === 'string' && hasPrefix(text, prefix) ? 1 : 0,
  );
  // idp_index_text(text): what the property index keeps of a string (property-index.ts):
  // folded and cut in JavaScript, as SQLite's substr stops at a NUL.
  sqlite.function('idp_index_text', options, (value: unknown) => (typeof value === 'string' ? indexedText(foldCase(value)) : null));
  // idp_index_path(fullkey): the property index's path of a json_tree fullkey in which SQLite
  // quotes a name (`$.a."first_name"` → `a.first_name`); NULL unless every segment is a name the
  // query language writes (migrations/sqlite/0030_property_index_compact_keys.sql). It and
  // idp_index_text serve the views of the migrations before idp_index_rows, which a database
  // from before them runs while it is upgraded.
  sqlite.function('idp_index_path', options, (fullkey: unknown) => (typeof fullkey === 'string' ? indexPathOf(fullkey) : null));
  // idp_index_rows(properties): the property index's rows of an entity's JSON, a table of
  // (path, property, kind, value) (property-index.ts indexRowsOf), which the view
  // entity_values_source reads (migrations/sqlite/0033_index_rows_in_javascript.sql).
  // Each row is yielded as an array in the columns' order: better-sqlite3 matches an object's
  // keys to the columns by name, which made reading a 1 KB item's seven rows 10.1 µs instead of
  // 7.8 (docs/benchmarks.md#index-rows-in-javascript).
  sqlite.table('idp_index_rows', {
    columns: ['path', 'property', 'kind', 'value'],
    parameters: ['properties'],
    *rows(properties: unknown) {
      if (typeof properties !== 'string') return;
      for (const row of indexRowsOf(properties)) yield [row.path, row.property, row.kind, row.value];
    },
  });
  // idp_entity_words(uuid, app, collection, properties): the word index's row of an entity, or
  // NULL when it has no word; idp_entity_word_match(uuid): the FTS5 query finding that row again
  // (word-index.ts, migrations/sqlite/0025_word_index.sql).
  sqlite.function('idp_entity_words', options, (uuid: unknown, app: unknown, collection: unknown, properties: unknown) =>
    typeof uuid === 'string' && typeof app === 'string' && typeof collection === 'string' && typeof properties === 'string'
      ? entityWords(uuid, app, collection, properties)
      : null,
  );
  sqlite.function('idp_entity_word_match', options, (uuid: unknown) => (typeof uuid === 'string' ? `"${entityToken(uuid)}"` : null));
  // idp_contains(text, term, isPrefix): 1 when the words of term occur in text (`contains`).
  sqlite.function('idp_contains', options, (text: unknown, term: unknown, prefix: unknown) =>
    typeof text === 'string' && typeof term === 'string' && containsWords(text, term, prefix === 1) ? 1 : 0,
  );
  // idp_distance(lat1, lon1, lat2, lon2): great-circle meters; NULL unless all four are numbers.
  sqlite.function('idp_distance', options, (lat1: unknown, lon1: unknown, lat2: unknown, lon2: unknown) =>
    typeof lat1 === 'number' && typeof lon1 === 'number' && typeof lat2 === 'number' && typeof lon2 === 'number'
      ? distanceMeters(lat1, lon1, lat2, lon2)
      : null,
  );
}

// A json_tree fullkey of names only, each bare (SQLite writes a name bare when it is ASCII letters
// and digits starting with a letter) or quoted; a quoted one that is a segment of the query
// language (tokenize.ts) holds no escape.
const QUOTED_FULLKEY = /^\$(?:\.(?:[A-Za-z][A-Za-z0-9]*|"[A-Za-z_][A-Za-z0-9_]*"))+$/;

function indexPathOf(fullkey: string): string | null {
  return QUOTED_FULLKEY.test(fullkey) ? fullkey.slice(2).replaceAll('"', '') : null;
}

// What better-sqlite3 accepts as a function result; anything else becomes NULL.
function asSqlValue(value: unknown): number | bigint | Buffer | null {
  return typeof value === 'number' || typeof value === 'bigint' || Buffer.isBuffer(value) ? value : null;
}
