/**
 * Running a query built with drizzle's query builder on either database (driver.ts): the few
 * things the SQLite and PostgreSQL builders do differently, each as one function that asks the
 * builder or handle which database it belongs to.
 */
import type { Query, SQL } from 'drizzle-orm';
import type { SQLiteDialect } from 'drizzle-orm/sqlite-core';
import type { SqliteRemoteDatabase } from 'drizzle-orm/sqlite-proxy';
import type { PgDialect } from 'drizzle-orm/pg-core';
import { clientOf, dialectOf, type Db, type Tx } from './open.js';
import type { PostgresDriver } from './postgres.js';

/** drizzle's SQLite builder answers one row itself; PostgreSQL's answers its rows. */
interface OneRow<T> extends PromiseLike<unknown> {
  get(): Promise<T>;
}

/** The first row a query answers, or undefined when it answers none. */
export async function first<T>(query: OneRow<T>): Promise<T> {
  if (typeof query.get === 'function') return await query.get();
  const rows = (await query) as T[];
  return rows[0];
}

/**
 * How many rows a statement changed, from its result: SQLite's driver reports `changes`
 * (sqlite.ts), node-postgres `rowCount`.
 */
export function changes(result: unknown): number {
  const { changes, rowCount } = result as { changes?: number; rowCount?: number | null };
  return changes ?? rowCount ?? 0;
}

/** Runs a statement written with drizzle's `sql` for its effect; how many rows it changed. */
export async function execute(tx: Tx, statement: SQL): Promise<number> {
  if (dialectOf(tx) === 'postgres') return changes(await (tx as unknown as { execute(statement: SQL): Promise<unknown> }).execute(statement));
  return changes(await (tx as unknown as SqliteRemoteDatabase).run(statement));
}

/**
 * The rows of a statement written with drizzle's `sql`, each an array of its columns' values in
 * the order selected (as drizzle's SQLite handle answers `all(sql)`).
 */
export async function rows<T extends unknown[]>(tx: Tx, statement: SQL): Promise<T[]> {
  if (dialectOf(tx) === 'postgres') {
    const query = sqlOf(tx, statement);
    const result = await (clientOf(tx) as PostgresDriver).client.query({ text: query.sql, values: query.params, rowMode: 'array' });
    return result.rows as T[];
  }
  return await (tx as unknown as SqliteRemoteDatabase).all<T>(statement);
}

/** A statement written with drizzle's `sql` as the text and parameters of the handle's own dialect. */
export function sqlOf(tx: Tx, statement: SQL): Query {
  return (Reflect.get(tx, 'dialect') as PgDialect | SQLiteDialect).sqlToQuery(statement);
}

/** The first of `rows`, or undefined. */
export async function row<T extends unknown[]>(tx: Tx, statement: SQL): Promise<T | undefined> {
  return (await rows<T>(tx, statement))[0];
}

/**
 * Runs `body`, which makes exactly one statement, atomically. A statement is atomic on its own,
 * so it runs as it comes, outside a transaction: on PostgreSQL without a transaction's `begin`
 * and `commit`, two of the four round trips of creating an entity (measured in one run,
 * create-entity, 50 connections, load 5–7: 351–388 → 466–478 req/s, 699–753 → 441–505 µs CPU
 * per request, docs/benchmarks.md#postgresql); the SQLite driver still shares one commit among
 * the statements of a turn that insert entities (group-indexing.ts).
 */
export function oneStatement<T>(db: Db, body: (tx: Tx) => Promise<T>): Promise<T> {
  return body(db);
}

/** What a prepared statement answers, named as SQLite's builder names it. */
interface Prepared {
  get(values?: Record<string, unknown>): Promise<unknown>;
  all(values?: Record<string, unknown>): Promise<unknown>;
  run(values?: Record<string, unknown>): Promise<unknown>;
}

interface Preparable<P> {
  prepare(): P;
}

/**
 * A query prepared once, run many times with its `sql.placeholder` values (prepared.ts). SQLite's
 * builder gives `get`/`all`/`run`; PostgreSQL's gives `execute`, which answers rows (or, without
 * `returning`, node-postgres's result), so the same three are made of it.
 */
export function prepare<P extends Prepared>(query: Preparable<P>): P {
  const prepared = query.prepare() as P | { execute(values?: Record<string, unknown>): Promise<unknown> };
  if (!('execute' in prepared) || 'get' in prepared) return prepared as P;
  return {
    get: async (values) => ((await prepared.execute(values)) as unknown[])[0],
    all: (values) => prepared.execute(values),
    run: (values) => prepared.execute(values),
  } satisfies Prepared as P;
}
