/**
 * `idp db migrate|export|import` on real databases: a SQLite file filled by the real server over
 * HTTP is exported, imported into a fresh SQLite file and into a fresh PostgreSQL schema, exported
 * again from each, and the dumps compared; the copies then serve sign-ins and reads. Where no
 * PostgreSQL server answers (IDP_TEST_DATABASE_URL, default the local one) the PostgreSQL parts
 * are skipped with a message.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pg from 'pg';
import { getTableConfig, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { is } from 'drizzle-orm';
import { main } from '../../commands/index.js';
import { callServer } from '../helpers.js';
import { resolveConfig, type ServeFlags } from '../../src/config.js';
import { startServer } from '../../server/serve.js';
import * as schema from '../../src/db/schema.js';
import { runIdp, startIdp } from '../spawn.js';
import { exportDump } from '../../src/db/dump.js';
import { openDatabase, type Database_ } from '../../src/db/open.js';
import { appleKey } from '../push/setup.js';
import { postgresProblem } from '../database.js';

const PG_URL = process.env.IDP_TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';

async function postgresReachable(): Promise<boolean> {
  const problem = await postgresProblem(PG_URL);
  if (problem !== undefined) console.log(`PostgreSQL parts of test/db/dump.test.ts skipped: ${problem}`);
  return problem === undefined;
}

const PG = await postgresReachable();
const schemas: string[] = [];

/** A fresh schema's URL; every one is dropped after the file. */
function pgSchemaUrl(): string {
  const name = `t_${randomBytes(6).toString('hex')}`;
  schemas.push(name);
  const url = new URL(PG_URL);
  url.searchParams.set('options', `-c search_path=${name}`);
  return url.toString();
}

const ADMIN = { organization: 'acme', username: 'alice', name: 'Alice Admin', email: 'alice@example.com', password: 'correct-horse' };

let dir: string;
const path = (name: string) => join(dir, name);

/** `idp ARGS` in this process: exit code, stdout and stderr. */
async function idp(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((stdout += String(chunk)), true));
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((stderr += String(chunk)), true));
  const listeners = process.stdout.listeners('error');
  try {
    const code = await main(['node', 'idp', ...args]);
    return { code, stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
    // main() listens for EPIPE on stdout each time it runs.
    for (const listener of process.stdout.listeners('error')) if (!listeners.includes(listener)) process.stdout.off('error', listener as () => void);
  }
}

