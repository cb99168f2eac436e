import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { selectRows } from '../database.js';
import { adminToken, createTestApp, expectRefusedUnchanged, ORG, signUp, type TestApp } from '../helpers.js';

let t: TestApp;
beforeEach(async () => {
  t = await createTestApp();
});
afterEach(() => t.close());

describe('organizations', () => {
  it('creates an organization with its first admin from a form, as Usergrid clients send it', async () => {
    const res = await t.request('POST', '/management/orgs', { form: ORG });
    expect(res.status).toBe(200);
    expect(res.body.action).toBe('new organization');
    const [org] = res.body.entities;
    expect(org).toMatchObject({
      type: 'organization',
      orgname: 'acme',
      username: 'alice',
      name: 'Alice Admin',
      email: 'alice@example.com',
      displayEmail: 'Alice Admin <alice@example.com>',
      htmldisplayEmail: 'Alice Admin &lt;alice@example.com&gt;',
      activated: true,
      disabled: false,
      adminUser: true,
    });
    expect(org.orguuId).toBe(org.uuid);
    expect(org.orgUuid).toBe(org.uuid);
    expect(res.body.organization).toBe('acme');
    expect(typeof res.body.timestamp).toBe('number');
    expect(typeof res.body.duration).toBe('number');
    expect(res.text).not.toContain('correct-horse');
    expect(res.text).not.toContain('scrypt');
  });

  it('creates an organization from JSON and reads it back by name and by uuid', async () => {
    const created = await t.request('POST', '/management/orgs', { json: ORG });
    const uuid = created.body.entities[0].uuid;
    const token = await adminToken(t, ORG.username, ORG.password);
    for (const id of ['acme', 'ACME', uuid]) {
      const res = await t.request('GET', `/management/orgs/${id}`, { token });
      expect(res.status).toBe(200);
      expect(res.body.entities[0]).toMatchObject({ uuid, orgname: 'acme', username: 'alice' });
    }
  });

  it('lists applications as AppData and reports them in applicationdata', async () => {
    const token = await signUp(t);
    const app = await t.request('POST', '/management/orgs/acme/apps', { json: { name: 'sandbox' }, token });
    expect(app.status).toBe(200);
    const appUuid = app.body.entities[0].uuid;
    expect(app.body.data).toEqual({ 'acme/sandbox': appUuid });
    const list = await t.request('GET', '/management/orgs/acme/apps', { token });
    expect(list.body.data).toEqual({ 'acme/sandbox': appUuid });
    expect(list.body.count).toBe(1);
    expect(list.body.entities[0]['acme/sandbox']).toBe(appUuid);
    const org = await t.request('GET', '/management/orgs/acme', { token });
    expect(org.body.entities[0].applicationdata).toEqual({ 'acme/sandbox': appUuid });
  });

  it('deletes an application by name or uuid', async () => {
    const token = await signUp(t);
    const a = await t.request('POST', '/management/orgs/acme/apps', { json: { name: 'one' }, token });
    await t.request('POST', '/management/orgs/acme/apps', { json: { name: 'two' }, token });
    expect((await t.request('DELETE', '/management/orgs/acme/apps/one', { token })).status).toBe(200);
    await expectRefusedUnchanged(
      t,
      () => t.request('DELETE', `/management/orgs/acme/apps/${a.body.entities[0].uuid}`, { token }),
      404,
      'application_not_found',
    );
    expect((await t.request('DELETE', '/management/orgs/acme/apps/two', { token })).body.data).toHaveProperty(['acme/two']);
    expect((await t.request('GET', '/management/orgs/acme/apps', { token })).body.count).toBe(0);
  });

  it('creates the default roles of a new application', async () => {
    const token = await signUp(t);
    const app = await t.request('POST', '/management/orgs/acme/apps', { json: { name: 'sandbox' }, token });
    // Reads the stored roles directly: the data API that lists them arrives separately.
    const rows = await selectRows<{ name: string; properties: string }>(
      t.deps.db,
      sql`select name, properties from entities where app_uuid = ${app.body.entities[0].uuid} and collection = 'roles' order by name`,
    );
    expect(rows.map((r) => r.name)).toEqual(['admin', 'default', 'guest']);
    expect(JSON.parse(rows[2].properties).permissions).toEqual(['post:/users', 'post:/devices', 'put:/devices/*']);
  });
});

