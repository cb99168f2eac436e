/**
 * The embedded SQLite driver: better-sqlite3 on one connection, WAL mode. better-sqlite3 runs a
 * statement synchronously, so a query never interleaves with another; a transaction spans awaits,
 * though, so while one is open every query from outside it waits for it to end (SQLite has one
 * writer anyway) instead of slipping into it. Transactions started in the same turn of the event
 * loop share one commit (`atomic`, group commit).
 */
import Database from 'better-sqlite3';
import { assetPath, isSingleExecutable } from '../runtime/assets.js';
import { registerSqlFunctions } from './functions.js';
import { TextCache, TransactionScope, type Driver, type Method, type ProxyResult } from './driver.js';
import { oncePerTurn, ReadCache, tablesOf, writtenTable } from './read-cache.js';
import * as schema from './schema.js';

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

/** The connection's holder (see `createSqliteDriver`). */
interface Holder {
  scope: object | undefined;
  readonly ended: Promise<void>;
}

/** Nobody's statements run: the holder's scope between the units of a group. */
const NO_ONE: object = Object.freeze({});

/** A promise and what settles it. */
interface Deferred {
  readonly promise: Promise<void>;
  readonly settle: (error?: unknown) => void;
}

function deferred(): Deferred {
  let settle!: (error?: unknown) => void;
  const promise = new Promise<void>((resolve, reject) => (settle = (error) => (error === undefined ? resolve() : reject(error))));
  return { promise, settle };
}

