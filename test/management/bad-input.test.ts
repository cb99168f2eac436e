/**
 * Every bad input to the management API: its status, its error name, Usergrid's error body, and
 * nothing stored changed. Table-driven, PocketBase style.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectRefusedUnchanged, ORG, signUp, type RequestOptions, type TestApp } from '../helpers.js';

interface Case {
  name: string;
  method: string;
  path: string;
  options?: RequestOptions;
  /** Send the admin's token. */
  auth?: boolean;
  status: number;
  error: string;
  field?: string;
}

const long = (n: number) => 'x'.repeat(n);

const cases: Case[] = [
  {
    name: 'org: missing every field',
    method: 'POST',
    path: '/management/orgs',
    options: { json: {} },
    status: 400,
    error: 'illegal_argument',
    field: 'organization',
  },
  { name: 'org: no body at all', method: 'POST', path: '/management/orgs', status: 400, error: 'illegal_argument', field: 'username' },
  {
    name: 'org: missing password',
    method: 'POST',
    path: '/management/orgs',
    options: { json: { ...ORG, organization: 'new', password: undefined } },
    status: 400,
    error: 'illegal_argument',
    field: 'password',
  },
  {
    name: 'org: number as username',
    method: 'POST',
    path: '/management/orgs',
    options: { json: { ...ORG, organization: 'new', username: 42 } },
    status: 400,
    error: 'illegal_argument',
    field: 'username',
  },
  {
    name: 'org: name with a space',
    method: 'POST',
    path: '/management/orgs',
    options: { json: { ...ORG, organization: 'my org' } },
    status: 400,
    error: 'illegal_argument',
    field: 'organization',
  },
  {
    name: 'org: name too long',
    method: 'POST',
    path: '/management/orgs',
    options: { json: { ...ORG, organization: long(65) } },
    status: 400,
    error: 'illegal_argument',
    field: 'organization',
  },
  {
    name: 'org: name is a uuid',
    method: 'POST',
    path: '/management/orgs',
    options: { json: { ...ORG, organization: '0190f2a4-8d3c-7b7e-9a52-0b9f8c1d2e3f' } },
    status: 400,
    error: 'illegal_argument',
    field: 'organization',
  },
  // A multipart body that does not parse is the client's fault, not the server's (a 500 before).
  {
    name: 'org: a JSON body sent as multipart/form-data',
    method: 'POST',
    path: '/management/orgs',
    options: { body: JSON.stringify({ ...ORG, organization: 'new' }), headers: { 'content-type': 'multipart/form-data; boundary=zz' } },
    status: 400,
    error: 'bad_request',
  },
  {
    name: 'org: a multipart body without its closing delimiter',
    method: 'POST',
    path: '/management/orgs',
    options: {
      body: '--zz\r\nContent-Disposition: form-data; name="organization"\r\n\r\nnew\r\n',
      headers: { 'content-type': 'multipart/form-data; boundary=zz' },
    },
    status: 400,
    error: 'bad_request',
  },
  {
    name: 'org: multipart/form-data without a boundary',
    method: 'POST',
    path: '/management/orgs',
    options: { body: 'organization=new', headers: { 'content-type': 'multipart/form-data' } },
    status: 400,
    error: 'bad_request',
  },
  {
    name: 'org: malformed email',
    method: 'POST',
    path: '/management/orgs',
    options: { json: { ...ORG, organization: 'new', email: 'not-an-email' } },
    status: 400,
    error: 'illegal_argument',
    field: 'email',
  },
  {
    name: 'org: short password',
    method: 'POST',
    path: '/management/orgs',
    options: { json: { ...ORG, organization: 'new', password: 'short' } },
    status: 400,
    error: 'illegal_argument',
    field: 'password',
  },
  {
    name: 'org: username me',
    method: 'POST',
    path: '/management/orgs',
    options: { json: { ...ORG, organization: 'new', username: 'me' } },
    status: 400,
    error: 'illegal_argument',
    field: 'username',
  },
  {
    name: 'org: taken name (other case)',
    method: 'POST',
    path: '/management/orgs',
    options: { json: { ...ORG, organization: 'ACME', username: 'new', email: 'new@example.com' } },
    status: 400,
    error: 'duplicate_unique_property_exists',
    field: 'organization',
  },
  {
    name: 'org: taken username',
    method: 'POST',
    path: '/management/orgs',
    options: { json: { ...ORG, organization: 'new', email: 'new@example.com' } },
    status: 400,
    error: 'duplicate_unique_property_exists',
    field: 'username',
  },
  {
    name: 'org: taken email',
    method: 'POST',
    path: '/management/orgs',
    options: { json: { ...ORG, organization: 'new', username: 'new' } },
    status: 400,
    error: 'duplicate_unique_property_exists',
    field: 'email',
  },
  {
    name: 'org: invalid JSON',
    method: 'POST',
    path: '/management/orgs',
    options: { body: '{"organization":', headers: { 'content-type': 'application/json' } },
    status: 400,
    error: 'json_parse',
  },
  {
    name: 'org: wrong content type',
    method: 'POST',
    path: '/management/orgs',
    options: { body: 'organization=x', headers: { 'content-type': 'text/plain' } },
    status: 415,
    error: 'unsupported_media_type',
  },
  {
    name: 'org: body over 1 MiB',
    method: 'POST',
    path: '/management/orgs',
    options: { json: { ...ORG, organization: 'big', name: long(1024 * 1024 + 1) } },
    status: 413,
    error: 'payload_too_large',
  },
  { name: 'org: unknown', method: 'GET', path: '/management/orgs/nope', auth: true, status: 404, error: 'organization_not_found' },
  {
    name: 'app: missing name',
    method: 'POST',
    path: '/management/orgs/acme/apps',
    auth: true,
    options: { json: {} },
    status: 400,
    error: 'illegal_argument',
    field: 'name',
  },
  {
    name: 'app: malformed name',
    method: 'POST',
    path: '/management/orgs/acme/apps',
    auth: true,
    options: { json: { name: 'a/b' } },
    status: 400,
    error: 'illegal_argument',
    field: 'name',
  },
  {
    name: 'app: name too long',
    method: 'POST',
    path: '/management/orgs/acme/apps',
    auth: true,
    options: { json: { name: long(65) } },
    status: 400,
    error: 'illegal_argument',
    field: 'name',
  },
  {
    name: 'app: array as name',
    method: 'POST',
    path: '/management/orgs/acme/apps',
    auth: true,
    options: { json: { name: ['x'] } },
    status: 400,
    error: 'illegal_argument',
    field: 'name',
  },
  {
    name: 'app: taken name',
    method: 'POST',
    path: '/management/orgs/acme/apps',
    auth: true,
    options: { json: { name: 'Sandbox' } },
    status: 400,
    error: 'duplicate_unique_property_exists',
    field: 'name',
  },
  {
    name: 'app: in unknown org',
    method: 'POST',
    path: '/management/orgs/nope/apps',
    auth: true,
    options: { json: { name: 'x' } },
    status: 404,
    error: 'organization_not_found',
  },
  { name: 'app: delete unknown', method: 'DELETE', path: '/management/orgs/acme/apps/nope', auth: true, status: 404, error: 'application_not_found' },
  {
    name: 'app: credentials of unknown',
    method: 'POST',
    path: '/management/orgs/acme/apps/nope/credentials',
    auth: true,
    status: 404,
    error: 'application_not_found',
  },
  {
    name: 'admin: missing username',
    method: 'POST',
    path: '/management/users',
    options: { json: { email: 'x@example.com' } },
    status: 400,
    error: 'illegal_argument',
    field: 'username',
  },
  {
    name: 'admin: username with a space',
    method: 'POST',
    path: '/management/users',
    options: { json: { username: 'a b' } },
    status: 400,
    error: 'illegal_argument',
    field: 'username',
  },
  {
    name: 'admin: taken username',
    method: 'POST',
    path: '/management/users',
    options: { json: { username: 'Alice' } },
    status: 400,
    error: 'duplicate_unique_property_exists',
    field: 'username',
  },
  { name: 'admin: unknown', method: 'GET', path: '/management/users/nobody', auth: true, status: 404, error: 'user_not_found' },
  {
    name: 'admin: unknown field in update',
    method: 'PUT',
    path: '/management/users/alice',
    auth: true,
    options: { json: { password: 'sneaky-password' } },
    status: 400,
    error: 'illegal_argument',
  },
  {
    name: 'admin: update to a taken email',
    method: 'PUT',
    path: '/management/users/alice',
    auth: true,
    options: { json: { email: 'carol@example.com' } },
    status: 400,
    error: 'duplicate_unique_property_exists',
    field: 'email',
  },
  {
    name: 'admin: password without newpassword',
    method: 'PUT',
    path: '/management/users/alice/password',
    auth: true,
    options: { json: { password: ORG.password } },
    status: 400,
    error: 'illegal_argument',
    field: 'newpassword',
  },
  { name: 'admin: add unknown user to org', method: 'PUT', path: '/management/orgs/acme/users/nobody', auth: true, status: 404, error: 'user_not_found' },
  { name: 'admin: remove non-member', method: 'DELETE', path: '/management/orgs/acme/users/carol', auth: true, status: 404, error: 'user_not_found' },
  {
    name: 'feed: limit over 1000',
    method: 'GET',
    path: '/management/orgs/acme/feed?limit=5000',
    auth: true,
    status: 400,
    error: 'illegal_argument',
    field: 'limit',
  },
  {
    name: 'feed: a cursor it never answered',
    method: 'GET',
    path: '/management/orgs/acme/feed?cursor=bm90LWEtY3Vyc29y',
    auth: true,
    status: 400,
    error: 'illegal_argument',
    field: 'cursor',
  },
  {
    name: 'feed: unknown category',
    method: 'GET',
    path: '/management/orgs/acme/feed?category=nope',
    auth: true,
    status: 400,
    error: 'illegal_argument',
    field: 'category',
  },
  {
    name: 'feed: since not a time',
    method: 'GET',
    path: '/management/orgs/acme/feed?since=yesterday',
    auth: true,
    status: 400,
    error: 'illegal_argument',
    field: 'since',
  },
  { name: 'unknown route', method: 'GET', path: '/management/nothing/here', auth: true, status: 404, error: 'not_found' },
];

let t: TestApp;
let token: string;

beforeAll(async () => {
  t = await createTestApp();
  token = await signUp(t);
  await t.request('POST', '/management/orgs/acme/apps', { json: { name: 'sandbox' }, token });
  await t.request('POST', '/management/users', { json: { username: 'carol', email: 'carol@example.com', password: 'carol-password' } });
});
afterAll(() => t.close());

describe('bad input to the management API', () => {
  for (const c of cases) {
    it(c.name, async () => {
      const res = await expectRefusedUnchanged(t, () => t.request(c.method, c.path, { ...c.options, ...(c.auth && { token }) }), c.status, c.error);
      expect(res.body).toMatchObject({ code: c.status, message: res.body.error_description, timestamp: expect.any(Number), duration: expect.any(Number) });
      expect(res.text).not.toMatch(/at .*\.(ts|js):\d+/);
      if (c.field) expect(res.body.fields).toHaveProperty([c.field]);
    });
  }
});
