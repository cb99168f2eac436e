/**
 * The embedded SQLite driver: better-sqlite3 on one connection, WAL mode. better-sqlite3 runs a
 * statement synchronously, so a query never interleaves with another; a transaction spans awaits,
 * though, so while one is open every query from outside it waits for it to end (SQLite has one
 * writer anyway) instead of slipping into it.
 */
import Database from 'better-sqlite3';
import { assetPath, isSingleExecutable } from '../runtime/assets.js';
import { registerSqlFunctions } from './functions.js';
import { TextCache, TransactionScope, type Driver, type Method, type ProxyResult } from './driver.js';

/** Compiled statements kept per connection; beyond this the oldest is dropped. */
const STATEMENT_CACHE_SIZE = 1000;

/**
 * Inside the single executable there is no node_modules for better-sqlite3 to search, so the
 * addon carried in the binary is handed over by path; elsewhere better-sqlite3 finds its own.
 */
function nativeBinding(): string | undefined {
  return isSingleExecutable() ? assetPath('node_modules/better-sqlite3/build/Release/better_sqlite3.node') : undefined;
}

export interface SqliteDriver extends Driver {
  readonly dialect: 'sqlite';
  /** The connection itself, for the migrator and for tests that inspect the file. */
  readonly sqlite: Database.Database;
}

export function openSqlite(path: string): SqliteDriver {
  const sqlite = new Database(path, { nativeBinding: nativeBinding() });
  try {
    // WAL lets readers run beside the writer; NORMAL sync is durable against process crashes,
    // which is what an acknowledged write must survive (SIGKILL included).
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('busy_timeout = 5000');
    registerSqlFunctions(sqlite);
  } catch (error) {
    sqlite.close();
    throw error;
  }
  return createSqliteDriver(sqlite);
}

function createSqliteDriver(sqlite: Database.Database): SqliteDriver {
  // drizzle builds the same SQL text for the same query, and SQLite parsing and planning it again
  // costs about as much as a point read: compiled statements are kept by text. Nothing iterates
  // a statement, the one use that would make sharing one unsafe.
  const statements = new TextCache<Database.Statement>(STATEMENT_CACHE_SIZE);
  const statement = (text: string): Database.Statement => statements.get(text, (source) => sqlite.prepare(source));
  const scope = new TransactionScope<null>();
  // The transaction holding the connection, and a promise settled when it ends.
  let holder: { scope: object | undefined; ended: Promise<void> } | null = null;

  async function turn(): Promise<void> {
    const mine = scope.current();
    while (holder !== null && holder.scope !== mine) await holder.ended;
  }

  function rows(source: string, params: readonly unknown[], method: Method): ProxyResult {
    const compiled = statement(source);
    if (method === 'run' || !compiled.reader) return { rows: [], changes: compiled.run(...params).changes };
    compiled.raw(true);
    return { rows: method === 'get' ? compiled.get(...params) : compiled.all(...params) };
  }

  return {
    dialect: 'sqlite',
    sqlite,
    async execute(source, params, method) {
      if (holder !== null) await turn();
      return rows(source, params, method);
    },
    async query<T>(source: string, params: readonly unknown[] = []): Promise<T[]> {
      if (holder !== null) await turn();
      const compiled = statement(source);
      if (!compiled.reader) {
        compiled.run(...params);
        return [];
      }
      return compiled.raw(false).all(...params) as T[];
    },
    async run(source, params = []) {
      if (holder !== null) await turn();
      return statement(source).run(...params).changes;
    },
    async transaction(body) {
      // Checked and taken in one synchronous step, so two transactions cannot both see it free.
      while (holder !== null) await holder.ended;
      let end!: () => void;
      const ended = new Promise<void>((resolve) => (end = resolve));
      return scope.run(null, async () => {
        holder = { scope: scope.current(), ended };
        try {
          return await body();
        } finally {
          holder = null;
          end();
        }
      });
    },
    inTransaction: () => scope.current() !== undefined,
    async close() {
      if (sqlite.open) sqlite.close();
    },
  };
}
