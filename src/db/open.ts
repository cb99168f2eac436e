/**
 * Opens the database the configuration names — the embedded SQLite file (`--db`) or PostgreSQL
 * (`--database-url`) — applies that database's versioned migrations in place (recorded in
 * drizzle's __drizzle_migrations, so an older database is upgraded, never recreated; one instance
 * at a time; a database a newer idp upgraded is refused, see schema-version.ts), and hands back
 * a drizzle handle in that database's own dialect (see driver.ts). The only module that knows
 * which drivers exist.
 */
import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import type { Table } from 'drizzle-orm';
import type { ClientBase } from 'pg';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { drizzle, type SqliteRemoteDatabase } from 'drizzle-orm/sqlite-proxy';
import type { DialectName, Driver } from './driver.js';
import type { PostgresDriver, QueryClient } from './postgres.js';
import type { Heard } from './read-cache.js';
import { defaultMigrationsFolder, journalOf, refuseNewer, schemaVersionOf, type SchemaVersion } from './schema-version.js';
import * as sqliteSchema from './schema.js';
import { nativeBinding, openSqlite, type SqliteDriver } from './sqlite.js';

export { defaultMigrationsFolder };

/**
 * drizzle's handle; the driver under `$client` runs the statements drizzle cannot build. Without
 * drizzle's relational queries (`db.query.…`, unused): given the schema, drizzle builds one
 * query builder per table for every transaction it opens, a tenth of the CPU time of a POST.
 *
 * The type is drizzle's SQLite handle; on PostgreSQL the handle is drizzle's node-postgres one,
 * whose query builder has the same methods, given PostgreSQL's tables by `schemaOf`. What only
 * one dialect's builder has is used through the functions of run.ts (`first`, `execute`,
 * `prepare`), which ask the handle's dialect.
 */
export type Db = Omit<SqliteRemoteDatabase, 'get' | 'all' | 'run' | 'values' | 'batch' | 'transaction'> & {
  $client: Driver;
  /** Runs `body` in one transaction (bindTransactions below), which gets this handle again. */
  transaction<T>(body: (tx: Db) => Promise<T>): Promise<T>;
};

/** The tables, as storage code names them (schema.ts); each handle has its database's own. */
export type Schema = typeof sqliteSchema;

/** A drizzle handle inside or outside a transaction: storage helpers accept either. */
export type Tx = Db;

export interface Database_ {
  readonly db: Db;
  readonly driver: Driver;
  /** The SQLite file or the PostgreSQL URL without its password, for messages. */
  readonly location: string;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** A SQLite file path or ':memory:'. */
  path?: string;
  /** A postgres:// URL; takes precedence over `path`. */
  url?: string;
  /** PostgreSQL: the schema to work in (tests isolate themselves this way); default `public`. */
  schema?: string;
  /** PostgreSQL: connections in the pool. */
  poolSize?: number;
  /** Where the migrations live; defaults to src/db/migrations/<dialect> (unpacked, in the executable). */
  migrationsFolder?: string;
}

/** The driver and tables under each drizzle session; a transaction's handle shares its database's session. */
const sessions = new WeakMap<object, { driver: Driver; schema: Schema }>();

function sessionOf(handle: object) {
  const session: unknown = Reflect.get(handle, 'session');
  return sessions.get(typeof session === 'object' && session !== null ? session : handle);
}

function driverOf(handle: object): Driver | undefined {
  return sessionOf(handle)?.driver;
}

/**
 * The tables of the database a handle (or a transaction's handle) runs on: schema.ts on SQLite,
 * schema-postgres.ts on PostgreSQL. Storage code takes its tables from here, so one query
 * builder chain builds each database's own SQL.
 */
export function schemaOf(handle: object): Schema {
  return sessionOf(handle)?.schema ?? sqliteSchema;
}

/** The driver a handle (or a transaction's handle) runs on, for statements written as SQL text. */
export function clientOf(handle: object): Driver {
  const driver = driverOf(handle);
  if (driver === undefined) throw new Error('not a database handle of idp');
  return driver;
}

