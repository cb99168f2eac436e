/**
 * The PostgreSQL driver: node-postgres (`pg`) with a connection pool. drizzle's node-postgres
 * session builds the storage layer's SQL in PostgreSQL's own dialect and sends it through
 * `client` (see open.ts); statements written as text use `$1…$n` placeholders. Nothing here
 * changes a statement's text.
 *
 * Transactions run SERIALIZABLE, so code written for SQLite's one writer at a time keeps its
 * guarantees when several instances write at once (a refresh token rotates once, a code is used
 * once); a transaction PostgreSQL aborts as a serialization failure is run again from the start.
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import { atomicAlone, TextCache, TransactionScope, type Driver } from './driver.js';
import { startChangeFeed, type ChangeFeed } from './change-feed.js';
import { ReadCache, tablesOf, writtenTable, type Heard } from './read-cache.js';
import * as schema from './schema.js';

export interface PostgresOptions {
  readonly url: string;
  /** Connections in the pool. */
  readonly poolSize?: number;
}

/** What drizzle's node-postgres session sends its statements to: `pg`'s `query(config, values)`. */
export interface QueryClient {
  query(config: pg.QueryConfig | pg.QueryArrayConfig, values?: unknown[]): Promise<pg.QueryResult>;
}

export interface PostgresDriver extends Driver {
  readonly dialect: 'postgres';
  readonly pool: pg.Pool;
  /**
   * The client drizzle's session is given: each statement runs on the connection of the
   * transaction of its async call chain, or on any pooled one (driver.ts).
   */
  readonly client: QueryClient;
  /**
   * From now on, remembers reads of the `covered` tables (those the change feed reports, see
   * change-feed.ts) until a change to them is heard or made here. Called once the schema is migrated.
   */
  rememberReads(covered: ReadonlyMap<string, Heard>): void;
}

/** Commands after which rows may have changed; DDL changes what any read means. */
const CHANGING = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE', 'TRUNCATE', 'COPY']);
const DEFINING = new Set(['CREATE', 'ALTER', 'DROP']);

// Row values the storage layer expects as SQLite returns them: 64-bit integers (ms timestamps,
// counts) as numbers, JSON as its text (drizzle's JSON columns parse it themselves).
const INT8 = 20;
const NUMERIC = 1700;
const JSON_OID = 114;
const JSONB = 3802;
const typeParsers: Record<number, (value: string) => unknown> = {
  [INT8]: Number,
  [NUMERIC]: Number,
  [JSON_OID]: (value) => value,
  [JSONB]: (value) => value,
};
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    return typeParsers[oid] ?? pg.types.getTypeParser(oid, format);
  },
};

const SERIALIZATION_FAILURE = '40001';
const DEADLOCK = '40P01';
const MAX_ATTEMPTS = 10;
const RETRY_MAX_DELAY_MS = 250;

/**
 * How long to wait before running a transaction again: exponential with full jitter, so that
 * transactions that conflicted (concurrent inserts into one collection do) do not meet again.
 */
function retryDelay(attempt: number): number {
  return Math.random() * Math.min(RETRY_MAX_DELAY_MS, 2 ** attempt);
}

/** drizzle wraps the driver's error (DrizzleQueryError), so the code may sit on a `cause`. */
function isRetryable(error: unknown): boolean {
  for (
    let current = error, depth = 0;
    typeof current === 'object' && current !== null && depth < 5;
    current = (current as { cause?: unknown }).cause, depth++
  ) {
    const code = (current as { code?: unknown }).code;
    if (code === SERIALIZATION_FAILURE || code === DEADLOCK) return true;
  }
  return false;
}

/**
 * The read cache of one pool (docs/design.md#the-read-cache): told of this instance's changes by
 * `noteChange` after each statement, of everyone else's by the change feed.
 */
