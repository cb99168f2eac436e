/**
 * Each database gets SQL in its own dialect (docs/design.md#storage): the handle's tables are
 * that database's, the text drizzle builds is what the database receives, and the functions of
 * src/db/run.ts answer alike on both. Runs on SQLite, and on PostgreSQL under
 * IDP_TEST_DATABASE_URL (`npm run test:postgres`).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import pg from 'pg';
import { eq, is, sql } from 'drizzle-orm';
import { PgTable } from 'drizzle-orm/pg-core';
import { SQLiteTable } from 'drizzle-orm/sqlite-core';
import { schemaOf, type Database_ } from '../../src/db/open.js';
import { changes, execute, first, prepare, row, rows } from '../../src/db/run.js';
import { openTestDatabase, TEST_DATABASE_URL } from '../database.js';

let database: Database_;
beforeEach(async () => {
  database = await openTestDatabase();
});
afterEach(() => database.close());

const ORG = { uuid: '01a20000-0000-7000-8000-0000000000aa', name: 'acme', nameKey: 'acme', properties: { tier: 'gold', n: 3 }, created: 1, modified: 2 };

/** Every SQL text a PostgreSQL connection of this process sends while `body` runs. */
async function sentTexts(body: () => Promise<unknown>): Promise<string[]> {
  const texts: string[] = [];
  const original = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const config = args[0] as string | { text: string };
    texts.push(typeof config === 'string' ? config : config.text);
    return (original as (...rest: unknown[]) => unknown).apply(this, args);
  } as typeof original;
  try {
    await body();
  } finally {
    pg.Client.prototype.query = original;
  }
  return texts;
}

describe('a handle in its database’s own dialect', () => {
  it('has the tables of its database', () => {
    const { organizations } = schemaOf(database.db);
    expect(is(organizations, database.driver.dialect === 'postgres' ? PgTable : SQLiteTable)).toBe(true);
  });

  it.runIf(TEST_DATABASE_URL !== undefined)('sends PostgreSQL the text drizzle builds for it, numbered placeholders and all, unchanged', async () => {
    const { db } = database;
    const { organizations } = schemaOf(db);
    await db
      .insert(organizations)
      .values(ORG)
      .onConflictDoUpdate({ target: organizations.uuid, set: { name: 'acme' } });
    const query = db.select({ name: organizations.name }).from(organizations).where(eq(organizations.nameKey, 'acme'));
    const built = query.toSQL().sql;
    expect(built).toContain('$1');
    expect(built).not.toContain('?');
    const sent = await sentTexts(() => query);
    expect(sent.filter((text) => text.includes('organizations'))).toEqual([built]);
    const upsert = db.insert(organizations).values(ORG).onConflictDoNothing({ target: organizations.uuid }).toSQL().sql;
    expect(upsert).toMatch(/on conflict \("uuid"\) do nothing/);
  });

  it('reads back booleans, JSON and numbers as they were written', async () => {
    const { db } = database;
    const { organizations, adminUsers } = schemaOf(db);
    await db.insert(organizations).values(ORG);
    const admin = {
      uuid: '01a20000-0000-7000-8000-0000000000bb',
      username: 'alice',
      usernameKey: 'alice',
      email: 'alice@example.com',
      passwordHash: 'x',
      disabled: true,
      activated: false,
      created: 5,
      modified: 6,
    };
    await db.insert(adminUsers).values(admin);
    const read = await first(db.select().from(adminUsers).where(eq(adminUsers.uuid, admin.uuid)));
    expect(read).toMatchObject({ disabled: true, activated: false, sysadmin: false, created: 5, properties: {} });
    expect(await first(db.select().from(organizations))).toEqual({ ...ORG, activated: true, disabled: false });
  });

  it('answers first, changes, execute, rows and prepared statements alike', async () => {
    const { db } = database;
    const { organizations } = schemaOf(db);
    expect(await first(db.select().from(organizations))).toBeUndefined();
    await db.insert(organizations).values([ORG, { ...ORG, uuid: '01a20000-0000-7000-8000-0000000000ab', name: 'beta', nameKey: 'beta' }]);
    expect(changes(await db.update(organizations).set({ modified: 9 }).where(eq(organizations.nameKey, 'beta')))).toBe(1);
    expect(changes(await db.update(organizations).set({ modified: 9 }).where(eq(organizations.nameKey, 'nobody')))).toBe(0);
    expect(await execute(db, sql`update ${organizations} set modified = ${10}`)).toBe(2);
    expect(await rows<[string, number]>(db, sql`select name, modified from ${organizations} order by name`)).toEqual([
      ['acme', 10],
      ['beta', 10],
    ]);
    expect(await row<[number]>(db, sql`select count(*) from ${organizations}`)).toEqual([2]);
    const byKey = prepare(
      db
        .select({ name: organizations.name })
        .from(organizations)
        .where(eq(organizations.nameKey, sql.placeholder('key'))),
    );
    expect(await byKey.get({ key: 'beta' })).toEqual({ name: 'beta' });
    expect(await byKey.get({ key: 'nobody' })).toBeUndefined();
    expect(await byKey.all({ key: 'acme' })).toEqual([{ name: 'acme' }]);
  });
});