/** Which database a handle (or a transaction's handle) runs on. */
export function dialectOf(handle: object): DialectName {
  return driverOf(handle)?.dialect ?? 'sqlite';
}

/**
 * What `load` reads from `tables`, remembered under `key` until one of those tables changes,
 * where the driver can tell (read-cache.ts); elsewhere, and inside a transaction, `load()`.
 * The value comes back frozen: it is shared by every request that asks.
 */
export function remembered<T>(handle: object, key: string, tables: readonly Table[], load: () => Promise<T>): Promise<T> {
  const cache = driverOf(handle)?.readCache;
  return cache ? cache.get(key, tables, load) : load();
}

/**
 * One row found by a key no other row can hold (a primary key, a unique index), undefined when
 * there is none, remembered as `remembered` does. It is also remembered where the database does
 * not report new rows to other instances (PostgreSQL's `entities`, see read-cache.ts), since no
 * insert can change a row once found; there "not found" is not remembered. A read that can
 * answer anything else from a table like that (a list, a count, a yes or no) goes through
 * `remembered`, which reads it from the database each time.
 */
export function rememberedRow<T extends object>(
  handle: object,
  key: string,
  tables: readonly Table[],
  load: () => Promise<T | undefined>,
): Promise<T | undefined> {
  const cache = driverOf(handle)?.readCache;
  return cache ? cache.get(key, tables, load, true) : load();
}

/**
 * A function that resolves once what `remembered` answers holds every change committed before
 * its call, by another instance too: a request that waits for it first sees every write
 * acknowledged before it arrived (docs/design.md#the-read-cache). Undefined where every change
 * is known at once (SQLite).
 */
export function freshener(handle: object): (() => Promise<void>) | undefined {
  const driver = driverOf(handle);
  return driver?.freshen === undefined ? undefined : () => driver.freshen!();
}

type Session = {
  transaction(body: (tx: unknown) => Promise<unknown>, config?: unknown): Promise<unknown>;
};

/**
 * Transactions run as the driver's `atomic` units, which know the statements in between belong
 * together, so the body gets the database's own handle (the driver runs its statements in the
 * transaction of their async call chain). drizzle's own transaction would build `begin` and
 * `commit` statements and a transaction object each time, some 3% of the CPU time of a POST; the
 * SQLite driver also lets units share a commit. One opened inside another becomes a savepoint,
 * as better-sqlite3 would make it. (PostgreSQL's transactions are serializable, see postgres.ts.)
 */
function bindTransactions(db: Db, driver: Driver): void {
  const session = Reflect.get(db, 'session') as Session;
  let savepoints = 0;
  session.transaction = async (body) => {
    if (!driver.inTransaction()) return await driver.atomic(() => body(db));
    const name = `idp_sp_${++savepoints}`;
    await driver.run(`savepoint ${name}`);
    try {
      const result = await body(db);
      await driver.run(`release savepoint ${name}`);
      return result;
    } catch (error) {
      await driver.run(`rollback to savepoint ${name}`);
      throw error;
    }
  };
}

/** Told how long each statement of a handle took, in seconds (observeQueries). */
type QueryObserver = (seconds: number) => void;

const observers = new WeakMap<Db, { observe?: QueryObserver }>();

/**
 * Has `observe` told the duration of every statement the query builder runs on `db`: they all
 * pass through the one callback below, so this is the storage layer's single timing point. The
 * statements written as SQL text (`$client.query`, the push queue's) are not timed.
 */
export function observeQueries(db: Db, observe: QueryObserver): void {
  const slot = observers.get(db);
  if (slot !== undefined) slot.observe = observe;
}

function timed<T>(slot: { observe?: QueryObserver }, run: () => Promise<T>): Promise<T> {
  if (slot.observe === undefined) return run();
  const started = performance.now();
  return run().finally(() => slot.observe?.((performance.now() - started) / 1000));
}

