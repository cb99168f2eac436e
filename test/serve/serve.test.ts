import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request as httpRequest } from 'node:http';
import Database from 'better-sqlite3';
import { runIdp, startIdp, testDatabase } from '../spawn.js';
import { openDatabase, defaultMigrationsFolder } from '../../src/db/open.js';
import { expectRefusal, ORG, readResponse } from '../helpers.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'idp-serve-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The fields these tests read from the server's answers (status, token and envelope). */
interface Answer {
  status?: string;
  version?: string;
  access_token?: string;
  count?: number;
  data?: Record<string, string>;
}

async function json(url: string, init?: RequestInit): Promise<{ status: number; body: Answer }> {
  const res = await fetch(url, init);
  return { status: res.status, body: (await res.json()) as Answer };
}

const post = (body: unknown, token?: string): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) },
  body: JSON.stringify(body),
});

describe('idp serve', () => {
  it('listens on --port 0, answers /status, and keeps every acknowledged write across SIGTERM and restart', async () => {
    const database = testDatabase(join(dir, 'restart.db'));
    // A fixed issuer: with --port 0 the default issuer would change with the port.
    const args = ['--port', '0', ...database.args, '--log-level', 'warn', '--issuer', 'http://idp.test'];
    const first = await startIdp(args);
    expect(first.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await json(`${first.url}/status`)).toEqual({ status: 200, body: { status: 'ok', version: expect.any(String) } });
    expect((await json(`${first.url}/management/orgs`, post(ORG))).status).toBe(200);
    const token = (await json(`${first.url}/management/token`, post({ grant_type: 'password', username: ORG.username, password: ORG.password }))).body
      .access_token;
    for (let i = 0; i < 20; i++) expect((await json(`${first.url}/management/orgs/acme/apps`, post({ name: `app${i}` }, token))).status).toBe(200);
    expect(await first.stop('SIGTERM')).toBe(0);

    const second = await startIdp(args);
    const again = (await json(`${second.url}/management/token`, post({ grant_type: 'password', username: ORG.username, password: ORG.password }))).body
      .access_token;
    const apps = await json(`${second.url}/management/orgs/acme/apps`, { headers: { authorization: `Bearer ${again}` } });
    expect(apps.body.count).toBe(20);
    // A token signed before the restart still verifies: the keys live in the database.
    expect((await json(`${second.url}/management/orgs/acme`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    expect(await second.stop('SIGINT')).toBe(0);
    await database.drop();
  });

  it('finishes an in-flight request before exiting on SIGTERM', async () => {
    const database = testDatabase(join(dir, 'drain.db'));
    const server = await startIdp(['--port', '0', ...database.args, '--log-level', 'info']);
    // The server has read the request's head and asked for its body (100 Continue) when the
    // signal lands; the body follows once the server has logged that it is shutting down.
    const body = JSON.stringify(ORG);
    const request = httpRequest(`${server.url}/management/orgs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), expect: '100-continue' },
    });
    const pending = new Promise<{ status: number; body: string }>((resolve, reject) => {
      request.once('response', (response) => {
        let text = '';
        response.on('data', (chunk) => (text += chunk));
        response.once('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
      });
      request.once('error', reject);
    });
    await new Promise((resolve) => request.once('continue', resolve));
    const exit = server.stop('SIGTERM');
    await server.stderrMatch(/shutting down/);
    request.end(body);
    const answer = await pending;
    expect(answer.status, answer.body).toBe(200);
    expect(await exit).toBe(0);
    expect(await database.rows('select name from organizations')).toEqual([{ name: 'acme' }]);
    await database.drop();
  });

  it('takes its settings from IDP_* variables, and flags beat variables', async () => {
    const database = testDatabase(join(dir, 'closed.db'));
    const server = await startIdp(['--port', '0'], { IDP_PORT: '1', ...database.env, IDP_SIGNUP: 'closed', IDP_LOG_LEVEL: 'warn' });
    expectRefusal(await readResponse(await fetch(`${server.url}/management/orgs`, post(ORG))), 401, 'unauthorized');
    expect(await server.stop()).toBe(0);
    // The refused sign-up created neither the organization nor its admin, in the database the variables named.
    expect(await database.rows('select name from organizations')).toEqual([]);
    expect(await database.rows('select username from admin_users')).toEqual([]);
    await database.drop();
  });

  it('token lifetimes and algorithms come from flags, which beat their variables', async () => {
    const env = { IDP_ACCESS_TOKEN_TTL: '100', IDP_ACCESS_TOKEN_ALG: 'RS256', IDP_LOG_LEVEL: 'warn' };
    const server = await startIdp(
      ['--port', '0', '--db', ':memory:', '--fixtures', 'fixtures/demo.json', '--access-token-ttl', '120', '--access-token-alg', 'PS256'],
      env,
    );
    const token = await json(`${server.url}/management/token`, post({ grant_type: 'password', username: 'demo', password: 'demo-password' }));
    expect(await server.stop()).toBe(0);
    const [header, payload] = token.body
      .access_token!.split('.')
      .slice(0, 2)
      .map((part) => JSON.parse(Buffer.from(part, 'base64url').toString()));
    expect(header.alg).toBe('PS256');
    expect(payload.exp - payload.iat).toBe(120);
  });

  it('applies fixtures idempotently and creates the --superuser', async () => {
    const database = testDatabase(join(dir, 'fixtures.db'));
    const args = ['--port', '0', ...database.args, '--fixtures', 'fixtures/demo.json', '--superuser', 'root:root-password', '--log-level', 'info'];
    for (const expected of [
      { created: 3, unchanged: 0 },
      { created: 0, unchanged: 3 },
    ]) {
      const server = await startIdp(args);
      // The log line reaches stderr on its own pipe: it may come after "listening" on stdout.
      const [, created, unchanged] = await server.stderrMatch(/"created":(\d+),"unchanged":(\d+)/);
      expect({ created: Number(created), unchanged: Number(unchanged) }).toEqual(expected);
      const root = await json(`${server.url}/management/token`, post({ grant_type: 'password', username: 'root', password: 'root-password' }));
      expect(root.status).toBe(200);
      const apps = await json(`${server.url}/management/orgs/demo/apps`, { headers: { authorization: `Bearer ${root.body.access_token}` } });
      expect(Object.keys(apps.body.data ?? {})).toEqual(['demo/sandbox']);
      expect(await server.stop()).toBe(0);
    }
    await database.drop();
  });

  it('upgrades an older database in place instead of recreating it', async () => {
    const db = join(dir, 'old.db');
    const oldMigrations = join(dir, 'migrations-v0');
    cpSync(defaultMigrationsFolder(), oldMigrations, { recursive: true });
    const journalPath = join(oldMigrations, 'meta', '_journal.json');
    const journal = JSON.parse(readFileSync(journalPath, 'utf8'));
    journal.entries = journal.entries.slice(0, 1);
    writeFileSync(journalPath, JSON.stringify(journal));
    const old = await openDatabase({ path: db, migrationsFolder: oldMigrations });
    await old.driver.run(
      `insert into organizations (uuid, name, name_key, created, modified) values ('0190f2a4-8d3c-7b7e-9a52-0b9f8c1d2e3f', 'legacy', 'legacy', 1, 1)`,
    );
    expect(await old.driver.query(`select count(*) n from sqlite_master where name = 'signing_keys'`)).toEqual([{ n: 0 }]);
    await old.close();

    const server = await startIdp(['--port', '0', '--db', db, '--log-level', 'warn']);
    const code = await server.stop();
    expect(server.stderr()).toBe('');
    expect(code).toBe(0);
    const upgraded = new Database(db, { readonly: true });
    expect(upgraded.prepare('select name from organizations').all()).toEqual([{ name: 'legacy' }]);
    expect(upgraded.prepare(`select count(*) n from sqlite_master where name = 'signing_keys'`).get()).toEqual({ n: 1 });
    expect(upgraded.pragma('journal_mode', { simple: true })).toBe('wal');
    upgraded.close();
  });

  const unusable: [string, string[], RegExp][] = [
    ['a port out of range', ['--port', '99999'], /--port must be a number from 0 to 65535/],
    ['a port that is not a number', ['--port', 'http'], /--port must be a number/],
    ['a database in a missing directory', ['--db', '/nonexistent/dir/idp.db'], /cannot open database/],
    ['an unreadable database file', ['--db', 'UNREADABLE'], /cannot open database/],
    ['a missing fixtures file', ['--fixtures', 'nope.json'], /cannot read fixtures file/],
    ['a malformed fixtures file', ['--fixtures', 'MALFORMED'], /not valid JSON/],
    ['fixtures of the wrong shape', ['--fixtures', 'WRONG'], /organizations\[0\]\.name/],
    ['an unknown signup mode', ['--signup', 'maybe'], /--signup must be 'open' or 'closed'/],
    ['an unknown log level', ['--log-level', 'loud'], /--log-level must be one of/],
    ['a bad superuser', ['--superuser', 'nocolon'], /--superuser must be USER:PASSWORD/],
    ['an issuer that is not a URL', ['--issuer', 'idp.example'], /--issuer must be/],
    ['an unknown signing algorithm', ['--id-token-alg', 'HS256'], /--id-token-alg must be one of ES256, RS256, PS256, EdDSA, not 'HS256'/],
    ['a lifetime that is not a number', ['--code-ttl', 'soon'], /--code-ttl must be/],
    ['a --superuser password the policy refuses', ['--superuser', 'root:password1'], /the --superuser password is too common/],
    ['a fixtures admin password the policy refuses', ['--fixtures', 'WEAK'], /weak\.json: admins\[0\]\.password must be at least 8 characters/],
    ['an unknown character class', ['--password-require', 'digit,emoji'], /--password-require must be .*lower, upper, digit, symbol.*not 'emoji'/],
    ['a password minimum above the maximum', ['--password-min-length', '2000'], /--password-min-length must be at most 1024/],
    ['an unknown blocklist', ['--password-blocklist', 'rockyou'], /--password-blocklist must be one of common, off, not 'rockyou'/],
  ];
  for (const [what, args, message] of unusable) {
    it(`stops with one clear line and exit code 2 on ${what}`, async () => {
      const resolved = args.map((arg) => {
        if (arg === 'UNREADABLE') {
          const file = join(dir, 'unreadable.db');
          writeFileSync(file, 'this is not a database');
          chmodSync(file, 0o000);
          return process.getuid?.() === 0 ? join(dir, 'is-a-directory') : file;
        }
        if (arg === 'MALFORMED') return writeFixture('malformed.json', '{"admins": [');
        if (arg === 'WRONG') return writeFixture('wrong.json', JSON.stringify({ admins: [], organizations: [{ name: 5 }] }));
        if (arg === 'WEAK') return writeFixture('weak.json', JSON.stringify({ admins: [{ username: 'weak', password: 'short' }], organizations: [] }));
        return arg;
      });
      if (resolved.includes(join(dir, 'is-a-directory'))) cpSync(defaultMigrationsFolder(), join(dir, 'is-a-directory'), { recursive: true });
      const result = await runIdp(['serve', '--port', '0', '--db', ':memory:', ...resolved]);
      expect(result.code).toBe(2);
      const lines = result.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^error: /);
      expect(lines[0]).toMatch(message);
      expect(result.stderr).not.toMatch(/\n\s+at /);
      expect(result.stdout).not.toContain('listening on');
    });
  }

  it('stops with exit code 2 when the port is taken', async () => {
    const server = await startIdp(['--port', '0', '--db', ':memory:', '--log-level', 'warn']);
    const port = new URL(server.url).port;
    const result = await runIdp(['serve', '--port', port, '--db', ':memory:']);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toMatch(/^error: cannot listen on 127\.0\.0\.1:\d+: the port is in use$/);
    await server.stop();
  });
});

function writeFixture(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}
