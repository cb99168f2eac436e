/**
 * `idp db backup` and `idp db restore` on real files: a backup taken while a real `idp serve`
 * child accepts entity creates in a loop holds every write acknowledged before it started, and
 * restores into a database a server opens; a restore refuses a file that is missing, not SQLite,
 * not idp's, damaged or too new, and a database a server holds, leaving the database as it was.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { runIdp, startIdp, type RunningIdp } from '../spawn.js';
import { callServer, ORG } from '../helpers.js';

let dir: string;
const path = (name: string) => join(dir, name);
const LIVE = 'live.db';
const BACKUP = 'live.backup';

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'idp-backup-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const call = (base: string, method: string, route: string, json?: unknown, token?: string) => callServer(base, method, route, { json, token });

const signIn = async (base: string): Promise<string> =>
  (await call(base, 'POST', '/management/token', { grant_type: 'password', username: ORG.username, password: ORG.password })).access_token;

/** Every `name` of the collection `writes`, through the server's API, following cursors. */
async function namesOn(server: RunningIdp): Promise<Set<string>> {
  const token = await signIn(server.url);
  const names = new Set<string>();
  let cursor: string | undefined;
  do {
    const page = await call(server.url, 'GET', `/acme/sandbox/writes?limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, undefined, token);
    for (const entity of page.entities) names.add(entity.name);
    cursor = page.cursor;
  } while (cursor);
  return names;
}

const serve = (file: string) => startIdp(['--port', '0', '--db', path(file), '--log-level', 'silent']);

/** Creates entities one after another until stopped; `acknowledged` lists those answered 200. */
function startWriter(base: string, token: string) {
  const acknowledged: string[] = [];
  let running = true;
  const done = (async () => {
    for (let i = 0; running; i++) {
      await call(base, 'POST', '/acme/sandbox/writes', { name: `w${i}` }, token);
      acknowledged.push(`w${i}`);
    }
  })();
  return {
    acknowledged,
    stop: async () => {
      running = false;
      await done;
    },
  };
}

async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}

const idp = (...args: string[]) => runIdp(['db', ...args]);

describe('idp db backup under load, then idp db restore', () => {
  let before: string[];
  let after: string[];

  beforeAll(async () => {
    const live = await serve(LIVE);
    try {
      await call(live.url, 'POST', '/management/orgs', ORG);
      const token = await signIn(live.url);
      await call(live.url, 'POST', '/management/orgs/acme/apps', { name: 'sandbox' }, token);
      const writer = startWriter(live.url, token);
      await waitFor(() => writer.acknowledged.length >= 50);
      before = [...writer.acknowledged];
      const backup = await idp('backup', '--db', path(LIVE), path(BACKUP));
      const during = writer.acknowledged.length - before.length;
      await waitFor(() => writer.acknowledged.length >= before.length + during + 20);
      await writer.stop();
      after = writer.acknowledged.slice(before.length + during);
      expect(backup.stderr).toBe('');
      expect(backup.code).toBe(0);
      expect(backup.stdout).toMatch(new RegExp(`^backed up .*${LIVE} to .*${BACKUP} \\(\\d+ bytes, \\d+ migrations\\)\\n$`));
      // The server kept answering while the backup ran.
      expect(during).toBeGreaterThan(0);

      // A restore over the database a server holds is refused, and the server's data stays.
      const refused = await idp('restore', '--db', path(LIVE), path(BACKUP), '--yes');
      expect(refused.code).toBe(2);
      expect(refused.stderr).toBe(`error: database ${path(LIVE)} is in use (is idp serve running on it?): stop the server, then restore\n`);
      const names = await namesOn(live);
      for (const name of [...before, ...after]) expect(names.has(name), name).toBe(true);
    } finally {
      await live.stop();
    }
  }, 60_000);

  /**
   * The database `file`, served, holds every write acknowledged before the backup started and
   * none acknowledged after it ended.
   */
  async function expectBackedUpOnly(file: string): Promise<void> {
    const server = await serve(file);
    try {
      const names = await namesOn(server);
      expect(before.filter((name) => !names.has(name))).toEqual([]);
      expect(after.filter((name) => names.has(name))).toEqual([]);
    } finally {
      await server.stop();
    }
  }

  it('writes a file readable only by its owner', () => {
    expect(statSync(path(BACKUP)).mode & 0o777).toBe(0o600);
  });

  it('restores to a new file that holds every write acknowledged before the backup started', async () => {
    const restored = await idp('restore', '--db', path('restored.db'), path(BACKUP));
    expect(restored.stderr).toBe('');
    expect(restored.code).toBe(0);
    expect(restored.stdout).toMatch(new RegExp(`^restored .*${BACKUP} to .*restored\\.db \\(\\d+ migrations\\)\n$`));
    await expectBackedUpOnly('restored.db');
  });

  it('replaces a stopped database with --yes, leaving nothing of what was written since', async () => {
    const declined = await idp('restore', '--db', path(LIVE), path(BACKUP));
    expect(declined.code).toBe(2);
    expect(declined.stderr).toMatch(/^error: Replace database .* pass --yes to confirm/);
    const replaced = await idp('restore', '--db', path(LIVE), path(BACKUP), '--yes');
    expect(replaced.stderr).toBe('');
    expect(replaced.code).toBe(0);
    expect(existsSync(`${path(LIVE)}-wal`)).toBe(false);
    await expectBackedUpOnly(LIVE);
  });
});

/** A SQLite file made by `build`. */
function sqliteFile(name: string, build: (db: Database.Database) => void): string {
  const db = new Database(path(name));
  try {
    build(db);
  } finally {
    db.close();
  }
  return path(name);
}

describe('idp db restore (and backup) refuse bad input and change nothing', () => {
  let good: string;
  let target: string;
  let original: Buffer;

  beforeAll(async () => {
    const server = await serve('source.db');
    try {
      await call(server.url, 'POST', '/management/orgs', ORG);
    } finally {
      await server.stop();
    }
    good = path('good.backup');
    expect((await idp('backup', '--db', path('source.db'), good)).code).toBe(0);
    target = path('target.db');
    expect((await idp('restore', '--db', target, good)).code).toBe(0);
    original = readFileSync(target);
  }, 60_000);

  /** The good backup with the root page of one index overwritten: it opens and names its migrations, but is not intact. */
  const damaged = () => {
    const db = new Database(good, { readonly: true });
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    const page = db.prepare("select rootpage from sqlite_master where type = 'index' and tbl_name = 'entities' order by name limit 1").pluck().get() as number;
    db.close();
    const bytes = readFileSync(good);
    bytes.fill(0x5a, (page - 1) * pageSize, page * pageSize);
    writeFileSync(path('damaged.backup'), bytes);
    return path('damaged.backup');
  };
  const newer = () => {
    writeFileSync(path('newer.backup'), readFileSync(good));
    const db = new Database(path('newer.backup'));
    db.prepare('insert into __drizzle_migrations (hash, created_at) values (?, ?)').run('f'.repeat(64), 4102444800000);
    db.close();
    return path('newer.backup');
  };

  it.each([
    ['a missing file', () => path('missing.backup'), (file: string) => `error: cannot read ${file}: ENOENT`, 2],
    ['a directory', () => dir, (file: string) => `error: cannot read ${file}: not a file`, 2],
    [
      'a file that is not SQLite',
      () => (writeFileSync(path('notes.txt'), 'not a database\n'.repeat(100)), path('notes.txt')),
      (file: string) => `error: ${file} is not a SQLite database`,
      2,
    ],
    [
      'a SQLite file that is not idp',
      () => sqliteFile('other.db', (db) => db.exec('create table notes (text)')),
      (file: string) => `error: ${file} is a SQLite database but not an idp database: it has none of idp's migrations`,
      2,
    ],
    ['a damaged idp backup', damaged, (file: string) => new RegExp(`^error: ${file} is damaged: \\S`), 2],
    [
      'a backup of a newer idp',
      newer,
      (file: string) =>
        new RegExp(
          `^error: database ${file} is at schema version \\d+, newer than this idp's \\d+ \\(\\w+\\): a newer idp applied 1 migration this one does not know`,
        ),
      6,
    ],
  ])('%s', async (_name, make, message, code) => {
    const file = make();
    const result = await idp('restore', '--db', target, file, '--yes');
    expect(result.code).toBe(code);
    const expected = message(file);
    if (typeof expected === 'string') expect(result.stderr).toBe(`${expected}\n`);
    else expect(result.stderr).toMatch(expected);
    expect(readFileSync(target).equals(original)).toBe(true);
    expect(existsSync(path('fresh.db'))).toBe(false);
    expect((await idp('restore', '--db', path('fresh.db'), file)).code).toBe(code);
    expect(existsSync(path('fresh.db'))).toBe(false);
    expect(readdirSync(dir).filter((name) => name.includes('.partial-'))).toEqual([]);
  });

  it('the database itself as the backup file', async () => {
    const before = readFileSync(path('source.db'));
    const result = await idp('backup', '--db', path('source.db'), path('source.db'));
    expect(result.stderr).toBe(`error: ${path('source.db')} is the database itself: name another file for the backup\n`);
    expect(result.code).toBe(2);
    expect(readFileSync(path('source.db')).equals(before)).toBe(true);
  });
});