/** Registers a new drizzle handle of `driver` with its tables; what both dialects' handles share. */
function register<H extends object>(db: H, driver: Driver, schema: Schema, slot: { observe?: QueryObserver }): Db {
  const handle = Object.assign(db, { $client: driver }) as unknown as Db;
  observers.set(handle, slot);
  sessions.set(Reflect.get(handle, 'session') as object, { driver, schema });
  bindTransactions(handle, driver);
  return handle;
}

function sqliteHandle(driver: SqliteDriver): Db {
  const slot: { observe?: QueryObserver } = {};
  const db = drizzle((text, params, method) => timed(slot, () => driver.execute(text, params, method)) as Promise<{ rows: never[] }>);
  return register(db, driver, sqliteSchema, slot);
}

async function postgresHandle(driver: PostgresDriver): Promise<Db> {
  const [{ drizzle: nodePostgres }, { tables }] = await Promise.all([import('drizzle-orm/node-postgres'), import('./schema-postgres.js')]);
  const slot: { observe?: QueryObserver } = {};
  const client: QueryClient = { query: (config, values) => timed(slot, () => driver.client.query(config, values)) };
  return register(nodePostgres({ client: client as never }), driver, tables as unknown as Schema, slot);
}

// drizzle's own table, so that databases migrated by earlier idp releases (drizzle's migrator) carry on.
const MIGRATIONS_TABLE = `create table if not exists "__drizzle_migrations" (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at numeric)`;

/** How long an instance waits for another one's migrations, which may rebuild a large table. */
const SQLITE_MIGRATION_WAIT_MS = 10 * 60_000;

/**
 * drizzle's migrator for SQLite, run as one write transaction from its first read: drizzle's
 * own reads the applied migrations before it takes the write lock, so instances starting
 * together on an older file all found the same migrations pending, and all but the first failed
 * on a table or column that already existed. `begin immediate` makes the others wait until the
 * first has committed, then read what it applied.
 */
function migrateSqlite(driver: SqliteDriver, migrationsFolder: string, location: string): void {
  const { sqlite } = driver;
  const migrations = readMigrationFiles({ migrationsFolder });
  const journal = journalOf(migrationsFolder);
  const busyTimeout = sqlite.pragma('busy_timeout', { simple: true }) as number;
  sqlite.pragma(`busy_timeout = ${SQLITE_MIGRATION_WAIT_MS}`);
  try {
    sqlite.exec('begin immediate');
  } finally {
    sqlite.pragma(`busy_timeout = ${busyTimeout}`);
  }
  try {
    sqlite.exec(MIGRATIONS_TABLE);
    const applied = (sqlite.prepare('select created_at from "__drizzle_migrations"').pluck().all() as unknown[]).map(Number);
    refuseNewer(location, schemaVersionOf(applied, journal));
    const newest = Math.max(-Infinity, ...applied);
    const record = sqlite.prepare('insert into "__drizzle_migrations" ("hash", "created_at") values (?, ?)');
    // Our own migrations run outside SQLite's defensive mode, which forbids dropping a table
    // FTS5 names as its shadow: …_word_index_created.sql drops the one FTS5 leaves behind.
    sqlite.unsafeMode(true);
    try {
      for (const migration of migrations) {
        if (migration.folderMillis <= newest) continue;
        for (const statement of migration.sql) sqlite.exec(statement);
        record.run(migration.hash, migration.folderMillis);
      }
    } finally {
      sqlite.unsafeMode(false);
    }
    sqlite.exec('commit');
  } catch (error) {
    if (sqlite.inTransaction) sqlite.exec('rollback');
    throw error;
  }
}

/** The URL as it may appear in messages and logs: without its password. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'postgres://…';
  }
}

/** Every connection of the pool works in `schema` (and finds its tables there). */
function withSearchPath(url: string, schemaName: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set('options', `-c search_path=${schemaName}`);
  return parsed.toString();
}

