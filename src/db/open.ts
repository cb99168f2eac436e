/**
 * Opens the embedded SQLite database: WAL mode, foreign keys, the versioned migrations under
 * migrations/sqlite applied in place (drizzle's migrator records them in __drizzle_migrations,
 * so an older database is upgraded, never recreated). The only module that knows the driver.
 */
import Database from 'better-sqlite3';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';
import * as schema from './schema.js';
import { registerSqlFunctions } from './functions.js';

export type Db = BetterSQLite3Database<typeof schema>;

export interface Database_ {
  readonly db: Db;
  readonly sqlite: Database.Database;
  readonly path: string;
  close(): void;
}

export interface OpenOptions {
  /** A file path or ':memory:'. */
  path: string;
  /** Where the migrations live; defaults to the folder shipped beside this module. */
  migrationsFolder?: string;
}

export function defaultMigrationsFolder(): string {
  return fileURLToPath(new URL('./migrations/sqlite', import.meta.url));
}

export function openDatabase(options: OpenOptions): Database_ {
  const sqlite = new Database(options.path);
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
