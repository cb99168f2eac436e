/**
 * Safe upgrades (docs/operations.md, "Upgrades"), on a SQLite file and, where a server answers
 * (IDP_TEST_DATABASE_URL, default the local one), a PostgreSQL schema of its own:
 * - `idp serve` processes started together on an empty database, or on one of the previous
 *   release, all come up, and each migration is applied once;
 * - `idp db status` tells the schema version and the pending migrations, changing nothing;
 * - a database of the previous release (0.1.0: its migrations, rows in its schema) is upgraded by
 *   starting this one, and everything in it is found through the API. The rows are what this
 *   idp's server writes for an organization, an admin, an application with users, entities, a
 *   connection, a group, an OAuth client and a refresh token, restricted to the tables and
 *   columns of 0.1.0's schema and written there with SQL;
 * - a database a newer idp upgraded is refused by `idp serve`, `idp keys rotate` and the db
 *   commands but status, with exit code 6, and stays as it was.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { runIdp, startIdp, type RunningIdp } from '../spawn.js';
import { callServer } from '../helpers.js';
import { resolveConfig } from '../../src/config.js';
import { startServer } from '../../server/serve.js';
import { dumpTables } from '../../src/db/dump.js';
import { POSTGRES_URL, postgresProblem } from '../database.js';
import { defaultMigrationsFolder, openDatabase } from '../../src/db/open.js';
import { journalOf } from '../../src/db/schema-version.js';

const PG_PROBLEM = await postgresProblem();
if (PG_PROBLEM !== undefined) console.log(`PostgreSQL parts of test/db/upgrade.test.ts skipped: ${PG_PROBLEM}`);

/** A far-future `created_at`: a migration a newer idp wrote and this one does not know. */
const FUTURE_MIGRATION = Date.UTC(2099, 0, 1);

let dir: string;
const schemas: string[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'idp-upgrade-'));
});

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  if (schemas.length === 0) return;
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    for (const name of schemas) await client.query(`drop schema if exists "${name}" cascade`);
  } finally {
    await client.end();
  }
});

