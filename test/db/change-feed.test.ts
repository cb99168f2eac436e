/**
 * PostgreSQL's change feed and the read cache behind it (src/db/change-feed.ts, read-cache.ts,
 * docs/design.md#the-read-cache), with two instances' handles on one schema and a plain client
 * writing SQL as a tool would: a new entity notifies no one (so creates do not wait on each
 * other's commits), every other change to entities does, and no remembered read goes stale
 * either way. Skipped with a message where no PostgreSQL server answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { freshener, openDatabase, remembered, schemaOf, type Database_, type Db } from '../../src/db/open.js';
import { CHANGE_CHANNEL } from '../../src/db/change-feed.js';
import { findEntityByName, findEntityByUuid, insertEntity, updateEntityRow } from '../../src/db/entity-store.js';
import { createTestSchema, postgresProblem, type TestSchema } from '../database.js';

const postgres = await postgresProblem();
if (postgres !== undefined) console.warn(`test/db/change-feed skipped: ${postgres}`);

const ORG_UUID = '01a30000-0000-7000-8000-000000000001';
const APP = { uuid: '01a30000-0000-7000-8000-000000000002', orgUuid: ORG_UUID, name: 'shop', nameKey: 'shop', properties: {}, created: 1, modified: 1 };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves once `db` remembers reads, that is once its change feed listens. */
async function listening(db: Db): Promise<void> {
  const { organizations } = schemaOf(db);
  for (let attempt = 0; attempt < 100; attempt++) {
    let loads = 0;
    const read = () => remembered(db, `test:listening:${attempt}`, [organizations], async () => ++loads);
    await read();
    await read();
    if (loads === 1) return;
    await sleep(50);
  }
  throw new Error('the change feed never listened');
}

