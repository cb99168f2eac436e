/**
 * Opens the embedded SQLite database: WAL mode, foreign keys, the versioned migrations under
 * migrations/sqlite applied in place (drizzle's migrator records them in __drizzle_migrations,
 * so an older database is upgraded, never recreated). The only module that knows the driver.
 */
import Database from 'better-sqlite3';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { existsSync } from 'node:fs';
import { assetPath, isSingleExecutable } from '../runtime/assets.js';
import * as schema from './schema.js';
import { registerSqlFunctions } from './functions.js';

/** drizzle's handle, with the driver's own under `$client` for the few statements drizzle cannot prepare. */
export type Db = BetterSQLite3Database<typeof schema> & { $client: Database.Database };

export interface Database_ {
  readonly db: Db;
  readonly sqlite: Database.Database;
  readonly path: string;
  close(): void;
}

export interface OpenOptions {
  /** A file path or ':memory:'. */
  path: string;
  /** Where the migrations live; defaults to src/db/migrations/sqlite (unpacked, in the executable). */
  migrationsFolder?: string;
}

export function defaultMigrationsFolder(): string {
  return assetPath('src/db/migrations/sqlite');
}

/**
 * Inside the single executable there is no node_modules for better-sqlite3 to search, so the
 * addon carried in the binary is handed over by path; elsewhere better-sqlite3 finds its own.
 */
function nativeBinding(): string | undefined {
  return isSingleExecutable() ? assetPath('node_modules/better-sqlite3/build/Release/better_sqlite3.node') : undefined;
}

/** Compiled statements kept per connection; beyond this the oldest is dropped. */
const STATEMENT_CACHE_SIZE = 1000;

/**
 * drizzle asks better-sqlite3 to `prepare` every query it runs, and SQLite parses and plans the
 * SQL each time: on a point read that costs about as much as the read. The same query builder
 * always produces the same SQL text, so compiled statements are kept by text and reused. A
 * reused statement is set back to plain row objects, since drizzle switches some to raw arrays.
 * Nothing here iterates a statement, which is the one use that would make sharing one unsafe.
 */
function reuseStatements(sqlite: Database.Database): void {
  const prepare = sqlite.prepare.bind(sqlite);
  const statements = new Map<string, Database.Statement>();
  sqlite.prepare = ((source: string) => {
    let statement = statements.get(source);
    if (statement === undefined) {
      statement = prepare(source);
      if (statements.size >= STATEMENT_CACHE_SIZE) statements.delete(statements.keys().next().value ?? '');
      statements.set(source, statement);
    } else if (statement.reader) {
      statement.raw(false).pluck(false).expand(false);
    }
    return statement;
  }) as Database.Database['prepare'];
}

export function openDatabase(options: OpenOptions): Database_ {
  const sqlite = new Database(options.path, { nativeBinding: nativeBinding() });
  reuseStatements(sqlite);
  try {
    // WAL lets readers run beside the writer; NORMAL sync is durable against process crashes,
    // which is what an acknowledged write must survive (SIGKILL included).
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('busy_timeout = 5000');
    registerSqlFunctions(sqlite);
    const db = drizzle(sqlite, { schema });
    const migrationsFolder = options.migrationsFolder ?? defaultMigrationsFolder();
    if (!existsSync(migrationsFolder)) throw new Error(`migrations folder not found: ${migrationsFolder}`);
    migrate(db, { migrationsFolder });
    return {
      db,
      sqlite,
      path: options.path,
      close() {
        if (sqlite.open) sqlite.close();
      },
    };
  } catch (error) {
    if (sqlite.open) sqlite.close();
    throw error;
  }
}