/** One database for a test: how idp is told about it, and plain SQL on it from the test (connected again after `close`). */
interface Target {
  readonly dialect: 'sqlite' | 'postgres';
  /** `--db FILE` or `--database-url URL`. */
  readonly flags: string[];
  /** What idp calls it in messages. */
  readonly location: string;
  sql<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

function sqliteTarget(): Target {
  const file = join(dir, `${randomBytes(4).toString('hex')}.db`);
  let sqlite: Database.Database | undefined;
  const open = () => (sqlite ??= new Database(file));
  return {
    dialect: 'sqlite',
    flags: ['--db', file],
    location: file,
    async sql<T>(text: string, params: unknown[] = []) {
      const statement = open().prepare(text.replace(/\$\d+/g, '?'));
      return (statement.reader ? statement.all(...params) : (statement.run(...params), [])) as T[];
    },
    async close() {
      sqlite?.close();
      sqlite = undefined;
    },
  };
}

async function postgresTarget(): Promise<Target> {
  const name = `t_${randomBytes(6).toString('hex')}`;
  schemas.push(name);
  const url = new URL(POSTGRES_URL);
  url.searchParams.set('options', `-c search_path=${name}`);
  let client: pg.Client | undefined;
  const open = async () => {
    if (client === undefined) {
      client = new pg.Client({ connectionString: url.toString() });
      await client.connect();
    }
    return client;
  };
  return {
    dialect: 'postgres',
    flags: ['--database-url', url.toString()],
    location: url.toString(),
    async sql<T>(text: string, params: unknown[] = []) {
      return (await (await open()).query(text, params)).rows as T[];
    },
    async close() {
      await client?.end();
      client = undefined;
    },
  };
}

const DIALECTS = [
  ['SQLite', sqliteTarget, false],
  ['PostgreSQL', postgresTarget, PG_PROBLEM !== undefined],
] as const;

/** The `created_at` of every migration the database recorded, oldest first. */
async function recorded(target: Target): Promise<number[]> {
  const rows = await target.sql<{ created_at: unknown }>('select created_at from "__drizzle_migrations" order by created_at');
  return rows.map((row) => Number(row.created_at));
}

const journal = (dialect: Target['dialect']) => journalOf(defaultMigrationsFolder(dialect));

/**
 * The last migration of the previous release, 0.1.0 (the commit before package.json said 0.2.0):
 * its migrations are this build's first ones, unchanged since.
 */
const PREVIOUS_RELEASE = { sqlite: '0007_partial_name_index', postgres: '0002_partial_name_index' } as const;

/** A copy of this build's migrations folder whose journal ends at the previous release's last migration. */
function previousMigrations(dialect: Target['dialect']): string {
  const folder = join(dir, `migrations-0.1.0-${dialect}`);
  cpSync(defaultMigrationsFolder(dialect), folder, { recursive: true });
  const path = join(folder, 'meta', '_journal.json');
  const entries = journal(dialect);
  const end = entries.findIndex((migration) => migration.tag === PREVIOUS_RELEASE[dialect]);
  expect(end, PREVIOUS_RELEASE[dialect]).toBeGreaterThan(0);
  writeFileSync(
    path,
    JSON.stringify({ version: '7', dialect, entries: entries.slice(0, end + 1).map((entry, idx) => ({ idx, version: '6', breakpoints: true, ...entry })) }),
  );
  return folder;
}

/** Applies the previous release's migrations to `target`, as idp 0.1.0 did at its first start. */
async function migrateToPreviousRelease(target: Target): Promise<void> {
  const migrationsFolder = previousMigrations(target.dialect);
  const database = await openDatabase(
    target.dialect === 'sqlite' ? { path: target.location, migrationsFolder } : { url: target.location, migrationsFolder, poolSize: 1 },
  );
  await database.close();
  expect(await recorded(target)).toHaveLength(journal(target.dialect).findIndex((migration) => migration.tag === PREVIOUS_RELEASE[target.dialect]) + 1);
}

async function stopAll(instances: readonly RunningIdp[]): Promise<void> {
  await Promise.all(instances.map(async (instance) => expect(await instance.stop()).toBe(0)));
}

/**
 * Three `idp serve` on `target` at once. On SQLite, `hold` keeps the file's write lock for a
 * moment first, as another instance's migrations would: all three then meet at theirs (started
 * plainly, each would find the others done: a process starts slower than SQLite migrates).
 */
async function startThree(target: Target, hold: boolean) {
  const starting = [0, 1, 2].map(() => startIdp(['--port', '0', ...target.flags, '--log-level', 'warn'], {}, 60_000));
  if (hold) {
    const lock = new Database(target.flags[1]);
    lock.pragma('journal_mode = wal');
    lock.exec('begin immediate');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    lock.exec('commit');
    lock.close();
  }
  return Promise.allSettled(starting);
}

describe.each(DIALECTS)('%s', (_name, makeTarget, skip) => {
  it.skipIf(skip).each([
    ['an empty database come up, and each migration is applied once', false],
    ['a database of the previous release upgrade it once', true],
  ])(
    'three instances started together on %s',
    async (_case, previous) => {
      const target = await makeTarget();
      try {
        if (previous) await migrateToPreviousRelease(target);
        const starts = await startThree(target, previous && target.dialect === 'sqlite');
        const instances = starts.flatMap((start) => (start.status === 'fulfilled' ? [start.value] : []));
        try {
          expect(starts.map((start) => (start.status === 'rejected' ? String(start.reason) : 'listening'))).toEqual(['listening', 'listening', 'listening']);
          for (const instance of instances) expect((await fetch(`${instance.url}/readyz`)).status).toBe(200);
        } finally {
          await stopAll(instances);
        }
        expect(await recorded(target)).toEqual(journal(target.dialect).map((migration) => migration.when));
      } finally {
        await target.close();
      }
    },
    90_000,
  );
});

describe.each(DIALECTS)('%s: idp db status', (_name, makeTarget, skip) => {
  it.skipIf(skip)(
    'tells the schema version and the pending migrations of a database of the previous release, changing nothing',
    async () => {
      const target = await makeTarget();
      try {
        await migrateToPreviousRelease(target);
        const before = await recorded(target);
        const entries = journal(target.dialect);
        const at = entries.findIndex((migration) => migration.tag === PREVIOUS_RELEASE[target.dialect]) + 1;
        const status = await runIdp(['db', 'status', ...target.flags, '--json']);
        expect(status.code, status.stderr).toBe(0);
        expect(JSON.parse(status.stdout)).toEqual({
          database: target.dialect === 'sqlite' ? target.location : expect.stringMatching(/^postgres:\/\//),
          dialect: target.dialect,
          migrations: at,
          last: PREVIOUS_RELEASE[target.dialect],
          pending: entries.slice(at).map((migration) => migration.tag),
          unknown: 0,
          known: entries.length,
          latest: entries.at(-1)!.tag,
        });
        const text = await runIdp(['db', 'status', ...target.flags]);
        expect(text.stdout).toMatch(
          new RegExp(
            `^database .* \\(${target.dialect}\\): schema version ${at} \\(${PREVIOUS_RELEASE[target.dialect]}\\); this idp is at ${entries.length} \\(${entries.at(-1)!.tag}\\), ${entries.length - at} pending: ${entries[at].tag}, `,
          ),
        );
        expect(await recorded(target)).toEqual(before);

        expect((await runIdp(['db', 'migrate', ...target.flags])).code).toBe(0);
        const migrated = await runIdp(['db', 'status', ...target.flags]);
        expect(migrated).toMatchObject({ code: 0, stderr: '' });
        expect(migrated.stdout).toMatch(new RegExp(`: schema version ${entries.length} \\(${entries.at(-1)!.tag}\\), up to date\n$`));
      } finally {
        await target.close();
      }
    },
    60_000,
  );

  it.skipIf(skip)('a database never migrated has every migration pending, and stays as it was', async () => {
    const target = await makeTarget();
    try {
      if (target.dialect === 'sqlite') new Database(target.location).close();
      const status = await runIdp(['db', 'status', ...target.flags, '--json']);
      expect(status.code, status.stderr).toBe(0);
      const entries = journal(target.dialect);
      expect(JSON.parse(status.stdout)).toMatchObject({ migrations: 0, last: null, pending: entries.map((migration) => migration.tag), unknown: 0 });
      if (target.dialect === 'sqlite') expect(statSync(target.location).size).toBe(0);
      else expect(await target.sql('select 1 from information_schema.schemata where schema_name = current_schema()')).toEqual([]);
    } finally {
      await target.close();
    }
  });
});

describe('idp db status refuses what it cannot read', () => {
  it.each([
    [
      'a file that does not exist',
      ['--db', '/nonexistent/idp.db'],
      'error: database /nonexistent/idp.db does not exist; pass the file idp serve uses with --db',
    ],
    ['an in-memory database', ['--db', ':memory:'], 'error: --db :memory: is gone when the command ends: name a database file'],
  ])('%s: exit code 2', async (_name, flags, message) => {
    expect(await runIdp(['db', 'status', ...flags])).toEqual({ code: 2, stdout: '', stderr: `${message}\n` });
  });

  it('a file that is not SQLite: exit code 2, the file unchanged', async () => {
    const file = join(dir, 'notes.txt');
    writeFileSync(file, 'not a database\n'.repeat(100));
    const result = await runIdp(['db', 'status', '--db', file]);
    expect(result).toMatchObject({ code: 2, stderr: `error: cannot open database ${file}: SQLITE_NOTADB\n` });
    expect(statSync(file).size).toBe(1500);
  });
});

describe.each(DIALECTS)('%s: a database a newer idp upgraded', (_name, makeTarget, skip) => {
  it.skipIf(skip)(
    'is refused by idp serve and the db commands with exit code 6, and stays as it was',
    async () => {
      const target = await makeTarget();
      try {
        expect((await runIdp(['db', 'migrate', ...target.flags])).code).toBe(0);
        await target.sql('insert into "__drizzle_migrations" (hash, created_at) values ($1, $2)', ['f'.repeat(64), FUTURE_MIGRATION]);
        const before = await recorded(target);
        const entries = journal(target.dialect);
        const message =
          `error: database ${target.location} is at schema version ${entries.length + 1}, newer than this idp's ${entries.length} (${entries.at(-1)!.tag}): ` +
          'a newer idp applied 1 migration this one does not know (written 2099-01-01T00:00:00.000Z); run that idp or a newer one, or restore a backup taken before the upgrade\n';
        const dump = join(dir, `${randomBytes(4).toString('hex')}.dump`);
        writeFileSync(dump, '');
        for (const args of [
          ['serve', '--port', '0', ...target.flags],
          ['db', 'migrate', ...target.flags],
          ['db', 'export', join(dir, 'never.dump'), ...target.flags],
          ['db', 'import', dump, ...target.flags],
          ['keys', 'rotate', ...target.flags],
          ...(target.dialect === 'sqlite' ? [['db', 'backup', ...target.flags, join(dir, 'never.backup')]] : []),
        ]) {
          const result = await runIdp(args);
          expect(result.code, `${args.slice(0, 2).join(' ')}: ${result.stderr}`).toBe(6);
          expect(result.stderr).toBe(message);
        }
        const json = await runIdp(['db', 'migrate', ...target.flags, '--json']);
        expect(JSON.parse(json.stdout)).toMatchObject({
          error: 'database_too_new',
          status: null,
          error_description: expect.stringContaining('newer than this idp'),
        });

        const status = await runIdp(['db', 'status', ...target.flags, '--json']);
        expect(status.code, status.stderr).toBe(0);
        expect(JSON.parse(status.stdout)).toMatchObject({ migrations: entries.length + 1, last: entries.at(-1)!.tag, pending: [], unknown: 1 });
        const text = await runIdp(['db', 'status', ...target.flags]);
        expect(text.stdout).toMatch(
          /schema version \d+ \(\w+\), newer than this idp \(\d+, \w+\): 1 migration this idp does not know; it refuses to open it\n$/,
        );

        expect(await recorded(target)).toEqual(before);
        expect(await target.sql('select count(*) as n from signing_keys')).toEqual([{ n: target.dialect === 'sqlite' ? 0 : '0' }]);
      } finally {
        await target.close();
      }
    },
    60_000,
  );
});

const ISSUER = 'http://idp.upgrade.test';
const ADMIN = { organization: 'acme', username: 'alice', name: 'Alice Admin', email: 'alice@example.com', password: 'correct-horse' };

/** What the source server wrote that must still be there after the upgrade. */
interface Written {
  readonly refreshToken: string;
  readonly clientId: string;
  readonly kids: readonly string[];
}

async function form(base: string, fields: Record<string, string>) {
  const response = await fetch(`${base}/connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

/** Fills a SQLite file of this build through its server. */
async function writeThroughServer(file: string): Promise<Written> {
  const server = await startServer(resolveConfig({ port: '0', logLevel: 'silent', db: file, issuer: ISSUER }, {}));
  try {
    const call = (method: string, route: string, json?: unknown, token?: string) => callServer(server.url, method, route, { json, token });
    await call('POST', '/management/orgs', ADMIN);
    const token = (await call('POST', '/management/token', { grant_type: 'password', username: ADMIN.username, password: ADMIN.password })).access_token;
    await call('POST', '/management/orgs/acme/apps', { name: 'sandbox' }, token);
    const app = '/acme/sandbox';
    await call('POST', `${app}/users`, { username: 'fred', password: 'sesame-street', email: 'fred@example.com', nickname: 'Freddy' }, token);
    await call(
      'POST',
      `${app}/dogs`,
      [
        { name: 'fido', age: 2, tags: ['good'], owner: { city: 'Zürich' } },
        { name: 'rex', age: 5 },
        { name: 'lassie', age: 7 },
      ],
      token,
    );
    await call('POST', `${app}/users/fred/likes/dogs/fido`, undefined, token);
    await call('POST', `${app}/groups`, { path: 'walkers', title: 'Dog walkers' }, token);
    await call('POST', `${app}/groups/walkers/users/fred`, undefined, token);
    const client = await call('POST', '/management/orgs/acme/apps/sandbox/clients', { client_name: 'Shop', redirect_uris: ['https://shop.example/cb'] }, token);
    const granted = await form(server.url, {
      grant_type: 'password',
      client_id: 'admin-cli',
      username: ADMIN.username,
      password: ADMIN.password,
      scope: 'openid offline_access',
    });
    expect(granted.status).toBe(200);
    const jwks = (await (await fetch(`${server.url}/.well-known/openid-configuration/jwks`)).json()) as { keys: { kid: string }[] };
    return { refreshToken: granted.body.refresh_token, clientId: client.entities[0].client_id, kids: jwks.keys.map((key) => key.kid) };
  } finally {
    await server.close();
  }
}

/** The columns each table of `target` has, by table. */
async function columnsOf(target: Target): Promise<Map<string, string[]>> {
  const rows =
    target.dialect === 'sqlite'
      ? await target.sql<{ table_name: string; column_name: string }>(
          "select m.name as table_name, c.name as column_name from sqlite_master m, pragma_table_info(m.name) c where m.type = 'table' order by m.name, c.cid",
        )
      : await target.sql<{ table_name: string; column_name: string }>(
          'select table_name, column_name from information_schema.columns where table_schema = current_schema() order by table_name, ordinal_position',
        );
  const columns = new Map<string, string[]>();
  for (const row of rows) columns.set(row.table_name, [...(columns.get(row.table_name) ?? []), row.column_name]);
  return columns;
}

/** Copies the rows of `source` into `target`, each table and column `target` has, parents first; returns the rows per table. */
async function copyRows(source: string, target: Target): Promise<Record<string, number>> {
  const from = new Database(source, { readonly: true });
  const copied: Record<string, number> = {};
  try {
    const columns = await columnsOf(target);
    for (const { name } of dumpTables()) {
      const names = columns.get(name);
      if (names === undefined) continue;
      const rows = from
        .prepare(`select ${names.map((column) => `"${column}"`).join(', ')} from "${name}"`)
        .raw()
        .all() as unknown[][];
      const slots = names.map((_, index) => `$${index + 1}`).join(', ');
      for (const row of rows) await target.sql(`insert into "${name}" (${names.map((column) => `"${column}"`).join(', ')}) values (${slots})`, row);
      copied[name] = rows.length;
    }
  } finally {
    from.close();
  }
  return copied;
}

async function rowCounts(target: Target, tables: readonly string[]): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of tables) counts[table] = Number((await target.sql<{ n: unknown }>(`select count(*) as n from "${table}"`))[0].n);
  return counts;
}

/** Reads through the API of the upgraded server everything writeThroughServer wrote. */
async function expectEverythingFound(base: string, written: Written): Promise<void> {
  const call = (method: string, route: string, json?: unknown, token?: string) => callServer(base, method, route, { json, token });
  const token = (await call('POST', '/management/token', { grant_type: 'password', username: ADMIN.username, password: ADMIN.password })).access_token;
  const apps = await call('GET', '/management/orgs/acme/apps', undefined, token);
  expect(Object.keys(apps.data)).toEqual(['acme/sandbox']);
  const app = '/acme/sandbox';
  const fido = (await call('GET', `${app}/dogs/fido`, undefined, token)).entities[0];
  expect(fido).toMatchObject({ name: 'fido', type: 'dog', age: 2, tags: ['good'], owner: { city: 'Zürich' } });
  const older = await call('GET', `${app}/dogs?ql=${encodeURIComponent('select * where age > 4 order by age')}`, undefined, token);
  expect(older.entities.map((dog: { name: string }) => dog.name)).toEqual(['rex', 'lassie']);
  const likes = await call('GET', `${app}/users/fred/likes`, undefined, token);
  expect(likes.entities.map((entity: { name: string }) => entity.name)).toEqual(['fido']);
  const walkers = await call('GET', `${app}/groups/walkers/users`, undefined, token);
  expect(walkers.entities.map((user: { username: string }) => user.username)).toEqual(['fred']);
  const shop = (await call('GET', `/management/orgs/acme/apps/sandbox/clients/${written.clientId}`, undefined, token)).entities[0];
  expect(shop).toMatchObject({ client_id: written.clientId, client_name: 'Shop', redirect_uris: ['https://shop.example/cb'] });
  // The app user's password, the admin's refresh token and the signing keys came along.
  expect((await call('POST', `${app}/token`, { grant_type: 'password', username: 'fred', password: 'sesame-street' })).access_token).toEqual(
    expect.any(String),
  );
  const refreshed = await form(base, { grant_type: 'refresh_token', client_id: 'admin-cli', refresh_token: written.refreshToken });
  expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
  const jwks = (await (await fetch(`${base}/.well-known/openid-configuration/jwks`)).json()) as { keys: { kid: string }[] };
  expect(jwks.keys.map((key) => key.kid)).toEqual(expect.arrayContaining([...written.kids]));
  // And it writes.
  await call('POST', `${app}/dogs`, { name: 'max', age: 1 }, token);
}

describe.each(DIALECTS)('%s: a database of the previous release', (_name, makeTarget, skip) => {
  it.skipIf(skip)(
    'is upgraded by starting this idp, keeps every row, and everything is found through the API',
    async () => {
      const source = join(dir, `source-${randomBytes(4).toString('hex')}.db`);
      const written = await writeThroughServer(source);
      const target = await makeTarget();
      try {
        await migrateToPreviousRelease(target);
        const copied = await copyRows(source, target);
        for (const table of ['organizations', 'admin_users', 'applications', 'entities', 'connections', 'oauth_clients', 'refresh_tokens', 'signing_keys'])
          expect(copied[table], table).toBeGreaterThan(0);
        await target.close();

        const server = await startIdp(['--port', '0', ...target.flags, '--issuer', ISSUER, '--log-level', 'warn']);
        try {
          expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
          await expectEverythingFound(server.url, written);
        } finally {
          expect(await server.stop()).toBe(0);
        }
        expect(server.stderr()).toBe('');
        expect(await recorded(target)).toEqual(journal(target.dialect).map((migration) => migration.when));
        // No table lost a row of the previous release's (the sign-ins above only added some).
        const after = await rowCounts(target, Object.keys(copied));
        expect(Object.keys(copied).filter((table) => after[table] < copied[table])).toEqual([]);
        expect(after.entities).toBe(copied.entities + 1);
      } finally {
        await target.close();
      }
    },
    60_000,
  );
});