describe('idp db backup refuses what it cannot copy', () => {
  it.each([
    [
      'a database that does not exist',
      ['--db', '/nonexistent/missing.db'],
      'error: database /nonexistent/missing.db does not exist; pass the file idp serve uses with --db',
    ],
    [
      'PostgreSQL',
      ['--database-url', 'postgres://idp@db.example/idp'],
      'error: idp db backup copies a SQLite file; on PostgreSQL use pg_dump (pg_dump -Fc URL > idp.pgdump), or idp db export FILE',
    ],
    ['an in-memory database', ['--db', ':memory:'], 'error: --db :memory: is gone when the command ends: name a database file'],
  ])('%s', async (_name, flags, message) => {
    const result = await runIdp(['db', 'backup', ...flags, path('never.backup')]);
    expect(result.stderr).toBe(`${message}\n`);
    expect(result.code).toBe(2);
    expect(existsSync(path('never.backup'))).toBe(false);
  });

  it('a SQLite file that is not idp', async () => {
    const file = sqliteFile('plain.db', (db) => db.exec('create table notes (text)'));
    const result = await idp('backup', '--db', file, path('never.backup'));
    expect(result.stderr).toBe(`error: ${file} is a SQLite database but not an idp database: it has none of idp's migrations\n`);
    expect(result.code).toBe(2);
    expect(existsSync(path('never.backup'))).toBe(false);
  });

  it('PostgreSQL restore points to pg_restore and idp db import', async () => {
    const result = await idp('restore', '--database-url', 'postgres://idp@db.example/idp', path('never.backup'));
    expect(result.stderr).toBe('error: idp db restore replaces a SQLite file; on PostgreSQL use pg_restore for a pg_dump archive, or idp db import FILE\n');
    expect(result.code).toBe(2);
  });
});