// Any number, the same in every instance; with the schema's name (hashed) it names the advisory
// lock under which instances starting together on one schema migrate it one at a time.
const MIGRATION_LOCK = 7152024;

/** The schema a URL's `options=-c search_path=…` names, if any. */
function searchPathOf(url: string): string | undefined {
  try {
    return /(?:^|\s)-c\s*search_path=([^\s,]+)/.exec(new URL(url).searchParams.get('options') ?? '')?.[1];
  } catch {
    return undefined;
  }
}

/** The `created_at` of every migration recorded in `schema` (none before the first start). */
async function appliedPostgres(client: Pick<ClientBase, 'query'>, schema: string): Promise<number[]> {
  const table = `"${schema}"."__drizzle_migrations"`;
  const [{ found }] = (await client.query('select to_regclass($1) is not null as found', [table])).rows as { found: boolean }[];
  if (!found) return [];
  return ((await client.query(`select created_at from ${table}`)).rows as { created_at: unknown }[]).map((row) => Number(row.created_at));
}

/** The schema `options` name (or their URL's search_path does), checked to be a plain identifier: it is written into SQL. */
function schemaNameOf(options: { url: string; schema?: string }): string | undefined {
  const schemaName = options.schema ?? searchPathOf(options.url);
  if (schemaName !== undefined && !/^[a-z_][a-z0-9_]*$/.test(schemaName)) throw new Error(`invalid schema name ${schemaName}`);
  return schemaName;
}

/** pg_trigger.tgtype's bits for the events a trigger fires on (PostgreSQL's pg_trigger.h). */
const TRIGGER_ON = { insert: 4, delete: 8, update: 16, truncate: 32 };

/**
 * The tables of the connection's schema whose changes the change feed reports, and which
 * (postgres/0014_change_feed.sql, 0026_change_feed_without_inserts.sql), as their triggers say: a
 * table counts only when its updates, deletes and truncations are all reported.
 */
async function tablesWithChangeFeed(client: Pick<ClientBase, 'query'>): Promise<Map<string, Heard>> {
  const { rows } = await client.query(
    `select c.relname as name, t.tgtype::int as events from pg_trigger t join pg_class c on c.oid = t.tgrelid
     where t.tgname = 'idp_changed' and c.relnamespace = current_schema()::regnamespace`,
  );
  const changes = TRIGGER_ON.update | TRIGGER_ON.delete | TRIGGER_ON.truncate;
  return new Map(
    (rows as { name: string; events: number }[])
      .filter((row) => (row.events & changes) === changes)
      .map((row) => [row.name, row.events & TRIGGER_ON.insert ? 'every change' : 'all but inserts']),
  );
}

async function openPostgresDatabase(options: OpenOptions & { url: string }): Promise<Database_> {
  const { openPostgres } = await import('./postgres.js');
  // The migrations are recorded beside the tables, so each schema is migrated on its own.
  const schemaName = schemaNameOf(options);
  const driver = openPostgres({ url: schemaName ? withSearchPath(options.url, schemaName) : options.url, poolSize: options.poolSize });
  try {
    const migrationsFolder = options.migrationsFolder ?? defaultMigrationsFolder('postgres');
    if (!existsSync(migrationsFolder)) throw new Error(`migrations folder not found: ${migrationsFolder}`);
    const [{ drizzle: direct }, { migrate }] = await Promise.all([import('drizzle-orm/node-postgres'), import('drizzle-orm/node-postgres/migrator')]);
    const schema = schemaName ?? 'public';
    const client = await driver.pool.connect();
    try {
      // The lock belongs to this connection: were the process to die, PostgreSQL releases it.
      await client.query('select pg_advisory_lock($1, hashtext($2))', [MIGRATION_LOCK, schema]);
      try {
        if (schemaName) await client.query(`create schema if not exists "${schemaName}"`);
        refuseNewer(redactUrl(options.url), schemaVersionOf(await appliedPostgres(client, schema), journalOf(migrationsFolder)));
        await migrate(direct(client), { migrationsFolder, migrationsSchema: schema });
      } finally {
        await client.query('select pg_advisory_unlock($1, hashtext($2))', [MIGRATION_LOCK, schema]);
      }
      driver.rememberReads(await tablesWithChangeFeed(client));
    } finally {
      client.release();
    }
    return { db: await postgresHandle(driver), driver, location: redactUrl(options.url), close: () => driver.close() };
  } catch (error) {
    await driver.close().catch(() => undefined);
    throw error;
  }
}