async function exported(flag: '--db' | '--database-url', target: string, file: string): Promise<string> {
  const result = await idp('db', 'export', file, flag, target);
  expect(result.code, result.stderr).toBe(0);
  return readFileSync(file, 'utf8');
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The lines of a dump (header first, end line last) with the end line made to fit the rows between. */
function sealed(lines: string[]): string {
  const rows = lines.slice(1, -1);
  const end = { end: 'idp-dump', rows: rows.length, sha256: sha256(rows.map((line) => `${line}\n`).join('')) };
  return `${[lines[0], ...rows, JSON.stringify(end)].join('\n')}\n`;
}

/** The dump of an empty database: its header and an end line of no rows. */
function expectEmpty(dump: string): void {
  const lines = dump.trimEnd().split('\n');
  expect(lines).toHaveLength(2);
  expect(JSON.parse(lines[1])).toEqual({ end: 'idp-dump', rows: 0, sha256: sha256('') });
}

/** A dump without its header's `dialect` and `created`: what must be equal between copies. */
function comparable(dump: string): { header: unknown; rows: string[] } {
  const [first, ...rows] = dump.split('\n');
  const { dialect: _dialect, created: _created, ...header } = JSON.parse(first);
  return { header, rows };
}

/** JSON calls to a running server, failing on anything but 200. */
function clientOf(base: string) {
  const call = (method: string, route: string, json?: unknown, token?: string) => callServer(base, method, route, { json, token });
  const signIn = async () =>
    (await call('POST', '/management/token', { grant_type: 'password', username: ADMIN.username, password: ADMIN.password })).access_token as string;
  return { call, signIn };
}

/** The real server in this process. */
async function serve(flags: ServeFlags) {
  const server = await startServer(resolveConfig({ port: '0', logLevel: 'silent', ...flags }, {}));
  return { server, ...clientOf(server.url) };
}

/** Fills a SQLite file through the real server: every kind of table gets rows. */
async function populate(file: string): Promise<void> {
  const { server, call, signIn } = await serve({ db: file });
  try {
    await call('POST', '/management/orgs', ADMIN);
    const token = await signIn();
    await call('POST', '/management/orgs/acme/apps', { name: 'sandbox' }, token);
    // An OAuth grant with a refresh token, rotated once.
    const form = (fields: Record<string, string>) =>
      fetch(`${server.url}/connect/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields),
      });
    const granted = await form({
      grant_type: 'password',
      client_id: 'admin-cli',
      username: ADMIN.username,
      password: ADMIN.password,
      scope: 'openid offline_access',
    });
    const { refresh_token } = (await granted.json()) as { refresh_token: string };
    expect((await form({ grant_type: 'refresh_token', client_id: 'admin-cli', refresh_token })).status).toBe(200);
    const app = '/acme/sandbox';
    await call('POST', `${app}/users`, { username: 'fred', password: 'sesame-street', email: 'fred@example.com', nickname: 'Freddy' }, token);
    await call('POST', `${app}/token`, { grant_type: 'password', username: 'fred', password: 'sesame-street' });
    // Keys in no particular order, unicode, nesting, big and small numbers, explicit nulls inside.
    await call('POST', `${app}/dogs`, { name: 'fido', zeta: 1, alpha: { z: [3, { y: 'ü', b: null }], a: -0.5 }, age: 2 ** 40, tags: ['good', 'boy'] }, token);
    await call(
      'POST',
      `${app}/dogs`,
      [
        { name: 'rex', age: 3 },
        { name: 'lassie', city: 'Zürich ☃' },
      ],
      token,
    );
    await call('POST', `${app}/users/fred/likes/dogs/fido`, undefined, token);
    await call('POST', `${app}/groups`, { path: 'walkers', title: 'Dog walkers' }, token);
    await call('POST', `${app}/groups/walkers/users/fred`, undefined, token);
    await call('POST', '/management/orgs/acme/apps/sandbox/clients', { client_name: 'Shop', redirect_uris: ['https://shop.example/cb'] }, token);
    const key = await appleKey();
    await call(
      'POST',
      `${app}/notifiers`,
      { name: 'ios', provider: 'apple', environment: 'production', p8: key.p8, keyId: key.keyId, teamId: key.teamId, topic: 'com.example.app' },
      token,
    );
    await call('POST', `${app}/notifiers`, { name: 'dev', provider: 'noop', environment: 'development' }, token);
    const devices = await call(
      'POST',
      `${app}/devices`,
      [
        { name: 'phone', 'ios.notifier.id': 'apns-token-1', 'dev.notifier.id': 'dev-token-1' },
        { name: 'tablet', 'dev.notifier.id': 'dev-token-2' },
      ],
      token,
    );
    // One sent now through noop, one scheduled a day ahead (its delivery rows stay queued).
    const sent = await call('POST', `${app}/devices/*/notifications`, { payloads: { dev: 'hello' } }, token);
    await call(
      'POST',
      `${app}/devices/${devices.entities[0].uuid}/notifications`,
      { payloads: { ios: { aps: { alert: 'later' } } }, deliver: Date.now() + 86_400_000 },
      token,
    );
    const until = Date.now() + 10_000;
    while ((await call('GET', `${app}/notifications/${sent.entities[0].uuid}`, undefined, token)).entities[0].state !== 'FINISHED') {
      if (Date.now() > until) throw new Error('the noop notification was not sent');
      await server.deliveriesIdle();
    }
  } finally {
    await server.close();
  }
}

/** Signs in with the original admin password, reads what populate() wrote, sends one more notification. */
async function checkServes(base: string): Promise<void> {
  const { call, signIn } = clientOf(base);
  const token = await signIn();
  const fido = (await call('GET', '/acme/sandbox/dogs/fido', undefined, token)).entities[0];
  expect(fido).toMatchObject({ name: 'fido', zeta: 1, alpha: { z: [3, { y: 'ü' }], a: -0.5 }, age: 2 ** 40, tags: ['good', 'boy'] });
  const likes = await call('GET', '/acme/sandbox/users/fred/likes', undefined, token);
  expect(likes.entities.map((entity: { name: string }) => entity.name)).toEqual(['fido']);
  const fred = await call('POST', '/acme/sandbox/token', { grant_type: 'password', username: 'fred', password: 'sesame-street' });
  expect(fred.access_token).toEqual(expect.any(String));
  // New delivery rows take ids after the imported ones (on PostgreSQL: the identity sequence was moved).
  const again = await call('POST', '/acme/sandbox/devices/*/notifications', { payloads: { dev: 'after the move' } }, token);
  expect(again.entities[0].expectedCount).toBe(2);
}

/** The dump of `database` exported `batchSize` rows at a time, as text. */
async function exportText(database: Database_, batchSize: number): Promise<string> {
  let text = '';
  const sink = new Writable({ write: (chunk, _encoding, done) => ((text += String(chunk)), done()) });
  const summary = await exportDump(database, sink, { batchSize });
  expect(summary.rows).toBe(text.trimEnd().split('\n').length - 2);
  return text;
}

let source: string;
let dump: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'idp-dump-'));
  source = path('source.db');
  await populate(source);
  dump = await exported('--db', source, path('source.dump'));
}, 60_000);

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  if (!PG || schemas.length === 0) return;
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    for (const name of schemas) await client.query(`drop schema if exists "${name}" cascade`);
  } finally {
    await client.end();
  }
});

