import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dialectOf } from '../../src/db/open.js';
import { expectRefusal, expectRefusedUnchanged } from '../helpers.js';
import { APP, createDataTest, type DataTest } from './setup.js';

let d: DataTest;
beforeEach(async () => {
  d = await createDataTest();
});
afterEach(() => d.t.close());

const req = (method: string, path: string, json?: unknown) => d.t.request(method, `${APP}${path}`, { json, token: d.admin });

describe('entities and collections', () => {
  it('creates the plural collection from a singular or plural type and reads entities by name and uuid', async () => {
    const one = await req('POST', '/dog', { name: 'Rex', age: 3 });
    expect(one.status).toBe(200);
    const rex = one.body.entities[0];
    expect(rex).toMatchObject({ type: 'dog', name: 'Rex', age: 3, metadata: { path: `/dogs/${rex.uuid}` } });
    expect(one.body).toMatchObject({ action: 'post', organization: 'acme', applicationName: 'sandbox' });
    const two = await req('POST', '/dogs', [{ name: 'fido' }, { name: 'spot' }]);
    expect(two.body.entities.map((e: { type: string }) => e.type)).toEqual(['dog', 'dog']);
    for (const id of ['rex', 'REX', rex.uuid]) {
      const got = await req('GET', `/dogs/${id}`);
      expect(got.status).toBe(200);
      expect(got.body.entities[0].uuid).toBe(rex.uuid);
    }
    const list = await req('GET', '/dogs');
    expect(list.body.count).toBe(3);
    expect(list.body.entities.map((e: { name: string }) => e.name)).toEqual(['spot', 'fido', 'Rex']);
    const root = await req('GET', '');
    expect(root.body.entities[0].metadata.collections.dogs).toMatchObject({ count: 3, type: 'dog' });
  });

  it('PUT merges properties and never overwrites uuid, type, created or metadata', async () => {
    const rex = (await req('POST', '/dogs', { name: 'rex', color: 'brown', size: 'big' })).body.entities[0];
    const put = await req('PUT', '/dogs/rex', { color: 'black', size: null, uuid: 'x', type: 'cat', created: 1, metadata: { path: '/x' } });
    expect(put.status).toBe(200);
    const got = (await req('GET', `/dogs/${rex.uuid}`)).body.entities[0];
    expect(got).toMatchObject({ uuid: rex.uuid, type: 'dog', created: rex.created, color: 'black', name: 'rex' });
    expect(got).not.toHaveProperty('size');
    expect(got.metadata.path).toBe(`/dogs/${rex.uuid}`);
  });

  it("answers with Usergrid's path and uri: the collection inside the application, whatever spelling the request used", async () => {
    const created = await req('POST', '/dog', { name: 'rex' });
    expect(created.body).toMatchObject({ path: '/dogs', uri: 'http://idp.test/acme/sandbox/dogs' });
    const uuid = created.body.entities[0].uuid;
    expect((await req('PUT', `/dog/${uuid}`, { age: 4 })).body.path).toBe('/dogs');
    expect((await req('GET', '/dogs?ql=age%20%3E%201')).body.path).toBe('/dogs');
    expect((await req('DELETE', `/dogs/${uuid}`)).body.path).toBe('/dogs');
    expect((await req('GET', '')).body).toMatchObject({ path: '/', uri: 'http://idp.test/acme/sandbox' });
    await req('POST', '/users', { username: 'fred' });
    expect((await req('POST', '/users/fred/likes', { name: 'pebbles' })).body.path).toBe('/users/fred/likes');
    expect((await req('GET', '/likes/pebbles/connecting/likes')).body.path).toBe('/likes/pebbles/connecting/likes');
  });

  it('treats a path with a trailing slash as the path without it', async () => {
    await req('POST', '/dogs', { name: 'rex' });
    await req('POST', '/cats', { name: 'tom' });
    expect((await req('POST', '/dogs/rex/chases/cats/tom/')).status).toBe(200);
    const chased = await req('GET', '/dogs/rex/chases/');
    expect(chased.status).toBe(200);
    expect(chased.body.entities.map((e: { name: string }) => e.name)).toEqual(['tom']);
    expect((await req('GET', '/dogs/')).body.count).toBe(1);
  });

  it('refuses a duplicate name in a collection and stores nothing of the array', async () => {
    await req('POST', '/dogs', { name: 'rex' });
    const refused = await expectRefusedUnchanged(d.t, () => req('POST', '/dogs', [{ name: 'a' }, { name: 'REX' }]), 400, 'duplicate_unique_property_exists');
    expect(refused.body.error_description).toBe("dogs already has an entity with name 'REX'");
    expectRefusal(await req('GET', '/dogs/a'), 404, 'entity_not_found');
  });

  it('stores an array of more entities than one statement inserts, in its order, each found by a query through the property index', async () => {
    const many = Array.from({ length: 2500 }, (_, i) => ({ n: i, ...(i % 1000 === 999 && { name: `edge${i}` }) }));
    const created = await req('POST', '/dogs', many);
    expect(created.status, created.text).toBe(200);
    expect(created.body.entities.map((e: { n: number }) => e.n)).toEqual(many.map((item) => item.n));
    for (const n of [0, 999, 1000, 2499]) {
      const found = await req('GET', `/dogs?ql=${encodeURIComponent(`n = ${n}`)}&explain=true`);
      // PostgreSQL's planner may read a small table whole instead (explain.test.ts).
      if (dialectOf(d.t.deps.db) === 'sqlite') expect(found.body.explain.index).toBe('property n');
      expect(found.body.entities.map((e: { uuid: string; name?: string }) => [e.uuid, e.name])).toEqual([[created.body.entities[n].uuid, many[n].name]]);
    }
  });

  it('answers creates sent at once each for itself: a taken name refuses only its own, and every other is stored and found', async () => {
    await req('POST', '/dogs', { name: 'rex' });
    // On PostgreSQL creates that start together share one INSERT (docs/design.md#create-batching-on-postgresql).
    const names = Array.from({ length: 30 }, (_, i) => (i === 7 ? 'REX' : i === 11 || i === 23 ? 'twin' : `dog${i}`));
    const answers = await Promise.all(names.map((name, i) => req('POST', '/dogs', { name, n: i })));
    const refused = answers.filter((answer) => answer.status !== 200);
    expect(refused.map((answer) => answer.body.error_description).sort()).toEqual([
      "dogs already has an entity with name 'REX'",
      "dogs already has an entity with name 'twin'",
    ]);
    for (const answer of refused) expectRefusal(answer, 400, 'duplicate_unique_property_exists');
    expect(answers[7]!.status).toBe(400);
    const twin = answers[11]!.status === 200 ? 11 : 23;
    expect(answers[twin === 11 ? 23 : 11]!.status).toBe(400);
    expect((await req('GET', '/dogs?limit=100')).body.count).toBe(29);
    for (const [i, answer] of answers.entries()) {
      if (answer.status !== 200) continue;
      const found = await req('GET', `/dogs?ql=${encodeURIComponent(`n = ${i}`)}`);
      expect(found.body.entities.map((e: { uuid: string; name: string }) => [e.uuid, e.name])).toEqual([[answer.body.entities[0].uuid, names[i]]]);
    }
    expect((await req('GET', '/dogs/twin')).body.entities[0].n).toBe(twin);
    expect((await req('GET', '/dogs/rex')).body.entities[0]).not.toHaveProperty('n');
  });

  it('names the first entity of an array whose name is taken, by a stored entity or by one before it in the array', async () => {
    await req('POST', '/dogs', { name: 'rex' });
    const items = (names: string[]) => names.map((name, i) => ({ name, age: i }));
    const stored = await expectRefusedUnchanged(d.t, () => req('POST', '/dogs', items(['a', 'b', 'Rex', 'c'])), 400, 'duplicate_unique_property_exists');
    expect(stored.body.error_description).toBe("dogs already has an entity with name 'Rex'");
    const twice = await expectRefusedUnchanged(d.t, () => req('POST', '/dogs', items(['a', 'b', 'A', 'rex'])), 400, 'duplicate_unique_property_exists');
    expect(twice.body.error_description).toBe("dogs already has an entity with name 'A'");
    // The first refusal in the array's order is the answer: the taken name before a malformed one, and the other way round.
    const first = await expectRefusedUnchanged(
      d.t,
      () => req('POST', '/dogs', [{ name: 'z' }, { name: 'rex' }, { name: 7 }]),
      400,
      'duplicate_unique_property_exists',
    );
    expect(first.body.error_description).toBe("dogs already has an entity with name 'rex'");
    await expectRefusedUnchanged(d.t, () => req('POST', '/dogs', [{ name: 'z' }, { name: 7 }, { name: 'rex' }]), 400, 'illegal_argument');
  });

  it('refuses renaming an entity to a name its collection already has, and keeps the old name', async () => {
    await req('POST', '/dogs', { name: 'rex' });
    await req('POST', '/dogs', { name: 'max', age: 3 });
    await expectRefusedUnchanged(d.t, () => req('PUT', '/dogs/max', { name: 'REX', age: 4 }), 400, 'duplicate_unique_property_exists');
    const max = await req('GET', '/dogs/max');
    expect(max.status).toBe(200);
    expect(max.body.entities[0].age).toBe(3);
    // Its own name, in another case, is no clash.
    expect((await req('PUT', '/dogs/max', { name: 'MAX' })).status).toBe(200);
  });

  it("shows a connection in both ends' metadata on the next GET after it is made or removed", async () => {
    await req('POST', '/dogs', { name: 'rex' });
    await req('POST', '/cats', { name: 'tom' });
    const metadata = async (path: string) => (await req('GET', path)).body.entities[0].metadata;
    // Read first, so that what is shown afterwards cannot be a first read.
    expect(await metadata('/dogs/rex')).not.toHaveProperty('connections');
    expect(await metadata('/cats/tom')).not.toHaveProperty('connecting');
    expect((await req('POST', '/dogs/rex/chases/cats/tom')).status).toBe(200);
    expect((await metadata('/dogs/rex')).connections).toEqual({ chases: expect.stringContaining('/chases') });
    expect((await metadata('/cats/tom')).connecting).toEqual({ chases: expect.stringContaining('/connecting/chases') });
    // Every relation name of an entity, however many connections each has.
    for (const name of ['jerry', 'felix', 'garfield']) {
      await req('POST', '/cats', { name });
      expect((await req('POST', `/dogs/rex/likes/cats/${name}`)).status).toBe(200);
    }
    await req('POST', '/dogs', { name: 'fido' });
    expect((await req('POST', '/dogs/rex/avoids/dogs/fido')).status).toBe(200);
    expect(Object.keys((await metadata('/dogs/rex')).connections)).toEqual(['avoids', 'chases', 'likes']);
    expect((await req('DELETE', '/dogs/rex/chases/cats/tom')).status).toBe(200);
    expect(Object.keys((await metadata('/dogs/rex')).connections)).toEqual(['avoids', 'likes']);
    expect(await metadata('/cats/tom')).not.toHaveProperty('connecting');
    for (const name of ['jerry', 'felix', 'garfield']) await req('DELETE', `/dogs/rex/likes/cats/${name}`);
    await req('DELETE', '/dogs/rex/avoids/dogs/fido');
    expect(await metadata('/dogs/rex')).not.toHaveProperty('connections');
  });

  it('deletes an entity with its connections', async () => {
    await req('POST', '/dogs', { name: 'rex' });
    await req('POST', '/cats', { name: 'tom' });
    expect((await req('POST', '/dogs/rex/chases/cats/tom')).status).toBe(200);
    expect((await req('GET', '/cats/tom')).body.entities[0].metadata.connecting).toEqual({ chases: expect.stringContaining('/connecting/chases') });
    expect((await req('DELETE', '/dogs/rex')).status).toBe(200);
    expectRefusal(await req('GET', '/dogs/rex'), 404, 'entity_not_found');
    expect((await req('GET', '/cats/tom')).body.entities[0].metadata).not.toHaveProperty('connecting');
  });
});