describe('credentials', () => {
  const owners = [
    { path: '/management/orgs/acme/credentials', type: 'organization', name: 'acme' },
    { path: '/management/orgs/acme/apps/sandbox/credentials', type: 'application', name: 'sandbox' },
  ];
  for (const { path } of owners) {
    it(`GET returns a stable pair and POST replaces the secret: ${path}`, async () => {
      const token = await signUp(t);
      await t.request('POST', '/management/orgs/acme/apps', { json: { name: 'sandbox' }, token });
      const first = await t.request('GET', path, { token });
      expect(first.status).toBe(200);
      // A secret no cache may keep.
      expect(first.headers.get('cache-control')).toBe('no-store');
      const { client_id, client_secret } = first.body.credentials;
      expect(first.body.entities[0]).toEqual({ client_Id: client_id, client_id, client_secret });
      expect((await t.request('GET', path, { token })).body.credentials).toEqual({ client_id, client_secret });
      const regenerated = await t.request('POST', path, { token });
      expect(regenerated.headers.get('cache-control')).toBe('no-store');
      expect(regenerated.body.credentials.client_id).toBe(client_id);
      expect(regenerated.body.credentials.client_secret).not.toBe(client_secret);
      expect((await t.request('GET', path, { token })).body.credentials.client_secret).toBe(regenerated.body.credentials.client_secret);
    });
  }

  for (const { path, type, name } of owners) {
    it(`regenerating is in the organization's feed, naming the ${type} and who did it`, async () => {
      const token = await signUp(t);
      const app = (await t.request('POST', '/management/orgs/acme/apps', { json: { name: 'sandbox' }, token })).body.entities[0];
      const org = (await t.request('GET', '/management/orgs/acme', { token })).body.entities[0];
      const alice = (await t.request('GET', '/management/users/alice', { token })).body.entities[0];
      await t.request('POST', path, { token });
      const [newest] = (await t.request('GET', '/management/orgs/acme/feed', { token })).body.entities;
      expect(newest).toMatchObject({
        verb: 'regenerate',
        category: 'credentials',
        title: `client credentials of ${type} ${name} regenerated`,
        actor: { objectUuid: alice.uuid },
        object: { displayname: name, objecttype: type, objectUuid: type === 'organization' ? org.uuid : app.uuid },
      });
    });
  }
});

describe('feeds', () => {
  it('records what happened in the organization, newest first', async () => {
    const token = await signUp(t);
    await t.request('POST', '/management/orgs/acme/apps', { json: { name: 'sandbox' }, token });
    await t.request('POST', '/management/orgs/acme/apps/sandbox/credentials', { token });
    const feed = await t.request('GET', '/management/orgs/acme/feed', { token });
    expect(feed.status).toBe(200);
    expect(feed.body.entities.map((a: { category: string; verb: string }) => `${a.category}:${a.verb}`)).toEqual([
      'credentials:regenerate',
      'application:create',
      'admin:add',
      'organization:create',
    ]);
    const userFeed = await t.request('GET', '/management/users/alice/feed', { token });
    expect(userFeed.body.count).toBe(4);
  });

  it("reads an organization's feed by pages and narrows it by verb, category, actor and time", async () => {
    const token = await signUp(t);
    for (const name of ['one', 'two', 'three']) await t.request('POST', '/management/orgs/acme/apps', { json: { name }, token });
    await t.request('POST', '/management/orgs/acme/credentials', { token });
    const feed = async (query: string) => (await t.request('GET', `/management/orgs/acme/feed?${query}`, { token })).body;
    const everything = (await feed('limit=100')).entities;
    expect(everything).toHaveLength(6);
    expect((await feed('limit=100')).cursor).toBeUndefined();

    // Pages of two, each after the previous page's cursor: every entry once, newest first.
    const paged: unknown[] = [];
    let cursor: string | undefined;
    do {
      const page = await feed(`limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.entities.length).toBeLessThanOrEqual(2);
      paged.push(...page.entities);
      cursor = page.cursor;
    } while (cursor !== undefined);
    expect(paged).toEqual(everything);

    const summary = (entities: { category: string; verb: string; title: string }[]) => entities.map((a) => `${a.category}:${a.verb}:${a.title}`);
    expect(summary((await feed('category=application')).entities)).toEqual(
      summary(everything.filter((a: { category: string }) => a.category === 'application')),
    );
    expect((await feed('category=application')).entities).toHaveLength(3);
    expect(summary((await feed('verb=regenerate')).entities)).toEqual(['credentials:regenerate:client credentials of organization acme regenerated']);
    const alice = (await t.request('GET', '/management/users/alice', { token })).body.entities[0];
    const byAlice = everything.filter((a: { actor: { objectUuid: string } | null }) => a.actor?.objectUuid === alice.uuid);
    expect(byAlice.length).toBeGreaterThan(3);
    for (const actor of ['alice', 'alice@example.com', alice.uuid]) expect((await feed(`actor=${encodeURIComponent(actor)}`)).entities).toEqual(byAlice);
    expect((await feed('actor=nobody')).entities).toEqual([]);
    const newest = everything[0];
    expect((await feed(`since=${newest.created}`)).entities.map((a: { uuid: string }) => a.uuid)).toContain(newest.uuid);
    expect((await feed(`since=${newest.created + 1}`)).entities).toEqual([]);
    expect(summary((await feed('category=application&limit=2')).entities)).toEqual(
      summary(everything.filter((a: { category: string }) => a.category === 'application').slice(0, 2)),
    );
  });
});
