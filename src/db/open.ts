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

export function openDatabase(options: OpenOptions): Database_ {
  const sqlite = new Database(options.path, { nativeBinding: nativeBinding() });
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