/** Atomic units sharing one transaction and one commit. */
interface Group {
  readonly holder: Holder;
  /** Lets go of the connection. */
  readonly end: () => void;
  /** Settled by the commit: resolved, or rejected with its error. */
  readonly committed: Deferred;
  /** Settled when the unit running now ends; null while none runs. */
  unit: Deferred | null;
  /** The commit is due: no unit joins any more, and the last one to end commits. */
  due: boolean;
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
      const prepared = sqlite.prepare(source);
      return { statement: prepared, writes: !prepared.readonly, table: writtenTable(source) };
    });
  const scope = new TransactionScope<null>();
  const dataVersion = sqlite.prepare('pragma data_version').pluck();
  const readCache = new ReadCache(tablesOf(schema), oncePerTurn(() => dataVersion.get() as number), () => scope.current() !== undefined);
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
  // Who holds the connection — an exclusive `transaction`, or a group of `atomic` units — and a
  // promise settled when it lets go. `scope` is the transaction whose statements may run now;
  // every other statement waits for `ended`.
  let holder: Holder | null = null;
  // The group of atomic units open now, if any (see `atomic`).
  let group: Group | null = null;

  async function turn(): Promise<void> {
    const mine = scope.current();
    while (holder !== null && holder.scope !== mine) await holder.ended;
  }

  /** Takes the connection for an exclusive transaction or a group: synchronously, once it is free. */
  function hold(): { holder: Holder; end: () => void } {
    const ended = deferred();
    holder = { scope: NO_ONE, ended: ended.promise };
    return { holder, end: () => ended.settle() };
  }

  const transactionStatements = {
    // IMMEDIATE: the group takes the write lock and its snapshot at once. Deferred, a unit that
    // writes after another process committed would find the group's snapshot stale (SQLITE_BUSY,
    // with no waiting), and so would every unit after it.
    begin: sqlite.prepare('begin immediate'),
    commit: sqlite.prepare('commit'),
    rollback: sqlite.prepare('rollback'),
    savepoint: sqlite.prepare('savepoint idp_unit'),
    release: sqlite.prepare('release idp_unit'),
    rollbackUnit: sqlite.prepare('rollback to idp_unit'),
  };

  function openGroup(): Group {
    const { holder: groupHolder, end } = hold();
    try {
      transactionStatements.begin.run();
    } catch (error) {
      holder = null;
      end();
      throw error;
    }
    const committed = deferred();
    // Units whose changes were kept await it; when every unit failed, nobody does.
    committed.promise.catch(() => undefined);
    const opened: Group = { holder: groupHolder, end, committed, unit: null, due: false };
    group = opened;
    // Units that start in this turn of the event loop join; the commit follows, after I/O.
    setImmediate(() => {
      opened.due = true;
      if (opened.unit === null) commitGroup(opened);
    });
    return opened;
  }

  function commitGroup(ending: Group): void {
    try {
      transactionStatements.commit.run();
      ending.committed.settle();
    } catch (error) {
      // A failed COMMIT can leave the transaction open (SQLite keeps it for a retry).
      if (sqlite.inTransaction) transactionStatements.rollback.run();
      ending.committed.settle(error);
    } finally {
      group = null;
      holder = null;
      ending.end();
    }
  }

  /** Runs one unit inside the open group, between a savepoint and its release. */
  async function runUnit<T>(joined: Group, body: () => Promise<T>): Promise<T> {
    const unit = (joined.unit = deferred());
    const result = await scope.run(null, async () => {
      joined.holder.scope = scope.current();
      try {
        // Some errors (a full disk, I/O) make SQLite roll back the whole transaction: the group is
        // lost, its commit will fail, and a unit joining now must not begin another by its savepoint.
        if (!sqlite.inTransaction) throw new Error('SQLite rolled back the transaction this change was to join; nothing was changed');
        transactionStatements.savepoint.run();
        const value = await body();
        transactionStatements.release.run();
        return value;
      } catch (error) {
        if (sqlite.inTransaction) {
          transactionStatements.rollbackUnit.run();
          transactionStatements.release.run();
        }
        throw error;
      } finally {
        joined.holder.scope = NO_ONE;
        joined.unit = null;
        unit.settle();
        if (joined.due) commitGroup(joined);
      }
    });
    await joined.committed.promise;
    return result;
  }

  function rows(source: string, params: readonly unknown[], method: Method): ProxyResult {
    const compiled = statement(source);
    if (method === 'run' || !compiled.statement.reader) return { rows: [], changes: change(compiled, params) };
    return { rows: read(compiled, (prepared) => (method === 'get' ? prepared.raw(true).get(...params) : prepared.raw(true).all(...params))) };
  }

  const driver: SqliteDriver = {
    dialect: 'sqlite',
    sqlite,
    async execute(source, params, method) {
      if (holder !== null) await turn();
      return rows(source, params, method);
    },
    async query<T>(source: string, params: readonly unknown[] = []): Promise<T[]> {
      if (holder !== null) await turn();
      const compiled = statement(source);
      if (!compiled.statement.reader) {
        change(compiled, params);
        return [];
      }
      return read(compiled, (prepared) => prepared.raw(false).all(...params) as T[]);
    },
    async run(source, params = []) {
      if (holder !== null) await turn();
      return change(statement(source), params);
    },
    async transaction(body) {
      // Checked and taken in one synchronous step, so two transactions cannot both see it free.
      while (holder !== null) await holder.ended;
      const held = hold();
      return scope.run(null, async () => {
        held.holder.scope = scope.current();
        try {
          return await body();
        } finally {
          holder = null;
          held.end();
        }
      });
    },
    // Group commit: a commit appends the changed pages to the WAL, about as costly as the insert
    // before it (measured: 40 µs per one-row transaction, 15 µs per row when ten share one).
    // Units that start while a group is open run one after another in its transaction, each
    // between a savepoint and its release (a unit that throws is rolled back to its savepoint
    // alone), and the group commits once, after the turn of the event loop that opened it. A unit resolves
    // only once its changes are committed, and no statement from outside the group runs before
    // that commit, so nothing uncommitted is ever seen — and if the commit fails, every unit of
    // the group fails with it.
    async atomic(body) {
      for (;;) {
        if (holder === null) return await runUnit(openGroup(), body);
        const open = group;
        if (open !== null && holder === open.holder && !open.due) {
          if (open.unit === null) return await runUnit(open, body);
          await open.unit.promise;
        } else {
          await holder.ended;
        }
      }
    },
    inTransaction: () => scope.current() !== undefined,
    readCache,
    async close() {
      // A group still open commits first: its units were told nothing yet, and may still be awaited.
      while (group !== null) await group.holder.ended;
      if (sqlite.open) sqlite.close();
    },
  };
  return driver;
}
