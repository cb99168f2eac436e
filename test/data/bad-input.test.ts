import { afterAll, beforeAll, describe, it } from 'vitest';
import { expectRefusal, expectRefusedUnchanged } from '../helpers.js';
import { APP, appUser, createDataTest, type DataTest } from './setup.js';

let d: DataTest;
let fredToken: string;
beforeAll(async () => {
  d = await createDataTest({ bodyLimit: 4096 });
  fredToken = (await appUser(d, 'fred')).token;
  await d.t.request('POST', `${APP}/dogs`, { json: { name: 'rex' }, token: d.admin });
  await d.t.request('POST', `${APP}/groups`, { json: { path: 'staff' }, token: d.admin });
});
afterAll(() => d.t.close());

interface Case {
  name: string;
  method: string;
  path: string;
  json?: unknown;
  body?: string;
  headers?: Record<string, string>;
  asUser?: boolean;
  status: number;
  error: string;
}

const CASES: Case[] = [
  { name: 'unknown collection', method: 'GET', path: '/unicorns', status: 404, error: 'entity_not_found' },
  { name: 'unknown entity', method: 'GET', path: '/dogs/nobody', status: 404, error: 'entity_not_found' },
  { name: 'unknown entity by uuid', method: 'DELETE', path: '/dogs/0190f4c2-0000-7000-8000-000000000009', status: 404, error: 'entity_not_found' },
  {
    name: 'update of an unknown uuid',
    method: 'PUT',
    path: '/dogs/0190f4c2-0000-7000-8000-000000000009',
    json: { a: 1 },
    status: 404,
    error: 'entity_not_found',
  },
  { name: 'reserved collection name', method: 'POST', path: '/connecting', json: { name: 'x' }, status: 400, error: 'illegal_argument' },
  { name: 'malformed collection name', method: 'POST', path: '/9lives', json: { name: 'x' }, status: 400, error: 'illegal_argument' },
  { name: 'uuid as a name', method: 'POST', path: '/dogs', json: { name: '0190f4c2-0000-7000-8000-000000000001' }, status: 400, error: 'illegal_argument' },
  { name: 'name with a slash', method: 'POST', path: '/dogs', json: { name: 'a/b' }, status: 400, error: 'illegal_argument' },
  { name: 'name that is not a string', method: 'POST', path: '/dogs', json: { name: 42 }, status: 400, error: 'illegal_argument' },
  { name: "'me' as a username", method: 'POST', path: '/users', json: { username: 'me' }, status: 400, error: 'illegal_argument' },
  { name: 'user without username', method: 'POST', path: '/users', json: { email: 'a@example.com' }, status: 400, error: 'illegal_argument' },
  { name: 'group path with a space', method: 'POST', path: '/groups', json: { path: 'two words', title: 'T' }, status: 400, error: 'illegal_argument' },
  { name: 'renaming a group to a path with a space', method: 'PUT', path: '/groups/staff', json: { path: 'a b' }, status: 400, error: 'illegal_argument' },
  { name: 'body that is not an object', method: 'POST', path: '/dogs', json: 'rex', status: 400, error: 'illegal_argument' },
  { name: 'a NUL character in a property', method: 'POST', path: '/dogs', json: { name: 'nul', note: 'a\u0000b' }, status: 400, error: 'illegal_argument' },
  {
    name: 'a lone surrogate deep inside a property',
    method: 'POST',
    path: '/dogs',
    json: { name: 'half', tags: [{ t: '\ud800' }] },
    status: 400,
    error: 'illegal_argument',
  },
  { name: 'a NUL character in an update', method: 'PUT', path: '/dogs/rex', json: { 'k\u0000': 1 }, status: 400, error: 'illegal_argument' },
  { name: 'empty array', method: 'POST', path: '/dogs', json: [], status: 400, error: 'illegal_argument' },
  { name: 'invalid JSON', method: 'POST', path: '/dogs', body: '{"name": ', headers: { 'content-type': 'application/json' }, status: 400, error: 'json_parse' },
  {
    name: 'wrong content type',
    method: 'POST',
    path: '/dogs',
    body: '<dog/>',
    headers: { 'content-type': 'application/xml' },
    status: 415,
    error: 'unsupported_media_type',
  },
  { name: 'body over the limit', method: 'POST', path: '/dogs', json: { name: 'big', blob: 'x'.repeat(5000) }, status: 413, error: 'payload_too_large' },
  { name: 'bad query', method: 'GET', path: "/dogs?ql=name != 'rex'", status: 400, error: 'query_parse' },
  { name: 'bad query in a PUT', method: 'PUT', path: '/dogs?ql=select', json: { a: 1 }, status: 400, error: 'query_parse' },
  { name: 'bad limit', method: 'GET', path: '/dogs?limit=ten', status: 400, error: 'illegal_argument' },
  { name: 'bad cursor', method: 'GET', path: '/dogs?cursor=nonsense!', status: 400, error: 'illegal_argument' },
  { name: 'POST on the application root', method: 'POST', path: '', json: {}, status: 405, error: 'method_not_allowed' },
  { name: 'DELETE on the application root', method: 'DELETE', path: '', status: 405, error: 'method_not_allowed' },
  { name: 'PATCH on a collection', method: 'PATCH', path: '/dogs', json: {}, status: 405, error: 'method_not_allowed' },
  { name: 'POST on an entity without a file', method: 'POST', path: '/dogs/rex', json: {}, status: 415, error: 'unsupported_media_type' },
  {
    name: 'writing permissions as a property',
    method: 'PUT',
    path: '/groups/staff',
    json: { permissions: ['get:/**'] },
    status: 400,
    error: 'illegal_argument',
  },
  { name: 'malformed permission', method: 'POST', path: '/roles/guest/permissions', json: { permission: 'fly:/x' }, status: 400, error: 'illegal_argument' },
  {
    name: 'removing a permission nobody has',
    method: 'DELETE',
    path: '/roles/guest/permissions?permission=get:/nothing',
    status: 404,
    error: 'entity_not_found',
  },
  { name: 'disconnecting what is not connected', method: 'DELETE', path: '/groups/staff/users/fred', status: 404, error: 'entity_not_found' },
  { name: '/users/me for an administrator', method: 'GET', path: '/users/me', status: 404, error: 'entity_not_found' },
  { name: 'activity without content', method: 'POST', path: '/users/fred/activities', json: { verb: 'post' }, status: 400, error: 'illegal_argument' },
  {
    name: 'a forged receipt under my own user',
    method: 'POST',
    path: '/users/me/receipts',
    json: { sent: 1 },
    asUser: true,
    status: 405,
    error: 'method_not_allowed',
  },
  {
    name: 'a notifier as a connected entity',
    method: 'POST',
    path: '/users/fred/notifiers',
    json: { name: 'x', provider: 'noop' },
    status: 400,
    error: 'illegal_argument',
  },
  { name: 'a receipt in its collection', method: 'POST', path: '/receipt', json: { sent: 1 }, status: 405, error: 'method_not_allowed' },
  { name: 'event without timestamp', method: 'POST', path: '/events', json: { category: 'x' }, status: 400, error: 'illegal_argument' },
  { name: 'a user deleting a dog', method: 'DELETE', path: '/dogs/rex', asUser: true, status: 403, error: 'forbidden' },
  // Query parameters are validated before the handler runs: each at most once.
  { name: 'a limit sent twice', method: 'GET', path: '/dogs?limit=1&limit=2', status: 400, error: 'illegal_argument' },
  {
    name: 'a bulk delete whose ql is sent twice',
    method: 'DELETE',
    path: `/dogs?ql=${encodeURIComponent("name = 'rex'")}&ql=x`,
    status: 400,
    error: 'illegal_argument',
  },
];

describe('bad input', () => {
  it.each(CASES)('$name → $status $error, and nothing stored changes', async (c) => {
    const send = () => d.t.request(c.method, `${APP}${c.path}`, { json: c.json, body: c.body, headers: c.headers, token: c.asUser ? fredToken : d.admin });
    await expectRefusedUnchanged(d.t, send, c.status, c.error);
  });

  it('keeps other first path segments out of the data API', async () => {
    expectRefusal(await d.t.request('GET', '/management/nothing/here', { token: d.admin }), 404, 'not_found');
    expectRefusal(await d.t.request('GET', '/nosuchorg/sandbox/dogs', { token: d.admin }), 404, 'organization_not_found');
  });
});