describe('idp db export', () => {
  it('writes a header, then every table parents first, with portable values, then an end line that counts and hashes the rows', () => {
    // It holds password hashes and private keys.
    expect(statSync(path('source.dump')).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir).filter((name) => name.includes('.partial-'))).toEqual([]);
    const [first, ...rest] = dump.trimEnd().split('\n');
    const end = JSON.parse(rest.pop()!);
    expect(end).toEqual({ end: 'idp-dump', rows: rest.length, sha256: sha256(rest.map((line) => `${line}\n`).join('')) });
    expect(dump.endsWith('}\n')).toBe(true);
    const header = JSON.parse(first);
    expect(header).toMatchObject({ format: 'idp-dump', version: 2, dialect: 'sqlite', created: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    const tables = (Object.values(schema) as unknown[]).filter((value): value is SQLiteTable => is(value, SQLiteTable));
    expect([...header.tables].sort()).toEqual(tables.map((table) => getTableConfig(table).name).sort());
    expect(header.tables).not.toContain('__drizzle_migrations');
    for (const table of tables) {
      const { name, foreignKeys } = getTableConfig(table);
      for (const fk of foreignKeys)
        expect(header.tables.indexOf(getTableConfig(fk.reference().foreignTable).name), `${name} after its parent`).toBeLessThan(header.tables.indexOf(name));
    }

    const lines = rest.map((line) => JSON.parse(line) as { table: string; row: Record<string, unknown> });
    // Rows grouped by table, in the header's order.
    const order = lines.map((line) => header.tables.indexOf(line.table));
    expect(order).toEqual([...order].sort((a, b) => a - b));
    const count = (table: string) => lines.filter((line) => line.table === table).length;
    for (const table of [
      'organizations',
      'admin_users',
      'org_admins',
      'applications',
      'credentials',
      'entities',
      'connections',
      'collections',
      'app_user_logins',
      'app_user_credentials',
      'signing_keys',
      'oauth_clients',
      'oauth_grants',
      'refresh_tokens',
      'server_secrets',
      'push_notifier_secrets',
      'push_deliveries',
      'management_activities',
    ]) {
      expect(count(table), table).toBeGreaterThan(0);
    }

    const fido = lines.find((line) => line.table === 'entities' && line.row.name === 'fido')!.row;
    expect(Object.keys(fido)).toEqual(['uuid', 'app_uuid', 'collection', 'type', 'name', 'name_key', 'properties', 'created', 'modified']);
    expect(fido.created).toEqual(expect.any(Number));
    // JSON columns as JSON, object keys sorted at every depth.
    const properties = fido.properties as Record<string, any>;
    expect(properties).toMatchObject({ zeta: 1, age: 2 ** 40, alpha: { a: -0.5, z: [3, { b: null, y: 'ü' }] } });
    expect(Object.keys(properties)).toEqual(Object.keys(properties).sort());
    expect(Object.keys(properties.alpha.z[1])).toEqual(['b', 'y']);
    expect(JSON.stringify(properties)).not.toContain('\\"');
    const secret = lines.find((line) => line.table === 'push_notifier_secrets')!.row;
    expect(secret.secret).toEqual({ p8: expect.stringContaining('BEGIN PRIVATE KEY') });
    // NULL as null; booleans as the 0/1 both databases store.
    const admin = lines.find((line) => line.table === 'admin_users')!.row;
    expect(admin).toMatchObject({ username: 'alice', sysadmin: 0, activated: 1 });
    expect(lines.find((line) => line.table === 'entities' && line.row.name === null)).toBeDefined();
    // Primary-key order within a table.
    const uuids = lines.filter((line) => line.table === 'entities').map((line) => line.row.uuid as string);
    expect(uuids).toEqual([...uuids].sort((a, b) => (Buffer.from(a) < Buffer.from(b) ? -1 : 1)));
  });

  it('pages through large tables in small batches with the same result', async () => {
    const database = await openDatabase({ path: source });
    try {
      expect(comparable(await exportText(database, 2))).toEqual(comparable(dump));
    } finally {
      await database.close();
    }
  });

  it('stdout with `-`, the summary on stderr; a database that does not exist is a usage error', async () => {
    const result = await runIdp(['db', 'export', '-', '--db', source]);
    expect(result.code, result.stderr).toBe(0);
    expect(comparable(result.stdout)).toEqual(comparable(dump));
    expect(result.stderr).toMatch(/^exported \d+ rows of \d+ tables from .*source\.db \(sqlite\) to stdout\n$/);
    const missing = await idp('db', 'export', path('out.dump'), '--db', path('missing.db'));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(`error: database ${path('missing.db')} does not exist; pass the file idp serve uses with --db\n`);
    expect(existsSync(path('missing.db'))).toBe(false);
    expect((await idp('db', 'export', path('out.dump'), '--database-url', 'mysql://nope')).stderr).toBe('error: --database-url must be a postgres:// URL\n');
  });
});

describe('idp db import', () => {
  it('SQLite to SQLite through a pipe: the same dump again, and the copy serves', async () => {
    const copy = path('copy.db');
    const result = await runIdp(['db', 'import', '-', '--db', copy, '--json'], {}, 30_000, dump);
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout);
    expect(summary).toMatchObject({ database: copy, dialect: 'sqlite', file: '-', rows: dump.trimEnd().split('\n').length - 2 });
    expect(comparable(await exported('--db', copy, path('copy.dump')))).toEqual(comparable(dump));
    const { server } = await serve({ db: copy });
    try {
      await checkServes(server.url);
    } finally {
      await server.close();
    }
  });

  it.skipIf(!PG)('SQLite to PostgreSQL and back: identical dumps, and the PostgreSQL copy serves', async () => {
    const url = pgSchemaUrl();
    const migrated = await idp('db', 'migrate', '--database-url', url, '--json');
    expect(migrated.code, migrated.stderr).toBe(0);
    const journal = JSON.parse(readFileSync(new URL('../../src/db/migrations/postgres/meta/_journal.json', import.meta.url), 'utf8'));
    expect(JSON.parse(migrated.stdout)).toMatchObject({ dialect: 'postgres', migrations: journal.entries.length });

    const imported = await idp('db', 'import', path('source.dump'), '--database-url', url);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toMatch(/^imported \d+ rows of \d+ tables from .*source\.dump to postgres:\/\/.* \(postgres\)\n$/);
    const fromPostgres = await exported('--database-url', url, path('postgres.dump'));
    expect(JSON.parse(fromPostgres.split('\n')[0]).dialect).toBe('postgres');
    expect(comparable(fromPostgres)).toEqual(comparable(dump));

    const back = path('back.db');
    expect((await idp('db', 'import', path('postgres.dump'), '--db', back)).code).toBe(0);
    expect(comparable(await exported('--db', back, path('back.dump')))).toEqual(comparable(dump));

    // Paging with a cursor gives the same dump in pages of two.
    const database = await openDatabase({ url, poolSize: 1 });
    try {
      expect(comparable(await exportText(database, 2))).toEqual(comparable(dump));
    } finally {
      await database.close();
    }

    // `idp serve` on the PostgreSQL copy: sign in with the original password, read, write.
    const idpServe = await startIdp(['--port', '0', '--database-url', url, '--log-level', 'warn']);
    try {
      await checkServes(idpServe.url);
    } finally {
      expect(await idpServe.stop()).toBe(0);
    }
    // …and a second import into it is refused.
    const again = await idp('db', 'import', path('source.dump'), '--database-url', url);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/^error: database postgres:\/\/.* is not empty \(table \w+ has rows\)/);
  });

  it('refuses a database that has rows (exit 2), changing nothing', async () => {
    const result = await idp('db', 'import', path('source.dump'), '--db', source);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: database .*source\.db is not empty \(table \w+ has rows\): import into a new database/);
    expect(result.stderr.split('\n')).toHaveLength(2);
    expect(comparable(await exported('--db', source, path('unchanged.dump')))).toEqual(comparable(dump));
  });

  /** Each corruption changes `lines` (header first) and returns the index of the line to blame. */
  const corruptions: [string, (lines: string[]) => number, RegExp][] = [
    ['a line that is not JSON', (lines) => (lines.splice(-2, 1, '{"table":"entities","row":'), lines.length - 2), /not JSON/],
    [
      'an unknown column',
      (lines) => (lines.splice(-2, 1, lines[lines.length - 2].replace('"row":{', '"row":{"colour":"red",')), lines.length - 2),
      /has no column colour/,
    ],
    [
      'a value of the wrong type',
      (lines) => {
        const index = lines.findIndex((line) => /"created":\d+/.test(line));
        lines[index] = lines[index].replace(/"created":\d+/, '"created":"yesterday"');
        return index;
      },
      /\.created must be an integer or null, not "yesterday"/,
    ],
    [
      'an entity uuid not in lowercase, which lookups by uuid would never find',
      (lines) => {
        const index = lines.findIndex((line) => line.startsWith('{"table":"entities"'));
        lines[index] = lines[index].replace(/"uuid":"([0-9a-f-]+)"/, (_whole, uuid: string) => `"uuid":"${uuid.toUpperCase()}"`);
        return index;
      },
      /entities\.uuid must be lowercase, not "[0-9A-F-]+"/,
    ],
    [
      'a table not in the header',
      (lines) => (lines.splice(-2, 1, '{"table":"sqlite_sequence","row":{"name":"x"}}'), lines.length - 2),
      /table sqlite_sequence is not in the header/,
    ],
    ['a row the database refuses (a duplicate key)', (lines) => (lines.splice(-2, 0, lines[lines.length - 2]), lines.length - 3), /UNIQUE constraint failed/],
    ['an unsupported version', (lines) => ((lines[0] = lines[0].replace('"version":2', '"version":3')), 0), /dump version 3 is not supported/],
  ];
  it.each(corruptions)('%s: names the line, imports nothing', async (_name, corrupt, reason) => {
    const lines = dump.trimEnd().split('\n');
    const number = corrupt(lines) + 1;
    const file = path(`bad-${randomBytes(4).toString('hex')}.dump`);
    // The end line made to fit: each corruption meets its own check, not the end line's.
    writeFileSync(file, sealed(lines));
    const target = path(`bad-${randomBytes(4).toString('hex')}.db`);
    const result = await idp('db', 'import', file, '--db', target);
    expect(result.code).toBe(2);
    expect(result.stderr.startsWith(`error: ${file} line`), result.stderr).toBe(true);
    // One line, or the lines of the batch the database refused.
    const [, first, last] = /^error: \S+ lines? (\d+)(?:-(\d+))?[: ]/.exec(result.stderr)!;
    expect(number).toBeGreaterThanOrEqual(Number(first));
    expect(number).toBeLessThanOrEqual(Number(last ?? first));
    expect(result.stderr).toMatch(reason);
    expect(result.stderr).toContain('nothing was imported');
    // Earlier batches were written before the bad line was read: all of it was rolled back.
    expectEmpty(await exported('--db', target, path(`${randomBytes(4).toString('hex')}.dump`)));
  });

  /** Each damage changes `lines` (header first, end line last); the message names the line or the end. */
  const damages: [string, (lines: string[]) => void, (file: string, lines: number) => string][] = [
    [
      'cut at a line boundary',
      (lines) => lines.splice(Math.floor(lines.length / 2)),
      (file, lines) =>
        `error: ${file} ends after line ${lines} without its end line {"end":"idp-dump",…}: the dump is incomplete (cut short?); nothing was imported`,
    ],
    [
      'without its end line',
      (lines) => lines.pop(),
      (file, lines) =>
        `error: ${file} ends after line ${lines} without its end line {"end":"idp-dump",…}: the dump is incomplete (cut short?); nothing was imported`,
    ],
    [
      'a row line removed',
      (lines) => lines.splice(-3, 1),
      (file, lines) =>
        `error: ${file} line ${lines}: the end line counts ${lines - 1} rows, but ${lines - 2} came before it: the dump is incomplete or was changed; nothing was imported`,
    ],
    [
      'a value changed',
      (lines) => (lines[lines.length - 2] = lines[lines.length - 2].replace(/"created":(\d)/, '"created":1$1')),
      (file, lines) => `error: ${file} line ${lines}: the rows do not match the end line's sha256: the dump was changed or damaged; nothing was imported`,
    ],
    [
      'a line after the end line',
      (lines) => lines.push(lines[1]),
      (file, lines) => `error: ${file} line ${lines}: a line after the end line; nothing was imported`,
    ],
    [
      'a malformed end line',
      (lines) => (lines[lines.length - 1] = '{"end":"idp-dump","rows":"all"}'),
      (file, lines) => `error: ${file} line ${lines}: the end line must be {"end":"idp-dump","rows":N,"sha256":"…"}; nothing was imported`,
    ],
    [
      'a version 1 dump, which has no end line',
      (lines) => {
        lines[0] = lines[0].replace('"version":2', '"version":1');
        lines.pop();
      },
      (file) =>
        `error: ${file} line 1: dump version 1 has no end line, so whether it is complete cannot be checked: export it again with this idp (version 2); nothing was imported`,
    ],
  ];
  it.each(damages)('%s: refused with exit code 2, the database unchanged', async (_name, damage, message) => {
    const lines = dump.trimEnd().split('\n');
    damage(lines);
    const file = path(`damaged-${randomBytes(4).toString('hex')}.dump`);
    writeFileSync(file, `${lines.join('\n')}\n`);
    const target = path(`damaged-${randomBytes(4).toString('hex')}.db`);
    const result = await idp('db', 'import', file, '--db', target);
    expect(result).toMatchObject({ code: 2, stdout: '', stderr: `${message(file, lines.length)}\n` });
    expectEmpty(await exported('--db', target, path(`${randomBytes(4).toString('hex')}.dump`)));
  });

  it('a dump with CRLF line ends is the same dump', async () => {
    const file = path('crlf.dump');
    writeFileSync(file, dump.replaceAll('\n', '\r\n'));
    const result = await idp('db', 'import', file, '--db', path('crlf.db'));
    expect(result.code, result.stderr).toBe(0);
    expect(comparable(await exported('--db', path('crlf.db'), path('crlf-again.dump')))).toEqual(comparable(dump));
  });

  it('an empty or missing file is a usage error', async () => {
    writeFileSync(path('empty.dump'), '');
    expect((await idp('db', 'import', path('empty.dump'), '--db', path('e.db'))).stderr).toBe(`error: ${path('empty.dump')} is empty: not an idp-dump file\n`);
    const missing = await idp('db', 'import', path('nope.dump'), '--db', path('e.db'));
    expect(missing).toMatchObject({ code: 2, stderr: `error: cannot read ${path('nope.dump')}: ENOENT\n` });
  });
});

describe('idp db migrate', () => {
  it('applies the migrations and says how many are applied', async () => {
    const journal = JSON.parse(readFileSync(new URL('../../src/db/migrations/sqlite/meta/_journal.json', import.meta.url), 'utf8'));
    const file = path('fresh.db');
    const json = await idp('db', 'migrate', '--db', file, '--json');
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({ database: file, dialect: 'sqlite', migrations: journal.entries.length });
    const text = await runIdp(['db', 'migrate'], { IDP_DB: file });
    expect(text).toMatchObject({ code: 0, stdout: `database ${file} (sqlite): ${journal.entries.length} migrations applied, up to date\n` });
    expect((await idp('db', 'migrate', '--db', join(dir, 'no-such-dir', 'x.db'))).code).toBe(2);
    expect((await idp('db', 'migrate', '--db', ':memory:')).code).toBe(2);
  });
});