describe.skipIf(postgres !== undefined)(postgres === undefined ? 'the change feed on PostgreSQL' : `the change feed (skipped: ${postgres})`, () => {
  let schema: TestSchema;
  /** This instance, whose remembered reads are checked; `other` is a second instance on the schema. */
  let here: Database_;
  let other: Database_;
  /** A plain client writing SQL, as a tool other than idp would. */
  let tool: pg.Client;
  /** What arrived on the change feed's channel, as `table` for this schema's tables. */
  let heard: string[] = [];
  let listener: pg.Client;

  const sql = async (text: string, params: unknown[] = []) => (await tool.query(text, params)).rowCount;
  const fresh = async () => await freshener(here.db)!();
  /** What the channel told of from now until a marker statement's notification arrives. */
  async function notified(write: () => Promise<unknown>): Promise<string[]> {
    heard = [];
    await write();
    // Notifications arrive in commit order: once the marker's is here, every earlier one is too.
    await sql('update organizations set modified = modified');
    for (let waited = 0; !heard.includes('organizations'); waited += 10) {
      if (waited > 5000) throw new Error(`no marker on the channel (heard ${heard.join(', ')})`);
      await sleep(10);
    }
    return heard.filter((table) => table !== 'organizations');
  }
  const person = (name: string, collection = 'users') => ({
    appUuid: APP.uuid,
    collection,
    type: collection === 'users' ? 'user' : collection,
    name,
    properties: {},
    now: 1,
  });

  beforeAll(async () => {
    schema = createTestSchema();
    here = await openDatabase({ url: schema.url, poolSize: 2 });
    other = await openDatabase({ url: schema.url, poolSize: 2 });
    tool = new pg.Client({ connectionString: schema.url });
    listener = new pg.Client({ connectionString: schema.url });
    await Promise.all([tool.connect(), listener.connect()]);
    listener.on('notification', (message) => {
      if (message.channel === CHANGE_CHANNEL && message.payload?.startsWith(`${schema.name}.`)) heard.push(message.payload.slice(schema.name.length + 1));
    });
    await listener.query(`listen ${CHANGE_CHANNEL}`);
    await sql(
      `insert into organizations (uuid, name, name_key, activated, disabled, properties, created, modified) values ($1, 'acme', 'acme', 1, 0, '{}', 1, 1)`,
      [ORG_UUID],
    );
    await other.db.insert(schemaOf(other.db).applications).values(APP);
    await listening(here.db);
    // What setting up notified has all arrived before the first test listens.
    await notified(async () => undefined);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([tool?.end(), listener?.end(), here?.close(), other?.close()].map((done) => done?.catch(() => undefined)));
    await schema?.drop();
  });

  it('a new entity notifies no one, in any collection, whoever inserts it; a change, a removal, a cascade and a truncation do', async () => {
    // The first entity of a collection stores the collection too, which is remembered.
    expect(await notified(() => insertEntity(other.db, person('ann')))).toEqual(['collections']);
    expect(await notified(() => insertEntity(other.db, { ...person('amy'), collectionStored: true }))).toEqual([]);
    expect(await notified(() => insertEntity(other.db, person('sprocket', 'items')))).toEqual(['collections']);
    expect(await notified(() => insertEntity(other.db, { ...person('widget', 'items'), collectionStored: true }))).toEqual([]);
    const insert = `insert into entities (uuid, app_uuid, collection, type, name, name_key, properties, created, modified)
      values (gen_random_uuid()::text, $1, $2, $2, $3, $3, '{}', 1, 1)`;
    expect(await notified(() => sql(insert, [APP.uuid, 'items', 'gadget']))).toEqual([]);

    expect(await notified(() => sql(`update entities set properties = '{"colour":"red"}' where name_key = 'widget'`))).toEqual(['entities']);
    expect(await notified(() => sql(`delete from entities where name_key = 'gadget'`))).toEqual(['entities']);
    await sql(`insert into applications (uuid, org_uuid, name, name_key, properties, created, modified) values ($1, $2, 'annex', 'annex', '{}', 1, 1)`, [
      '01a30000-0000-7000-8000-000000000003',
      ORG_UUID,
    ]);
    await sql(insert, ['01a30000-0000-7000-8000-000000000003', 'users', 'zed']);
    expect(await notified(() => sql(`delete from applications where name_key = 'annex'`))).toEqual(expect.arrayContaining(['applications', 'entities']));
  });

  it('an entity found is remembered, and a change made by another instance or a tool is seen by the next read', async () => {
    const bob = await insertEntity(other.db, person('bob'));
    // What earlier tests changed has reached this instance: nothing in flight drops what it remembers.
    await fresh();
    const found = await findEntityByUuid(here.db, APP.uuid, bob.uuid);
    expect(found?.name).toBe('bob');
    // The same frozen row again: remembered, not read again.
    expect(await findEntityByUuid(here.db, APP.uuid, bob.uuid)).toBe(found);
    expect(await findEntityByName(here.db, APP.uuid, 'users', 'bob')).toBe(await findEntityByName(here.db, APP.uuid, 'users', 'BOB'));

    await updateEntityRow(other.db, found!, { disabled: true }, 'bob', 2);
    await fresh();
    expect((await findEntityByUuid(here.db, APP.uuid, bob.uuid))?.properties).toEqual({ disabled: true });

    // Moved to another collection by a tool: no longer a user by that name.
    await sql(`update entities set collection = 'former_users' where uuid = $1`, [bob.uuid]);
    await fresh();
    expect(await findEntityByName(here.db, APP.uuid, 'users', 'bob')).toBeUndefined();
    expect((await findEntityByName(here.db, APP.uuid, 'former_users', 'bob'))?.uuid).toBe(bob.uuid);

    await sql('delete from entities where uuid = $1', [bob.uuid]);
    await fresh();
    expect(await findEntityByUuid(here.db, APP.uuid, bob.uuid)).toBeUndefined();

    const cid = await insertEntity(other.db, person('cid'));
    expect((await findEntityByUuid(here.db, APP.uuid, cid.uuid))?.name).toBe('cid');
    await sql('truncate entities cascade');
    await fresh();
    expect(await findEntityByUuid(here.db, APP.uuid, cid.uuid)).toBeUndefined();
  });

  it('an entity found remembered is forgotten when its application is deleted (a cascade)', async () => {
    const { applications } = schemaOf(other.db);
    const annex = { ...APP, uuid: '01a30000-0000-7000-8000-000000000004', name: 'annex', nameKey: 'annex' };
    await other.db.insert(applications).values(annex);
    const dee = await insertEntity(other.db, { ...person('dee'), appUuid: annex.uuid });
    await fresh();
    const found = await findEntityByUuid(here.db, annex.uuid, dee.uuid);
    expect(await findEntityByUuid(here.db, annex.uuid, dee.uuid)).toBe(found);
    await sql('delete from applications where uuid = $1', [annex.uuid]);
    await fresh();
    expect(await findEntityByUuid(here.db, annex.uuid, dee.uuid)).toBeUndefined();
  });

  it('"not found" is not remembered: an entity created elsewhere is found by the next read', async () => {
    expect(await findEntityByName(here.db, APP.uuid, 'users', 'eve')).toBeUndefined();
    const eve = await insertEntity(other.db, person('eve'));
    expect((await findEntityByName(here.db, APP.uuid, 'users', 'eve'))?.uuid).toBe(eve.uuid);

    const uuid = '01a30000-0000-7000-8000-0000000000f0';
    expect(await findEntityByUuid(here.db, APP.uuid, uuid)).toBeUndefined();
    await sql(
      `insert into entities (uuid, app_uuid, collection, type, name, name_key, properties, created, modified) values ($1, $2, 'items', 'item', null, null, '{}', 1, 1)`,
      [uuid, APP.uuid],
    );
    expect((await findEntityByUuid(here.db, APP.uuid, uuid))?.collection).toBe('items');
  });

  it('any other read of entities goes to the database each time; one of a table whose every change is heard is remembered', async () => {
    const { entities, organizations } = schemaOf(here.db);
    let loads = 0;
    const count = () =>
      remembered(here.db, 'test:count', [entities], async () => (loads++, (await tool.query('select count(*)::int as n from entities')).rows[0].n as number));
    const before = await count();
    await sql(
      `insert into entities (uuid, app_uuid, collection, type, properties, created, modified) values (gen_random_uuid()::text, $1, 'items', 'item', '{}', 1, 1)`,
      [APP.uuid],
    );
    expect(await count()).toBe(before + 1);
    expect(loads).toBe(2);

    let organizationLoads = 0;
    const names = () => remembered(here.db, 'test:orgs', [organizations], async () => (organizationLoads++, ['acme']));
    await names();
    await names();
    expect(organizationLoads).toBe(1);
  });
});
