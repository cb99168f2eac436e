/**
 * Group commit in the SQLite driver (src/db/group-commit.ts, `atomic`): transactions started in the
 * same turn of the event loop share one COMMIT. Each must still be all-or-nothing on its own,
 * resolve only once it is committed, and nothing uncommitted may be seen from outside. A second
 * connection on the same file shows what is committed.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openDatabase, type Database_ } from '../../src/db/open.js';
import type { SqliteDriver } from '../../src/db/sqlite.js';
import { organizations } from '../../src/db/schema.js';

let dir: string;
let database: Database_;
let observer: Database.Database;

const org = (n: number) => {
  const name = `org${n}`;
  return {
    uuid: `01a20000-0000-7000-8000-0000000000${String(n).padStart(2, '0')}`,
    name,
    nameKey: name,
    activated: true,
    disabled: false,
    properties: {},
    created: n,
    modified: n,
  };
};
/** The organizations another connection sees: what is committed. */
const committed = () => observer.prepare('select name from organizations order by name').pluck().all() as string[];
/** Changes by other connections' commits: pragma data_version moves once per such commit. */
const dataVersion = () => observer.pragma('data_version', { simple: true }) as number;
const insert = (n: number) => database.db.insert(organizations).values(org(n)).run();
/** Lets the event loop finish its turn: a group opened in the turn before is then due to commit. */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/** A step of a test: `reached` resolves once `reach()` is called. */
function step(): { reached: Promise<void>; reach: () => void } {
  let reach!: () => void;
  const reached = new Promise<void>((resolve) => (reach = resolve));
  return { reached, reach };
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'idp-group-commit-'));
  const path = join(dir, 'idp.db');
  database = await openDatabase({ path });
  observer = new Database(path, { readonly: true });
});

afterEach(async () => {
  observer.close();
  await database.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('group commit on SQLite', () => {
  it('commits transactions started together once, each resolving only after that commit', async () => {
    const before = dataVersion();
    const seenInside: string[][] = [];
    await Promise.all(
      [1, 2, 3].map((n) =>
        database.db.transaction(async () => {
          await insert(n);
          seenInside.push(committed());
        }),
      ),
    );
    // While the bodies ran, none of their rows was committed.
    expect(seenInside).toEqual([[], [], []]);
    expect(committed()).toEqual(['org1', 'org2', 'org3']);
    expect(dataVersion()).toBe(before + 1);
  });

  it('rolls back a transaction that throws and keeps the others of its group', async () => {
    const outcomes = await Promise.allSettled(
      [1, 2, 3].map((n) =>
        database.db.transaction(async () => {
          await insert(n);
          if (n === 2) throw new Error('refused');
        }),
      ),
    );
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason.message).toBe('refused');
    expect(committed()).toEqual(['org1', 'org3']);
    expect((await database.db.select({ name: organizations.name }).from(organizations).all()).map((row) => row.name).sort()).toEqual(['org1', 'org3']);
  });

  it('keeps a read from outside waiting until the group ends, so it never sees a row rolled back', async () => {
    const inserted = step();
    const io = step();
    const failing = database.db.transaction(async () => {
      await insert(1);
      inserted.reach();
      await io.reached;
      throw new Error('changed my mind');
    });
    await inserted.reached;
    const read = database.db.select({ name: organizations.name }).from(organizations).all();
    // The read had every chance to slip in while the transaction waited for its I/O.
    await nextTurn();
    io.reach();
    await expect(failing).rejects.toThrow('changed my mind');
    expect(await read).toEqual([]);
    expect(committed()).toEqual([]);
  });

  it('lets a transaction that spans I/O finish before its group commits, and starts a new group after', async () => {
    const order: string[] = [];
    const inserted = step();
    const io = step();
    const slow = database.db.transaction(async () => {
      await insert(1);
      inserted.reach();
      await io.reached;
      order.push('slow body done');
    });
    await inserted.reached;
    await nextTurn();
    // Joins no group that is already due to commit: waits, then opens the next one.
    const later = database.db.transaction(async () => {
      order.push('later body');
      await insert(2);
    });
    await nextTurn();
    io.reach();
    await Promise.all([slow, later]);
    expect(order).toEqual(['slow body done', 'later body']);
    expect(committed()).toEqual(['org1', 'org2']);
  });

  it('holds the write lock from the start, so a transaction that reads and then writes is not undone by another process committing between', async () => {
    const path = join(dir, 'idp.db');
    const writer = new Database(path, { timeout: 0 });
    try {
      const read = step();
      const io = step();
      const reading = database.db.transaction(async () => {
        await database.db.select({ name: organizations.name }).from(organizations).all();
        read.reach();
        await io.reached;
        await insert(1);
      });
      await read.reached;
      const other = org(2);
      const attempt = () =>
        writer
          .prepare('insert into organizations (uuid, name, name_key, activated, disabled, properties, created, modified) values (?, ?, ?, 1, 0, ?, 2, 2)')
          .run(other.uuid, other.name, other.nameKey, '{}');
      // The other process waits (here: fails at once, having no busy timeout) instead of committing.
      expect(attempt).toThrow(expect.objectContaining({ code: 'SQLITE_BUSY' }));
      io.reach();
      await expect(reading).resolves.toBeUndefined();
      attempt();
      expect(committed()).toEqual(['org1', 'org2']);
    } finally {
      writer.close();
    }
  });

  it('commits a group still open when the database is closed, before closing it', async () => {
    const pending = database.db.transaction(async () => {
      await insert(7);
    });
    await database.close();
    await expect(pending).resolves.toBeUndefined();
    expect(committed()).toEqual(['org7']);
    database = await openDatabase({ path: join(dir, 'idp.db') });
  });

  it('fails every transaction of a group whose commit fails, and keeps none of their rows', async () => {
    const sqlite = (database.driver as SqliteDriver).sqlite;
    sqlite.exec(
      'create table parent (id integer primary key); create table child (id integer, parent integer references parent (id) deferrable initially deferred)',
    );
    const outcomes = await Promise.allSettled([
      database.db.transaction(async () => {
        await insert(1);
      }),
      // A deferred foreign key is checked at COMMIT, so this one fails the shared commit.
      database.db.transaction(async () => {
        await database.driver.run('insert into child (id, parent) values (1, 42)');
      }),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    for (const outcome of outcomes) expect((outcome as PromiseRejectedResult).reason.message).toMatch(/FOREIGN KEY constraint failed/);
    expect(committed()).toEqual([]);
    expect(sqlite.inTransaction).toBe(false);
    // The connection is usable again.
    await database.db.transaction(async () => {
      await insert(3);
    });
    expect(committed()).toEqual(['org3']);
  });
});
