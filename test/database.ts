/**
 * The database a test app runs on: a fresh SQLite :memory: database, or — when
 * IDP_TEST_DATABASE_URL names a PostgreSQL server (`npm run test:postgres`) — a fresh schema
 * of its own there, dropped again on close, so test files can run in parallel on one server.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { SQL } from 'drizzle-orm';
import { clientOf, openDatabase, type Database_, type Db } from '../src/db/open.js';
import { sqlOf } from '../src/db/run.js';
import { resolveConfig, type Config, type ServeFlags } from '../src/config.js';
import { startServer, type RunningServer } from '../server/serve.js';

export const TEST_DATABASE_URL = process.env.IDP_TEST_DATABASE_URL || undefined;

/** The server tests that always need PostgreSQL use: IDP_TEST_DATABASE_URL, else the local one. */
export const POSTGRES_URL = TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export const redactedUrl = (url: string) => url.replace(/:[^:@/]*@/, ':***@');

/**
 * Why PostgreSQL at `url` cannot be used (undefined when it answers), as scripts/test-postgres.js
 * checks. With IDP_TEST_REQUIRE_POSTGRES=1 (CI sets it) a missing server fails the test file
 * instead of skipping its PostgreSQL tests.
 */
export async function postgresProblem(url = POSTGRES_URL): Promise<string | undefined> {
  const problem = await postgresConnectProblem(url);
  if (problem !== undefined && process.env.IDP_TEST_REQUIRE_POSTGRES === '1') {
    throw new Error(`IDP_TEST_REQUIRE_POSTGRES=1, but ${problem}`);
  }
  return problem;
}

async function postgresConnectProblem(url: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('select 1');
    return undefined;
  } catch (error) {
    return `no PostgreSQL server answers at ${redactedUrl(url)} (${(error as { code?: string }).code ?? (error as Error).message})`;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** A fresh schema on a PostgreSQL server, for one test database; nothing is created until it is opened. */
export interface TestSchema {
  readonly name: string;
  /** The server's URL with the schema as every connection's search_path (README, "Running more than one instance"). */
  readonly url: string;
  drop(): Promise<void>;
}

/** A random `t_…` schema on `base` (the test server by default), so test files can share one server. */
export function createTestSchema(base: string = POSTGRES_URL): TestSchema {
  const name = `t_${randomBytes(6).toString('hex')}`;
  const url = new URL(base);
  url.searchParams.set('options', `-c search_path=${name}`);
  return {
    name,
    url: url.toString(),
    async drop() {
      // A bare client on the base URL: opening the database would migrate the schema on the way.
      const client = new pg.Client({ connectionString: base });
      await client.connect();
      try {
        await client.query(`drop schema if exists "${name}" cascade`);
      } finally {
        await client.end();
      }
    },
  };
}

/** The rows, keyed by column name, of a statement written with drizzle's `sql`, in the handle's own dialect. */
export async function selectRows<T>(db: Db, statement: SQL): Promise<T[]> {
  const { sql: text, params } = sqlOf(db, statement);
  return await clientOf(db).query<T>(text, params);
}

export async function openTestDatabase(options: { poolSize?: number } = {}): Promise<Database_> {
  if (TEST_DATABASE_URL === undefined) return openDatabase({ path: ':memory:' });
  const schema = createTestSchema();
  const database = await openDatabase({ url: schema.url, poolSize: options.poolSize ?? 4 });
  return {
    ...database,
    async close() {
      // On its own pool: quicker than the bare client drop() opens.
      await database.driver.run(`drop schema if exists "${schema.name}" cascade`).catch(() => 0);
      await database.close();
    },
  };
}

/**
 * A real `idp serve` in this process (a port, the delivery worker) on the test database: its own
 * :memory: SQLite, or its own PostgreSQL schema, dropped when the server closes. `now` is its
 * clock (a test clock's `() => clock.now`); `env` its environment (e.g. `IDP_FCM_URL`); `config`
 * sets what no flag does (a smaller body limit, a quick captcha).
 */
export async function startTestServer(
  flags: ServeFlags,
  options: { now?: () => number; env?: Record<string, string>; config?: Partial<Config> } = {},
): Promise<RunningServer> {
  const start = (resolved: Config) => startServer({ ...resolved, ...options.config }, undefined, options.now);
  const env = options.env ?? {};
  if (TEST_DATABASE_URL === undefined) return start(resolveConfig({ logLevel: 'silent', ...flags, db: ':memory:' }, env));
  const schema = createTestSchema();
  const server = await start(resolveConfig({ logLevel: 'silent', databasePoolSize: '4', ...flags, databaseUrl: schema.url }, env));
  return {
    ...server,
    async close() {
      await server.close();
      await schema.drop();
    },
  };
}
