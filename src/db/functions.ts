/**
 * SQL functions the query compiler (src/data/query/) relies on, registered on every SQLite
 * connection. PostgreSQL gets the same behaviour from its own operators.
 */
import type Database from 'better-sqlite3';

export function registerSqlFunctions(sqlite: Database.Database): void {
  // Placeholder-free registration point: query functions are added by src/data/query/sqlite-functions.ts.
  void sqlite;
}
