/**
 * Limits on what a JSON body may hold (docs/api.md#limits): nesting, keys per object, key
 * length. A guest must not be able to store a document the database's JSON functions cannot
 * read (SQLite's stop at 1,000 levels), which would make every query over its collection fail,
 * and no depth may overflow the server's stack.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, resolveConfig } from '../../src/config.js';
import { expectRefusal, expectRefusedUnchanged, ORG, readResponse } from '../helpers.js';
import { runIdp, startIdp } from '../spawn.js';
import { entityBodies } from '../../src/data/entities.js';
import { APP, createDataTest, type DataTest } from './setup.js';

/** A body `{…fields, "x": [[…1…]]}` whose deepest value sits `depth` levels down (the outer object is level 1). */
function nestedBody(depth: number, fields: Record<string, string> = { name: 'deep' }): string {
  const arrays = depth - 1;
  return `${JSON.stringify(fields).slice(0, -1)},"x":${'['.repeat(arrays)}1${']'.repeat(arrays)}}`;
}

let d: DataTest;
beforeAll(async () => {
  d = await createDataTest();
  const fred = await d.t.request('POST', `${APP}/users`, { json: { username: 'fred' } });
  expect(fred.status, fred.text).toBe(200);
  const rex = await d.t.request('POST', `${APP}/dogs`, { json: { name: 'rex' }, token: d.admin });
  expect(rex.status, rex.text).toBe(200);
});
afterAll(() => d.t.close());

const send = (method: string, path: string, body: string, token?: string) => () =>
  d.t.request(method, path, { body, headers: { 'content-type': 'application/json' }, token });

describe('JSON nesting', () => {
  it('refuses a guest signing up with a property nested 1,001 levels, stores nothing, and queries on users still work', async () => {
    const res = await expectRefusedUnchanged(d.t, send('POST', `${APP}/users`, nestedBody(1001, { username: 'mallory' })), 400, 'json_too_deep');
    expect(res.body.error_description).toContain('32 levels');
    const found = await d.t.request('GET', `${APP}/users?ql=${encodeURIComponent("select * where username='fred'")}`, { token: d.admin });
    expect(found.status, found.text).toBe(200);
    expect(found.body.entities.map((user: { username: string }) => user.username)).toEqual(['fred']);
  });

  it('refuses a guest registering a device nested 1,001 levels', async () => {
    await expectRefusedUnchanged(d.t, send('POST', `${APP}/devices`, nestedBody(1001)), 400, 'json_too_deep');
  });

  it.each([
    ['POST', '/dogs'],
    ['PUT', `/dogs?ql=${encodeURIComponent("select * where name='rex'")}`],
    ['PUT', '/dogs/rex'],
    ['POST', '/dogs/rex/likes'],
    ['POST', '/devices'],
    ['POST', '/notifiers'],
    ['POST', '/users'],
  ])('answers 10,000 levels on %s %s with 400 json_too_deep, not a 500', async (method, path) => {
    const fields: Record<string, string> = path === '/users' ? { username: 'deep' } : { name: 'deep' };
    await expectRefusedUnchanged(d.t, send(method, `${APP}${path}`, nestedBody(10_000, fields), d.admin), 400, 'json_too_deep');
  });

  it('refuses 10,000 levels on the management API too, before anything else reads the body', async () => {
    await expectRefusedUnchanged(d.t, send('POST', '/management/orgs', nestedBody(10_000)), 400, 'json_too_deep');
  });

  it('takes a body exactly 32 levels deep and refuses one level more', async () => {
    const at = await send('POST', `${APP}/dogs`, nestedBody(32, { name: 'deep32' }), d.admin)();
    expect(at.status, at.text).toBe(200);
    await expectRefusedUnchanged(d.t, send('POST', `${APP}/dogs`, nestedBody(33, { name: 'deep33' }), d.admin), 400, 'json_too_deep');
  });
});

describe('JSON keys', () => {
  it('refuses an object with more than 1,000 keys with 413, naming the limit', async () => {
    const wide = JSON.stringify(Object.fromEntries([['name', 'wide'], ...Array.from({ length: 1000 }, (_, i) => [`k${i}`, i])]));
    const res = await expectRefusedUnchanged(d.t, send('POST', `${APP}/dogs`, wide, d.admin), 413, 'payload_too_large');
    expect(res.body.error_description).toContain('1000 keys');
    const atLimit = JSON.stringify(Object.fromEntries([['name', 'wide'], ...Array.from({ length: 999 }, (_, i) => [`k${i}`, i])]));
    const taken = await send('POST', `${APP}/dogs`, atLimit, d.admin)();
    expect(taken.status, taken.text).toBe(200);
  });

  it('refuses a key longer than 256 characters with 413, naming the limit', async () => {
    const res = await expectRefusedUnchanged(
      d.t,
      send('POST', `${APP}/dogs`, JSON.stringify({ name: 'long', tags: [{ ['k'.repeat(257)]: 1 }] }), d.admin),
      413,
      'payload_too_large',
    );
    expect(res.body.error_description).toContain('256 characters');
    const taken = await send('POST', `${APP}/dogs`, JSON.stringify({ name: 'long', tags: [{ ['k'.repeat(256)]: 1 }] }), d.admin)();
    expect(taken.status, taken.text).toBe(200);
  });
});

describe('a configured depth', () => {
  it('reads --max-json-depth before IDP_MAX_JSON_DEPTH, defaults to 32, and refuses a depth the database could not read', () => {
    expect(resolveConfig({}, {}).json.maxDepth).toBe(32);
    expect(resolveConfig({}, { IDP_MAX_JSON_DEPTH: '8' }).json.maxDepth).toBe(8);
    expect(resolveConfig({ maxJsonDepth: '4' }, { IDP_MAX_JSON_DEPTH: '8' }).json.maxDepth).toBe(4);
    expect(() => resolveConfig({ maxJsonDepth: '0' }, {})).toThrow(/--max-json-depth must be a whole number of levels/);
    expect(() => resolveConfig({}, { IDP_MAX_JSON_DEPTH: 'deep' })).toThrow(ConfigError);
    expect(() => resolveConfig({ maxJsonDepth: '1001' }, {})).toThrow(/--max-json-depth must be at most 512/);
  });

  it('idp serve --max-json-depth 4 takes 4 levels, refuses 5 naming the limit; a depth past what is safe exits 2', async () => {
    const idp = await startIdp(['--port', '0', '--db', ':memory:', '--log-level', 'warn', '--max-json-depth', '4']);
    try {
      const post = async (body: string) =>
        readResponse(await fetch(`${idp.url}/management/orgs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }));
      const fields = { ...ORG, organization: 'shallow' };
      const four = await post(nestedBody(4, fields));
      expect(four.status, four.text).toBe(200);
      const five = await post(nestedBody(5, { ...fields, organization: 'deeper' }));
      expectRefusal(five, 400, 'json_too_deep');
      expect(five.body.error_description).toContain('4 levels');
    } finally {
      await idp.stop();
    }
    const refused = await runIdp(['serve', '--db', ':memory:', '--max-json-depth', '5000']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--max-json-depth must be at most 512');
  });
});

describe('entity bodies from any source', () => {
  it('checks text 10,000 levels deep without overflowing the stack', () => {
    const deep = JSON.parse(nestedBody(10_000)) as object;
    expect(entityBodies(deep)[0]).toBe(deep);
    const bad = JSON.parse(`{"name":"bad","x":${'['.repeat(9_999)}"a\\u0000b"${']'.repeat(9_999)}}`) as object;
    expect(() => entityBodies(bad)).toThrow(/'x' holds text that cannot be stored/);
  });
});
