/**
 * Connections in both of Usergrid's path forms (docs/api.md#connections): the short form
 * `…/{collection}/{entity}/{relation}[/{type}]/{target}` and the long form
 * `…/{collection}/{entity}/connections/{relation}[/{type}]/{target}` that the Usergrid 2.x SDKs
 * read, the reverse `…/connecting/{relation}`, and the metadata that links to them.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectRefusal, expectRefusedUnchanged } from '../helpers.js';
import { APP, appUser, createDataTest, type DataTest } from './setup.js';

let d: DataTest;
let uuids: Record<string, string>;
beforeEach(async () => {
  d = await createDataTest();
  uuids = {};
  for (const [collection, name] of [
    ['dogs', 'rex'],
    ['cats', 'tom'],
    ['cats', 'felix'],
    ['mice', 'jerry'],
  ]) {
    uuids[name] = (await req('POST', `/${collection}`, { name })).body.entities[0].uuid;
  }
});
afterEach(() => d.t.close());

const req = (method: string, path: string, json?: unknown, token = d.admin) => d.t.request(method, `${APP}${path}`, { json, token });
const names = async (path: string) => {
  const res = await req('GET', path);
  expect(res.status, `${path}: ${res.text}`).toBe(200);
  return res.body.entities.map((e: { name: string }) => e.name).sort();
};
const SHORT = '';
const LONG = '/connections';

describe.each([
  ['short', SHORT],
  ['long', LONG],
])('the %s form', (_form, infix) => {
  const chases = (rest = '') => `/dogs/rex${infix}/chases${rest}`;

  it('connects by type and name, lists, reads one, and disconnects', async () => {
    const post = await req('POST', chases('/cats/tom'));
    expect(post.status, post.text).toBe(200);
    expect(post.body.entities.map((e: { uuid: string }) => e.uuid)).toEqual([uuids.tom]);
    expect(await names(chases())).toEqual(['tom']);
    expect((await req('GET', chases('/cats/tom'))).body.entities[0].uuid).toBe(uuids.tom);
    expectRefusal(await req('GET', chases('/cats/felix')), 404, 'entity_not_found');
    expect((await req('DELETE', chases('/cats/tom'))).status).toBe(200);
    expect(await names(chases())).toEqual([]);
    expectRefusal(await req('DELETE', chases('/cats/tom')), 404, 'entity_not_found');
  });

  it('connects, reads and disconnects a target given by uuid alone', async () => {
    expect((await req('POST', chases(`/${uuids.jerry}`))).status).toBe(200);
    expect((await req('GET', chases(`/${uuids.jerry}`))).body.entities[0].name).toBe('jerry');
    expect(await names(chases())).toEqual(['jerry']);
    expect((await req('DELETE', chases(`/${uuids.jerry}`))).status).toBe(200);
    expectRefusal(await req('GET', chases(`/${uuids.jerry}`)), 404, 'entity_not_found');
  });

  it('lists the connected entities of one type when the segment after the relation names a collection', async () => {
    for (const target of ['/cats/tom', '/cats/felix', '/mice/jerry']) expect((await req('POST', chases(target))).status).toBe(200);
    expect(await names(chases())).toEqual(['felix', 'jerry', 'tom']);
    expect(await names(chases('/cats'))).toEqual(['felix', 'tom']);
    expect(await names(chases('/cat'))).toEqual(['felix', 'tom']);
    expect(await names(chases('/mice'))).toEqual(['jerry']);
    const page = await req('GET', `${chases('/cats')}?limit=1&ql=${encodeURIComponent('order by name')}`);
    expect(page.body.entities.map((e: { name: string }) => e.name)).toEqual(['felix']);
    expect(page.body).toHaveProperty('cursor');
  });

  it('refuses a target that does not exist and a connection-less POST, storing nothing', async () => {
    await expectRefusedUnchanged(d.t, () => req('POST', chases('/cats/garfield')), 404, 'entity_not_found');
    await expectRefusedUnchanged(d.t, () => req('POST', chases('/0190f4c2-0000-7000-8000-00000000beef')), 404, 'entity_not_found');
    await expectRefusedUnchanged(d.t, () => req('POST', chases('/nothings/tom')), 404, 'entity_not_found');
    await expectRefusedUnchanged(d.t, () => req('PUT', chases('/cats/tom')), 405, 'method_not_allowed');
  });

  it('is the same connection as the other form makes', async () => {
    const other = infix === LONG ? SHORT : LONG;
    expect((await req('POST', chases('/cats/tom'))).status).toBe(200);
    expect(await names(`/dogs/rex${other}/chases`)).toEqual(['tom']);
    expect((await req('DELETE', `/dogs/rex${other}/chases/${uuids.tom}`)).status).toBe(200);
    expect(await names(chases())).toEqual([]);
  });

  it('is held to the path permissions of an app user', async () => {
    const ann = await appUser(d, 'ann');
    expect((await req('POST', `/users/ann${infix}/likes/${uuids.rex}`, undefined, ann.token)).status).toBe(200);
    expect((await req('GET', `/users/me${infix}/likes`, undefined, ann.token)).body.entities[0].uuid).toBe(uuids.rex);
    await expectRefusedUnchanged(d.t, () => req('POST', chases(`/${uuids.tom}`), undefined, ann.token), 403, 'forbidden');
  });
});

describe('the long form only', () => {
  it('refuses POST and DELETE on …/connections/{relation} without a target, creating nothing', async () => {
    await expectRefusedUnchanged(d.t, () => req('POST', '/dogs/rex/connections/chases', { name: 'garfield' }), 405, 'method_not_allowed');
    await expectRefusedUnchanged(d.t, () => req('DELETE', '/dogs/rex/connections/chases'), 405, 'method_not_allowed');
  });

  it('answers with the path of the relation in its long form', async () => {
    await req('POST', `/dogs/rex/chases/${uuids.tom}`);
    expect((await req('GET', '/dogs/rex/connections/chases')).body.path).toBe('/dogs/rex/connections/chases');
  });
});

describe('…/connecting/{relation}', () => {
  beforeEach(async () => {
    await req('POST', `/dogs/rex/chases/${uuids.tom}`);
    await req('POST', `/mice/jerry/chases/${uuids.tom}`);
    await req('POST', `/cats/tom/chases/${uuids.jerry}`);
  });

  it('lists the entities connecting to this one by that relation, of any type or of one', async () => {
    expect(await names('/cats/tom/connecting/chases')).toEqual(['jerry', 'rex']);
    expect(await names('/cats/tom/connecting/chases/dogs')).toEqual(['rex']);
    expect(await names('/mice/jerry/connecting/chases')).toEqual(['tom']);
    expect(await names('/dogs/rex/connecting/chases')).toEqual([]);
    expect((await req('GET', `/cats/tom/connecting/chases/${uuids.rex}`)).body.entities[0].name).toBe('rex');
    expect((await req('GET', '/cats/tom/connecting/chases/mice/jerry')).body.entities[0].name).toBe('jerry');
    expectRefusal(await req('GET', `/cats/tom/connecting/chases/${uuids.felix}`), 404, 'entity_not_found');
  });

  it('only reads', async () => {
    for (const method of ['POST', 'PUT', 'DELETE'])
      for (const path of ['/cats/tom/connecting/chases', `/cats/tom/connecting/chases/${uuids.rex}`, '/cats/tom/connecting/chases/dogs/rex'])
        await expectRefusedUnchanged(d.t, () => req(method, path, { name: 'x' }), 405, 'method_not_allowed');
  });
});

describe('metadata', () => {
  it('links connections at …/{relation} and inbound ones at …/connecting/{relation}, as Usergrid writes them', async () => {
    await req('POST', `/dogs/rex/chases/${uuids.tom}`);
    await req('POST', `/dogs/rex/connections/likes/${uuids.jerry}`);
    const rex = (await req('GET', '/dogs/rex')).body.entities[0];
    expect(rex.metadata.connections).toEqual({ chases: `/dogs/${uuids.rex}/chases`, likes: `/dogs/${uuids.rex}/likes` });
    expect(rex.metadata).not.toHaveProperty('connecting');
    const tom = (await req('GET', '/cats/tom')).body.entities[0];
    expect(tom.metadata.connecting).toEqual({ chases: `/cats/${uuids.tom}/connecting/chases` });
    expect(tom.metadata).not.toHaveProperty('connections');
    // Each link reads what it names.
    expect(await names(`/cats/${uuids.tom}/connecting/chases`)).toEqual(['rex']);
    expect(await names(rex.metadata.connections.likes)).toEqual(['jerry']);
  });
});