function trackChanges(url: string, scope: TransactionScope<pg.PoolClient>) {
  let readCache: ReadCache | undefined;
  let feed: ChangeFeed | undefined;
  // The tables each open transaction changed: told again at its commit, since a read by another
  // connection in between saw them unchanged and may have been remembered as current.
  const changedIn = new WeakMap<object, Set<string | undefined>>();
  return {
    get readCache() {
      return readCache;
    },
    /** A statement of this instance changed rows: forget what was read of its table, now and at commit. */
    noteChange(source: string, result: pg.QueryResult): void {
      if (readCache === undefined) return;
      const transaction = scope.current();
      if (result.command === 'COMMIT') {
        for (const table of (transaction && changedIn.get(transaction)) ?? []) readCache.written(table);
        return;
      }
      const defines = DEFINING.has(result.command);
      if (!defines && !(CHANGING.has(result.command) && (result.rowCount ?? 0) > 0)) return;
      const table = defines ? undefined : writtenTable(source);
      readCache.written(table);
      if (transaction === undefined) return;
      const tables = changedIn.get(transaction) ?? new Set();
      tables.add(table);
      changedIn.set(transaction, tables);
    },
    freshen: (): Promise<void> => feed?.sync() ?? Promise.resolve(),
    rememberReads(covered: ReadonlyMap<string, Heard>): void {
      if (feed !== undefined) return;
      feed = startChangeFeed({ url, changed: (table) => readCache?.written(table) });
      readCache = new ReadCache(tablesOf(schema), feed.version, () => scope.current() !== undefined, undefined, covered);
    },
    close: async (): Promise<void> => feed?.close(),
  };
}

export function openPostgres(options: PostgresOptions): PostgresDriver {
  const pool = new pg.Pool({ connectionString: options.url, max: options.poolSize ?? 10, types });
  // An idle pooled connection that drops (server restart) must not take the process down.
  pool.on('error', () => undefined);
  const texts = new TextCache<string>(2000);
  const scope = new TransactionScope<pg.PoolClient>();
  const target = (): pg.Pool | pg.PoolClient => scope.current()?.connection ?? pool;
  // Named statements: PostgreSQL parses and plans each text once per connection, not per query.
  const nameOf = (source: string) => texts.get(source, (text) => `idp_${createHash('sha1').update(text).digest('hex').slice(0, 16)}`);
  const changes = trackChanges(options.url, scope);
  const submit = async (config: pg.QueryConfig | pg.QueryArrayConfig, values?: unknown[]) => {
    // drizzle passes type parsers of its own; the pool's (above) are what the storage layer reads.
    const result = await target().query({ ...config, name: config.name || nameOf(config.text), values: values ?? config.values, types });
    changes.noteChange(config.text, result);
    return result;
  };

  const driver: PostgresDriver = {
    dialect: 'postgres',
    pool,
    client: { query: submit },
    async query<T>(source: string, params: readonly unknown[] = []): Promise<T[]> {
      return (await submit({ text: source, values: params as unknown[] })).rows as T[];
    },
    async run(source, params = []) {
      return (await submit({ text: source, values: params as unknown[] })).rowCount ?? 0;
    },
    async transaction(body) {
      const connection = await pool.connect();
      try {
        for (let attempt = 1; ; attempt++) {
          try {
            return await scope.run(connection, body);
          } catch (error) {
            if (attempt >= MAX_ATTEMPTS || !isRetryable(error)) throw error;
            await new Promise((resolve) => setTimeout(resolve, retryDelay(attempt)));
          }
        }
      } finally {
        connection.release();
      }
    },
    atomic: (body) => atomicAlone(driver, body, 'begin isolation level serializable'),
    inTransaction: () => scope.current() !== undefined,
    get readCache() {
      return changes.readCache;
    },
    freshen: () => changes.freshen(),
    rememberReads: (covered) => changes.rememberReads(covered),
    poolUse: () => ({ open: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max: pool.options.max ?? 10 }),
    async close() {
      await changes.close();
      await pool.end();
    },
  };
  return driver;
}
