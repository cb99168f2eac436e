/**
 * The seam between drizzle and a database driver. A Driver runs SQL on the database the
 * configuration names: the embedded SQLite file (sqlite.ts) or PostgreSQL (postgres.ts). Each
 * has its own drizzle dialect and schema (open.ts): drizzle's SQLite dialect over its async
 * "proxy" session with schema.ts, or drizzle's node-postgres session with schema-postgres.ts.
 * The storage code is written once against the query builder both share, with the tables of the
 * handle's database (`schemaOf`); what differs beyond the builder (JSON functions, the query
 * language, queue leases, SQL written as text) asks `dialectOf` and writes each database's own SQL.
 *
 * Transactions follow the async call chain, not a handle: inside `transaction(body)` every query
 * `body` makes, through the transaction's handle or through the database's, runs in that
 * transaction. Everything else waits for it (SQLite: one connection, so one transaction at a
 * time) or runs beside it on another pooled connection (PostgreSQL).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ReadCache } from './read-cache.js';

export type DialectName = 'sqlite' | 'postgres';

/** The `n`th parameter's placeholder (from 1) in SQL text written for `dialect`. */
export function placeholder(dialect: DialectName, n: number): string {
  return dialect === 'postgres' ? `$${n}` : '?';
}

/** What drizzle's proxy session asks for: all rows, one row, or only the effect. */
export type Method = 'run' | 'all' | 'get' | 'values';

/** drizzle's proxy result: rows as arrays (`get`: the one row or undefined); `changes` for `run`. */
export interface ProxyResult {
  rows: unknown;
  changes?: number;
}

export interface Driver {
  readonly dialect: DialectName;
  /** SQL text in the database's own syntax (placeholders `?` in SQLite, `$1…$n` in PostgreSQL); rows as objects keyed by column name. */
  query<T = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  /** SQL text run for its effect, placeholders as for `query`; how many rows it changed. */
  run(sql: string, params?: readonly unknown[]): Promise<number>;
  /**
   * Holds one connection for `body`, which opens and ends the transaction itself (`begin` …
   * `commit`); nothing else runs on that connection meanwhile (see the module comment).
   */
  transaction<T>(body: () => Promise<T>): Promise<T>;
  /**
   * Runs `body` atomically: its changes are all committed, or none if it throws. Resolves once
   * they are committed. The SQLite driver may commit several bodies together (group commit).
   */
  atomic<T>(body: () => Promise<T>): Promise<T>;
  /** True inside the body of a transaction that is still open. */
  inTransaction(): boolean;
  /** Reads remembered until their tables change (read-cache.ts); only where every writer is seen. */
  readonly readCache?: ReadCache;
  /**
   * Resolves once the read cache knows of every change committed before the call, where changes
   * by others arrive asynchronously (PostgreSQL's change feed); absent where they cannot.
   */
  freshen?(): Promise<void>;
  /** The connection pool's use at this moment, where there is a pool (PostgreSQL). */
  poolUse?(): PoolUse;
  close(): Promise<void>;
}

/** Connections open (idle ones included), idle, requests waiting for one, and the pool's maximum. */
export interface PoolUse {
  readonly open: number;
  readonly idle: number;
  readonly waiting: number;
  readonly max: number;
}

/**
 * `atomic` as one transaction of its own: `begin` (or another opening statement), then `commit`,
 * or `rollback` if `body` throws — the body's error is the one passed on.
 */
export function atomicAlone<T>(driver: Driver, body: () => Promise<T>, begin = 'begin'): Promise<T> {
  return driver.transaction(async () => {
    await driver.run(begin);
    try {
      const result = await body();
      await driver.run('commit');
      return result;
    } catch (error) {
      await driver.run('rollback').catch(() => 0);
      throw error;
    }
  });
}

/** A transaction in progress: `open` turns false when it ends, for work it left running. */
export interface Scope<C> {
  readonly connection: C;
  open: boolean;
}

/**
 * Which transaction, if any, the current async call chain runs in. Before Node 24 an enabled
 * AsyncLocalStorage hooks every promise of the process (measured here: await-heavy code 2.8×
 * slower), so the storage is enabled only while a transaction is open and disabled again when
 * the last one ends: requests that run no transaction pay nothing. A chain that outlives its
 * transaction finds it closed (`open` false) and runs outside, as it would anyway.
 */
export class TransactionScope<C> {
  private readonly storage = new AsyncLocalStorage<Scope<C>>();
  private open = 0;

  current(): Scope<C> | undefined {
    if (this.open === 0) return undefined;
    const scope = this.storage.getStore();
    return scope?.open ? scope : undefined;
  }

  async run<T>(connection: C, body: () => Promise<T>): Promise<T> {
    const scope: Scope<C> = { connection, open: true };
    this.open++;
    try {
      return await this.storage.run(scope, body);
    } finally {
      scope.open = false;
      if (--this.open === 0) this.storage.disable();
    }
  }
}

/** Work per text, cached and bounded: statement texts (the query builder reuses them verbatim). */
export class TextCache<T> {
  private readonly entries = new Map<string, T>();
  constructor(private readonly limit: number) {}

  get(text: string, make: (text: string) => T): T {
    let value = this.entries.get(text);
    if (value === undefined) {
      value = make(text);
      if (this.entries.size >= this.limit) this.entries.delete(this.entries.keys().next().value ?? '');
      this.entries.set(text, value);
    }
    return value;
  }
}
