/**
 * The embedded SQLite driver: better-sqlite3 on one connection, WAL mode. better-sqlite3 runs a
 * statement synchronously, so a query never interleaves with another; a transaction spans awaits,
 * though, so while one is open every query from outside it waits for it to end (SQLite has one
 * writer anyway) instead of slipping into it (group-commit.ts, which also lets transactions started
 * in the same turn of the event loop share one commit).
 */
import Database from 'better-sqlite3';
import { assetPath, isSingleExecutable } from '../runtime/assets.js';
import { registerSqlFunctions } from './functions.js';
import { TextCache, TransactionScope, type Driver, type Method, type ProxyResult } from './driver.js';
import { createTurns } from './group-commit.js';
import { groupIndexing } from './group-indexing.js';
import { oncePerTurn, ReadCache, tablesOf, writtenTable } from './read-cache.js';
import * as schema from './schema.js';

/**
 * Pages the WAL grows to before a commit copies them into the database file (about 40 MB; SQLite's
 * default is 1,000). An entity's create dirties pages of four indexes (docs/design.md#the-property-index),
 * and a checkpoint copies each page once however often the WAL holds it, then syncs the file: with
 * ten times the WAL, the hot pages are copied and synced a tenth as often. The parse scenario's
 * create took a median 534 µs CPU instead of 589 (nine interleaved pairs, load average 3–9), its
 * inserts alone 178–194 µs instead of 220–229 (docs/benchmarks.md#creating-an-entity-on-sqlite).
 * The WAL is synced only at checkpoints (`synchronous = NORMAL`), so a power cut may roll back the
 * commits of a longer stretch; a process crash still loses none.
 */
const WAL_CHECKPOINT_PAGES = 10_000;

/** Compiled statements kept per connection; beyond this the oldest is dropped. */
const STATEMENT_CACHE_SIZE = 1000;

/**
 * The text SQLite compiles for `source`: each `LIMIT ?` and `OFFSET ?` (drizzle renders every
 * limit as a parameter) as `?+0`. SQLite compiles a statement again on its next step whenever a
 * new value is bound to a parameter that may change its plan (sqlite.org/c3ref/prepare.html), and
 * a bare parameter as LIMIT is one; `?+0` is an expression, read when the statement runs, with
 * the same meaning. Measured 2026-11-25 (docs/benchmarks.md#speed-ups-and-their-figures): a page of
 * `where age = 7` over 10,000 entities, whose two statements (the candidates' count and the read)
 * have a LIMIT, cost the server 447–480 µs CPU per request with `?` and 202–205 with `?+0`.
 */
const withRunTimeLimits = (source: string): string => source.replace(/\b(limit|offset) \?(?![\d+])/gi, '$1 ?+0');

/**
 * Inside the single executable there is no node_modules for better-sqlite3 to search, so the
 * addon carried in the binary is handed over by path; elsewhere better-sqlite3 finds its own.
 */
export function nativeBinding(): string | undefined {
  return isSingleExecutable() ? assetPath('node_modules/better-sqlite3/build/Release/better_sqlite3.node') : undefined;
}

export interface SqliteDriver extends Driver {
  readonly dialect: 'sqlite';
  /** drizzle's proxy callback (open.ts). */
  execute(sql: string, params: readonly unknown[], method: Method): Promise<ProxyResult>;
  /**
   * Runs an INSERT of entities atomically, on its own (outside any transaction), as a unit of a
   * group commit whose entities are indexed together at the end of the group (group-indexing.ts).
   */
  insertEntitiesAlone(sql: string, params: readonly unknown[]): Promise<number>;
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
    // A checkpoint every WAL_CHECKPOINT_PAGES instead of SQLite's 1,000: see the constant.
    sqlite.pragma(`wal_autocheckpoint = ${WAL_CHECKPOINT_PAGES}`);
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('busy_timeout = 5000');
    registerSqlFunctions(sqlite);
  } catch (error) {
    sqlite.close();
    throw error;
  }
  return createSqliteDriver(sqlite);
}

interface Compiled {
  readonly statement: Database.Statement;
  /** Whether running it may change the database (not a transaction's begin or end). */
  readonly writes: boolean;
  /** The table it changes, when its text names one. */
  readonly table: string | undefined;
}

function createSqliteDriver(sqlite: Database.Database): SqliteDriver {
  // drizzle builds the same SQL text for the same query, and SQLite parsing and planning it again
  // costs about as much as a point read: compiled statements are kept by text. Nothing iterates
  // a statement, the one use that would make sharing one unsafe.
  // Each with the table it writes, if it writes: a change bumps that table's version in the
  // read cache (read-cache.ts) — also the change of a transaction later rolled back, which only
  // makes a remembered read be read again.
  const statements = new TextCache<Compiled>(STATEMENT_CACHE_SIZE);
  const statement = (text: string): Compiled =>
    statements.get(text, (source) => {
      const prepared = sqlite.prepare(withRunTimeLimits(source));
      return { statement: prepared, writes: !prepared.readonly, table: writtenTable(source) };
    });
  const scope = new TransactionScope<null>();
  const indexing = groupIndexing(sqlite);
  const turns = createTurns(sqlite, scope, indexing.settle);
  const dataVersion = sqlite.prepare('pragma data_version').pluck();
  const readCache = new ReadCache(
    tablesOf(schema),
    oncePerTurn(() => dataVersion.get() as number),
    () => scope.current() !== undefined,
  );
  /** Runs a statement for its effect; a change reaches the read cache. */
  const change = (compiled: Compiled, params: readonly unknown[]): number => {
    const { changes } = compiled.statement.run(...params);
    if (changes > 0) readCache.written(compiled.table);
    return changes;
  };
  /** Reads a statement's rows; one that writes (RETURNING) reaches the read cache. */
  const read = <T>(compiled: Compiled, read: (statement: Database.Statement) => T): T => {
    const result = read(compiled.statement);
    if (compiled.writes) readCache.written(compiled.table);
    return result;
  };
  function rows(source: string, params: readonly unknown[], method: Method): ProxyResult {
    const compiled = statement(source);
    if (method === 'run' || !compiled.statement.reader) return { rows: [], changes: change(compiled, params) };
    return { rows: read(compiled, (prepared) => (method === 'get' ? prepared.raw(true).get(...params) : prepared.raw(true).all(...params))) };
  }

  const driver: SqliteDriver = {
    dialect: 'sqlite',
    sqlite,
    async execute(source, params, method) {
      if (turns.held()) await turns.turn();
      return rows(source, params, method);
    },
    async query<T>(source: string, params: readonly unknown[] = []): Promise<T[]> {
      if (turns.held()) await turns.turn();
      const compiled = statement(source);
      if (!compiled.statement.reader) {
        change(compiled, params);
        return [];
      }
      return read(compiled, (prepared) => prepared.raw(false).all(...params) as T[]);
    },
    async run(source, params = []) {
      if (turns.held()) await turns.turn();
      return change(statement(source), params);
    },
    insertEntitiesAlone: (source, params) => turns.atomicStatement(() => indexing.leaving(() => change(statement(source), params))),
    transaction: (body) => turns.transaction(body),
    atomic: (body) => turns.atomic(body),
    inTransaction: () => scope.current() !== undefined,
    readCache,
    async close() {
      await turns.settled();
      if (sqlite.open) sqlite.close();
    },
  };
  return driver;
}
