/**
 * An entity read by name or uuid may come from the read cache (src/db/read-cache.ts). Whatever
 * changes — its properties, its relations, its row — it must read exactly as the same entity
 * viewed fresh, which is how a query's page shows it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectRefusal } from '../helpers.js';
import { APP, createDataTest, type DataTest } from './setup.js';

let d: DataTest;
beforeEach(async () => {
  d = await createDataTest();
});
afterEach(() => d.t.close());

const req = (method: string, path: string, json?: unknown) => d.t.request(method, `${APP}${path}`, { json, token: d.admin });

/** The entity as GET by name and by uuid answer it (each asked twice), checked against the query's view. */
async function readsAlike(collection: string, name: string) {
  const queried = await req('GET', `/${collection}?ql=${encodeURIComponent(`select * where name = '${name}' or username = '${name}'`)}`);
  expect(queried.status).toBe(200);
  const [fresh] = queried.body.entities;
  for (const path of [`/${collection}/${name}`, `/${collection}/${name}`, `/${collection}/${fresh.uuid}`, `/${collection}/${fresh.uuid}`]) {
    const got = await req('GET', path);
    expect(got.status).toBe(200);
    expect(got.body.entities).toEqual([fresh]);
  }
  return fresh;
}

describe('an entity answered from its kept text', () => {
  it('reads as the query shows it, through changes of its properties and relations', async () => {
    await req('POST', '/pets', { name: 'rex', age: 3, nested: { level: 1 } });
    await req('POST', '/pets', { name: 'tom' });
    expect(await readsAlike('pets', 'rex')).toMatchObject({ name: 'rex', age: 3, nested: { level: 1 } });

    await req('PUT', '/pets/rex', { age: 4, color: 'brown' });
    expect(await readsAlike('pets', 'rex')).toMatchObject({ age: 4, color: 'brown' });

    expect((await req('POST', '/pets/rex/likes/pets/tom')).status).toBe(200);
    expect((await readsAlike('pets', 'rex')).metadata.connections).toEqual({ likes: expect.stringContaining('/likes') });
    expect((await readsAlike('pets', 'tom')).metadata.connecting).toEqual({ likes: expect.stringContaining('/connecting/likes') });

    expect((await req('DELETE', '/pets/rex/likes/pets/tom')).status).toBe(200);
    expect(await readsAlike('pets', 'rex')).not.toHaveProperty('metadata.connections');
    expect(await readsAlike('pets', 'tom')).not.toHaveProperty('metadata.connecting');

    expect((await req('DELETE', '/pets/rex')).status).toBe(200);
    expectRefusal(await req('GET', '/pets/rex'), 404, 'entity_not_found');
  });

  it('shows a user with the fields of the User model', async () => {
    await req('POST', '/users', { username: 'fred', email: 'fred@example.com', name: 'Fred' });
    const fred = await readsAlike('users', 'fred');
    expect(fred).toMatchObject({ username: 'fred', organization: 'acme', displayEmail: 'Fred <fred@example.com>' });
    await req('PUT', '/users/fred', { name: 'Frederick' });
    expect(await readsAlike('users', 'fred')).toMatchObject({ displayEmail: 'Frederick <fred@example.com>' });
  });

  it('sits in a well-formed envelope whatever the query parameters echo', async () => {
    await req('POST', '/pets', { name: 'rex' });
    const odd = '"entities":[]';
    const got = await d.t.request('GET', `${APP}/pets/rex?entities=x&note=${encodeURIComponent(odd)}&${encodeURIComponent(odd)}=1`, { token: d.admin });
    expect(got.status).toBe(200);
    expect(got.headers.get('content-type')).toBe('application/json');
    expect(got.text).toBe(JSON.stringify(got.body));
    expect(got.body.params).toEqual({ entities: ['x'], note: [odd], [odd]: ['1'] });
    expect(got.body.entities).toHaveLength(1);
    expect(got.body.entities[0].name).toBe('rex');
    expect(Object.keys(got.body)).toEqual([
      'action',
      'application',
      'applicationName',
      'params',
      'path',
      'uri',
      'entities',
      'timestamp',
      'duration',
      'organization',
    ]);
  });
});
