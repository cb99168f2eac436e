/**
 * Reads remembered until a table they read from changes: the organization, application,
 * collection, admin user, membership and revocation lookups every authenticated request makes
 * before it reaches its own data. Each of them is a point read, but a point read through the
 * driver costs more than the rest of a small request together; remembered, a request pays only
 * for the rows it is about.
 *
 * Correct by construction, not by expiry: every table has a version, and the driver bumps it
 * (with every table whose foreign keys point at it, for cascades) on each statement that
 * changed a row of it. A remembered value carries the versions of its tables at the moment its
 * read started, so a change made after that moment — by this process, or by another process on
 * the same SQLite file (`PRAGMA data_version`, asked once per turn of the event loop, see
 * oncePerTurn) — is seen by the next request. Inside a transaction nothing is remembered or
 * served: the transaction must see its own writes, and they may still be rolled back.
 *
 * On PostgreSQL other instances write where this one cannot see: their changes arrive through
 * the change feed (change-feed.ts), and only the tables it reports are remembered
 * (docs/design.md#the-read-cache). Of a table whose new rows it does not report (`entities`),
 * only single rows found by a key no other row can hold are remembered (`rememberedRow` in
 * open.ts): no insert can change such a row, while "not found" would go stale at the first insert
 * made elsewhere, so it is read again each time.
 *
 * The fast path for authenticated reads, measured on 2026-11-24 against every lookup going to
 * the database (`get-entity` scenario, 3 interleaved pairs,
 * docs/benchmarks.md#speed-ups-and-their-figures): 89 vs 198 µs CPU per request, 6,530 vs 3,296
 * req/s. Storage functions reach it only through `remembered` (src/db/open.ts).
 */
import { getTableName, is, type Table } from 'drizzle-orm';
import { getTableConfig, SQLiteTable } from 'drizzle-orm/sqlite-core';

/** Entries beyond this evict the oldest. */
const DEFAULT_LIMIT = 10_000;

/** The tables among a schema module's exports. */
export function tablesOf(schema: Record<string, unknown>): SQLiteTable[] {
  return Object.values(schema).filter((value): value is SQLiteTable => is(value, SQLiteTable));
}

/** The tables the foreign keys of `table` point at, by name. */
export function parentsOf(table: SQLiteTable): string[] {
  return [...new Set(getTableConfig(table).foreignKeys.map((fk) => getTableConfig(fk.reference().foreignTable).name))];
}

/** For each table, itself and every table that (through a chain of foreign keys) points at it. */
function dependentsOf(tables: readonly SQLiteTable[]): Map<string, string[]> {
  const children = new Map<string, string[]>();
  for (const table of tables) {
    const name = getTableConfig(table).name;
    for (const parent of parentsOf(table)) children.set(parent, [...(children.get(parent) ?? []), name]);
  }
  const closure = new Map<string, string[]>();
  for (const table of tables) {
    const name = getTableConfig(table).name;
    const reached = new Set<string>([name]);
    const queue = [name];
    while (queue.length > 0) {
      for (const child of children.get(queue.pop()!) ?? []) {
        if (!reached.has(child)) {
          reached.add(child);
          queue.push(child);
        }
      }
    }
    closure.set(name, [...reached]);
  }
  return closure;
}

/** The table a writing statement's text names (drizzle's and our own SQL), or undefined. */
export function writtenTable(text: string): string | undefined {
  const match = /^\s*(?:(?:insert|replace)(?:\s+or\s+\w+)?\s+into|update(?:\s+or\s+\w+)?|delete\s+from)\s+"?(\w+)"?/i.exec(text);
  return match?.[1]?.toLowerCase();
}

/**
 * `read`, asked at most once per turn of the event loop. Asking SQLite's data_version costs a
 * read transaction (about as much as a point read), and one request makes several lookups. Once
 * per turn still sees every change a caller could know of: a commit made by another process
 * before a request arrived happened before the turn that reads the request.
 */