export async function openDatabase(options: OpenOptions): Promise<Database_> {
  if (options.url !== undefined) return openPostgresDatabase({ ...options, url: options.url });
  const path = options.path ?? ':memory:';
  const driver = openSqlite(path);
  try {
    const migrationsFolder = options.migrationsFolder ?? defaultMigrationsFolder('sqlite');
    if (!existsSync(migrationsFolder)) throw new Error(`migrations folder not found: ${migrationsFolder}`);
    migrateSqlite(driver, migrationsFolder, path);
    return { db: sqliteHandle(driver), driver, location: path, close: () => driver.close() };
  } catch (error) {
    await driver.close();
    throw error;
  }
}

/** How many migrations drizzle's migrator has recorded in `__drizzle_migrations` (in PostgreSQL's `schema`, when given). */
export async function countAppliedMigrations(database: Database_, schema?: string): Promise<number> {
  const table = schema === undefined ? '"__drizzle_migrations"' : `"${schema}"."__drizzle_migrations"`;
  const [{ applied }] = await database.driver.query<{ applied: number }>(`select count(*) as applied from ${table}`);
  return Number(applied);
}

/**
 * How many migrations this program carries for the handle's database (its journal) and how many
 * the database has recorded: equal once `openDatabase` has migrated it. One cheap read, which
 * also shows the database answers.
 */
export async function migrationStatus(db: Db): Promise<{ applied: number; expected: number }> {
  const expected = journalOf(defaultMigrationsFolder(dialectOf(db))).length;
  // PostgreSQL finds the table on the search path: the schema the pool works in, or public.
  const [{ applied }] = await clientOf(db).query<{ applied: number }>('select count(*) as applied from "__drizzle_migrations"');
  return { applied: Number(applied), expected };
}

export interface DatabaseVersion {
  /** The SQLite file or the PostgreSQL URL without its password. */
  readonly database: string;
  readonly dialect: DialectName;
  readonly version: SchemaVersion;
}

/**
 * The schema version of the database `options` names, read without changing it (no migration,
 * no lock): a SQLite file must exist; a PostgreSQL schema not yet migrated has every migration pending.
 */
export async function readSchemaVersion(options: Pick<OpenOptions, 'path' | 'url' | 'schema'>): Promise<DatabaseVersion> {
  if (options.url !== undefined) {
    const schema = schemaNameOf({ url: options.url, schema: options.schema }) ?? 'public';
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: options.url });
    await client.connect();
    try {
      const applied = await appliedPostgres(client, schema);
      return { database: redactUrl(options.url), dialect: 'postgres', version: schemaVersionOf(applied, journalOf(defaultMigrationsFolder('postgres'))) };
    } finally {
      await client.end().catch(() => undefined);
    }
  }
  const path = options.path ?? ':memory:';
  const sqlite = new Database(path, { fileMustExist: true, readonly: true, nativeBinding: nativeBinding() });
  try {
    const recorded = sqlite.prepare("select 1 from sqlite_master where type = 'table' and name = '__drizzle_migrations'").get() !== undefined;
    const applied = recorded ? (sqlite.prepare('select created_at from "__drizzle_migrations"').pluck().all() as unknown[]).map(Number) : [];
    return { database: path, dialect: 'sqlite', version: schemaVersionOf(applied, journalOf(defaultMigrationsFolder('sqlite'))) };
  } finally {
    sqlite.close();
  }
}
