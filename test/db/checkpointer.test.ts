/**
 * WAL checkpoints run on a worker thread (src/db/checkpointer.ts), not on the connection that
 * commits: the log written by commits is copied into the database file while the database stays
 * open, and closing leaves no log behind (the worker's connection closed too).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openDatabase, type Database_ } from '../../src/db/open.js';
import type { SqliteDriver } from '../../src/db/sqlite.js';
import { createCheckpointer } from '../../src/db/checkpointer.js';

let dir: string;
let path: string;
let database: Database_ | undefined;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'idp-checkpoint-'));
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

describe('WAL checkpoints', () => {
  it('are not run by the committing connection but copied into the file by the worker', async () => {
    database = await openDatabase({ path });
    const driver = database.driver as SqliteDriver;
    expect(driver.sqlite.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    await driver.run('create table filler (n integer primary key, text text)');
    const before = statSync(path).size;
    for (let batch = 0; batch < 20; batch++) {
      await database.db.transaction(async () => {
        for (let i = 0; i < 100; i++) await driver.run('insert into filler (text) values (?)', ['x'.repeat(1000)]);
      });
    }
    // About 2 MB of rows: in the log at first, in the database file once the worker has run.
    expect(statSync(`${path}-wal`).size).toBeGreaterThan(2_000_000);
    await driver.checkpointsSettled();
    expect(statSync(path).size).toBeGreaterThan(before + 2_000_000);
    expect(fillerRows()).toBe(2000);
  });

  it('leave no log behind when the database closes', async () => {
    database = await openDatabase({ path });
    await database.driver.run('create table filler (n integer primary key)');
    await database.driver.run('insert into filler default values');
    // Let the worker start and run once, so its connection is open when the database closes.
    await (database.driver as SqliteDriver).checkpointsSettled();
    await database.close();
    database = undefined;
    expect(existsSync(`${path}-wal`)).toBe(false);
    expect(fillerRows()).toBe(1);
  });

  it('fall back to SQLite checkpointing by itself when the worker cannot run, and never hold the connection for it', async () => {
    const warnings: string[] = [];
    let fellBack!: () => void;
    const fallenBack = new Promise<void>((resolve) => (fellBack = resolve));
    let holds = 0;
    const checkpointer = createCheckpointer({
      path,
      nativeBinding: undefined,
      module: join(dir, 'no-such-module.js'),
      hold: async (body) => {
        holds++;
        await body();
      },
      fallBack: () => fellBack(),
      onError: (message) => warnings.push(message),
    })!;
    checkpointer.committed();
    await fallenBack;
    await checkpointer.settled();
    expect(warnings.join('\n')).toMatch(/checkpoints on its own again/);
    // Every hold it took was given back, and it takes no more.
    const taken = holds;
    checkpointer.committed();
    await checkpointer.settled();
    expect(holds).toBe(taken);
    await checkpointer.close();
  });
});
