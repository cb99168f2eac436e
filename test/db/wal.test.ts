/**
 * A file database writes ahead to its log (WAL mode, src/db/sqlite.ts), and closing it copies the
 * log into the file and removes it: what was committed is all in the database file. The log is
 * copied into the file every 10,000 pages rather than SQLite's 1,000 (docs/design.md#storage).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openDatabase, type Database_ } from '../../src/db/open.js';

let dir: string;
let path: string;
let database: Database_ | undefined;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'idp-wal-'));
  path = join(dir, 'idp.db');
});

afterEach(async () => {
  await database?.close();
  database = undefined;
  rmSync(dir, { recursive: true, force: true });
});

/** How many rows `filler` has, read by a connection of its own from the file alone. */
function fillerRows(): unknown {
  const reader = new Database(path, { readonly: true });
  try {
    return reader.prepare('select count(*) from filler').pluck().get();
  } finally {
    reader.close();
  }
}

describe('the write-ahead log', () => {
  it('is in use while the database is open, and gone, copied into the file, once it closes', async () => {
    database = await openDatabase({ path });
    await database.driver.run('create table filler (n integer primary key)');
    await database.driver.run('insert into filler default values');
    expect(existsSync(`${path}-wal`)).toBe(true);
    await database.close();
    database = undefined;
    expect(existsSync(`${path}-wal`)).toBe(false);
    expect(fillerRows()).toBe(1);
  });

  it('grows past the 1,000 pages at which SQLite would copy it into the file, each commit adding its pages', async () => {
    database = await openDatabase({ path });
    await database.driver.run('create table filler (n integer primary key, data blob)');
    // 3,000 commits of one row of about a page each: 3,000 pages and more written to the log.
    for (let i = 0; i < 3000; i++) await database.driver.run('insert into filler (data) values (randomblob(4000))');
    const pageSize = 4096;
    const frameHeader = 24;
    expect(statSync(`${path}-wal`).size).toBeGreaterThan(2000 * (pageSize + frameHeader));
    await database.close();
    database = undefined;
    expect(fillerRows()).toBe(3000);
  });
});
