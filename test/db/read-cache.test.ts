/**
 * The read cache of the SQLite driver (src/db/read-cache.ts): a remembered lookup is served
 * again only while nothing it read from has changed — through this connection, through a
 * cascade, or through another connection on the same file — and never inside a transaction.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, remembered, type Database_, type Tx } from '../../src/db/open.js';
import { applications, organizations } from '../../src/db/schema.js';
import { writtenTable } from '../../src/db/read-cache.js';
import { deleteEntityRows, findEntityByName, findEntityByUuid, insertEntity, updateEntityRow } from '../../src/db/entity-store.js';

let dir: string;
let database: Database_;

const ORG = {
  uuid: '01a20000-0000-7000-8000-000000000001',
  name: 'acme',
  nameKey: 'acme',
  activated: true,
  disabled: false,
  properties: {},
  created: 1,
  modified: 1,
};
const APP = { uuid: '01a20000-0000-7000-8000-000000000002', orgUuid: ORG.uuid, name: 'shop', nameKey: 'shop', properties: {}, created: 1, modified: 1 };

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'idp-read-cache-'));
  database = await openDatabase({ path: join(dir, 'idp.db') });
  await database.db.insert(organizations).values(ORG).run();
  await database.db.insert(applications).values(APP).run();
});

afterEach(async () => {
  await database.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The organization's name as read through the cache, and how many reads reached the database. */
function organizationReader(db: Tx) {
  let reads = 0;
  const read = () =>
    remembered(db, 'test:org', [organizations], async () => {
      reads++;
      const rows = await db.select({ name: organizations.name }).from(organizations).all();
      return rows.map((row) => row.name);
    });
  return { read, reads: () => reads };
}

describe('the SQLite read cache', () => {
  it('serves a lookup again until its table changes, then reads the change', async () => {
    const org = organizationReader(database.db);
    expect(await org.read()).toEqual(['acme']);
    expect(await org.read()).toEqual(['acme']);
    expect(org.reads()).toBe(1);
    await database.db.update(organizations).set({ name: 'acme-corp' }).run();
    expect(await org.read()).toEqual(['acme-corp']);
    expect(org.reads()).toBe(2);
  });

  it('is not disturbed by writes to other tables or by writes that change nothing', async () => {
    const org = organizationReader(database.db);
    await org.read();
    await database.db.update(applications).set({ name: 'store' }).run();
    await database.driver.run('update organizations set name = ? where uuid = ?', ['x', 'no-such-uuid']);
    await org.read();
    expect(org.reads()).toBe(1);
  });

  it('sees a change made by another connection to the same file (another process)', async () => {
    const other = await openDatabase({ path: join(dir, 'idp.db') });
    try {
      const org = organizationReader(database.db);
      expect(await org.read()).toEqual(['acme']);
      await other.driver.run('update organizations set name = ?', ['renamed elsewhere']);
      // A request that could know of the change arrives in a later turn of the event loop.
      await new Promise((resolve) => setImmediate(resolve));
      expect(await org.read()).toEqual(['renamed elsewhere']);
    } finally {
      await other.close();
    }
  });

  it('follows cascades: deleting an organization forgets its applications', async () => {
    let reads = 0;
    const apps = () =>
      remembered(database.db, 'test:apps', [applications], async () => {
        reads++;
        return (await database.db.select({ name: applications.name }).from(applications).all()).map((row) => row.name);
      });
    expect(await apps()).toEqual(['shop']);
    await database.db.delete(organizations).run();
    expect(await apps()).toEqual([]);
    expect(reads).toBe(2);
  });

  it('neither serves nor remembers inside a transaction, and a rolled-back write is not served after', async () => {
    const org = organizationReader(database.db);
    await org.read();
    await expect(
      database.db.transaction(async (tx) => {
        await tx.update(organizations).set({ name: 'uncommitted' }).run();
        // The transaction sees its own write, not the remembered value.
        expect(await organizationReader(tx).read()).toEqual(['uncommitted']);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await org.read()).toEqual(['acme']);
  });

  it('remembers an entity found by name or uuid until an entity changes, and forgets a deleted one', async () => {
    const row = await insertEntity(database.db, { appUuid: APP.uuid, collection: 'pets', type: 'pet', name: 'Rex', properties: { legs: 4 }, now: 1 });
    const first = await findEntityByName(database.db, APP.uuid, 'pets', 'rex');
    expect(first?.properties).toEqual({ legs: 4, name: 'Rex' });
    // The same frozen row again, not another read.
    expect(await findEntityByName(database.db, APP.uuid, 'pets', 'REX')).toBe(first);
    expect(() => ((first!.properties as Record<string, unknown>).legs = 3)).toThrow(TypeError);
    const byUuid = await findEntityByUuid(database.db, APP.uuid, row.uuid);
    expect(await findEntityByUuid(database.db, APP.uuid, row.uuid.toUpperCase())).toBe(byUuid);
    // Another entity's name in another collection does not answer for this one.
    await insertEntity(database.db, { appUuid: APP.uuid, collection: 'pets:x', type: 'pet', name: 'y', properties: {}, now: 1 });
    expect((await findEntityByName(database.db, APP.uuid, 'pets:x', 'y'))?.name).toBe('y');
    expect(await findEntityByName(database.db, APP.uuid, 'pets', 'x:y')).toBeUndefined();

    await updateEntityRow(database.db, first!, { legs: 3, name: 'Rex' }, 'Rex', 2);
    expect((await findEntityByName(database.db, APP.uuid, 'pets', 'rex'))?.properties).toEqual({ legs: 3, name: 'Rex' });
    expect((await findEntityByUuid(database.db, APP.uuid, row.uuid))?.properties).toEqual({ legs: 3, name: 'Rex' });
    await deleteEntityRows(database.db, [row.uuid]);
    expect(await findEntityByName(database.db, APP.uuid, 'pets', 'rex')).toBeUndefined();
    expect(await findEntityByUuid(database.db, APP.uuid, row.uuid)).toBeUndefined();
  });

  it('hands out frozen values, so no caller can change what the next one gets', async () => {
    const value = await remembered(database.db, 'test:frozen', [organizations], async () => ({ nested: { list: [1] } }));
    expect(() => value.nested.list.push(2)).toThrow(TypeError);
    expect((await remembered(database.db, 'test:frozen', [organizations], async () => ({ nested: { list: [] as number[] } }))).nested.list).toEqual([1]);
  });
});

describe('writtenTable', () => {
  it.each([
    ['insert into "entities" ("uuid") values (?)', 'entities'],
    ['insert or ignore into collections values (?)', 'collections'],
    ['replace into "login_throttle" values (?)', 'login_throttle'],
    ['update "organizations" set "name" = ?', 'organizations'],
    ['  UPDATE OR ROLLBACK admin_users set x = 1', 'admin_users'],
    ['delete from "token_revocations" where "expires_at" < ?', 'token_revocations'],
    ['create table x (a)', undefined],
    ['with doomed as (select 1) delete from entities', undefined],
  ])('%s → %s', (text, table) => {
    expect(writtenTable(text)).toBe(table);
  });
});