export function oncePerTurn<T>(read: () => T): () => T {
  let value: T;
  let fresh = false;
  return () => {
    if (!fresh) {
      value = read();
      fresh = true;
      setImmediate(() => (fresh = false));
    }
    return value;
  };
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const member of Object.values(value)) deepFreeze(member);
  }
  return value;
}

/**
 * What the cache is told of other writers' changes to a table: every change, or every change but
 * new rows (PostgreSQL's change feed for `entities`, migration 0026_change_feed_without_inserts).
 */
export type Heard = 'every change' | 'all but inserts';

interface Entry {
  stamp: number;
  value: unknown;
}

export class ReadCache {
  private readonly versions = new Map<string, number>();
  private readonly dependents: Map<string, string[]>;
  private readonly entries = new Map<string, Entry>();
  /** Bumped when a change cannot be pinned to tables (DDL, another process): every entry is stale. */
  private epoch = 0;
  private outside: number | undefined;

  /**
   * `externalVersion`: a number that changes when another connection commits (SQLite's
   * data_version). `inTransaction`: whether the caller runs inside an open transaction.
   */
  constructor(
    tables: readonly SQLiteTable[],
    private readonly externalVersion: () => number,
    private readonly inTransaction: () => boolean,
    private readonly limit = DEFAULT_LIMIT,
    /** The tables whose changes the cache is told of, and which; reads of any other table are not remembered (every change of every table when undefined). */
    private readonly covered?: ReadonlyMap<string, Heard>,
  ) {
    this.dependents = dependentsOf(tables);
  }

  /** A statement changed rows of `table` (undefined: of tables it cannot name). */
  written(table: string | undefined): void {
    const affected = table === undefined ? undefined : this.dependents.get(table);
    if (affected === undefined) {
      this.epoch++;
      return;
    }
    for (const name of affected) this.versions.set(name, (this.versions.get(name) ?? 0) + 1);
  }

  /** Versions only grow, so their sum changes whenever one of them does. */
  private stampOf(tables: readonly Table[]): number {
    let stamp = this.epoch;
    for (const table of tables) stamp += this.versions.get(getTableName(table)) ?? 0;
    return stamp;
  }

  /** What the cache is told of changes to all of `tables`: the least it is told of one of them, undefined when nothing. */
  private heardOf(tables: readonly Table[]): Heard | undefined {
    if (this.covered === undefined) return 'every change';
    let heard: Heard = 'every change';
    for (const table of tables) {
      const told = this.covered.get(getTableName(table));
      if (told === undefined) return undefined;
      if (told === 'all but inserts') heard = told;
    }
    return heard;
  }

  /**
   * What `load` reads from `tables`, remembered under `key` until one of them changes. `row`: the
   * read is of one row by a key no other row can hold (a primary key, a unique index), undefined
   * when there is none; such a read is remembered where inserts are not heard of, once found.
   */
  async get<T>(key: string, tables: readonly Table[], load: () => Promise<T>, row = false): Promise<T> {
    if (this.inTransaction()) return load();
    const heard = this.heardOf(tables);
    if (heard === undefined || (heard === 'all but inserts' && !row)) return load();
    const outside = this.externalVersion();
    if (outside !== this.outside) {
      if (this.outside !== undefined) this.epoch++;
      this.outside = outside;
    }
    const stamp = this.stampOf(tables);
    const entry = this.entries.get(key);
    if (entry !== undefined && entry.stamp === stamp) return entry.value as T;
    const value = deepFreeze(await load());
    // Not found, where a row inserted elsewhere would not be heard of: asked again next time.
    if (value === undefined && heard === 'all but inserts') {
      this.entries.delete(key);
      return value;
    }
    if (entry === undefined && this.entries.size >= this.limit) this.entries.delete(this.entries.keys().next().value ?? '');
    this.entries.set(key, { stamp, value });
    return value;
  }
}
