/**
 * A path segment that is `.` or `..` (raw, or percent-encoded in any case), or that holds an
 * encoded `/`, `\` or NUL, is `400 invalid_path` before routing, and writes nothing
 * (docs/api.md#paths). Over a real server the path is sent byte for byte (node:http with a
 * `path` option: fetch, and node:http given a URL string, resolve dot segments before sending).
 * Through app.request() the URL parser of the test has resolved the dot segments already, so
 * there only the encoded separators are left to refuse.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config.js';
import { startServer, type RunningServer } from '../../server/serve.js';
import { expectRefusedUnchanged, ORG, readResponse, requestServer, type TestResponse } from '../helpers.js';
import { APP, createDataTest, type DataTest } from '../data/setup.js';

/** Sends `path` exactly as written, on a fresh connection. */
function rawRequest(server: RunningServer, method: string, path: string, token: string): Promise<TestResponse> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const request = httpRequest({ hostname, port, method, path, headers: { authorization: `Bearer ${token}` } }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      const headers = new Headers(
        Object.entries(response.headers).flatMap(([name, value]) => [value ?? []].flat().map((one) => [name, one] as [string, string])),
      );
      response.once('end', () => resolve(readResponse({ status: response.statusCode ?? 0, headers, text: async () => text })));
    });
    request.once('error', reject);
    request.end();
  });
}

/** In the application: the dog `victim` that likes `bone`, and dogs named with dots. */
async function populate(send: (method: string, path: string, json?: unknown) => Promise<TestResponse>): Promise<void> {
  for (const [method, path, json] of [
    ['POST', `${APP}/dogs`, [{ name: 'victim' }, { name: 'rex.jr' }, { name: '...' }, { name: '%2e%2e' }]],
    ['POST', `${APP}/dogs/victim/likes`, { name: 'bone' }],
    ['POST', `${APP}/groups`, [{ path: 'company' }, { path: 'company/eng' }, { path: 'company/eng/web' }]],
  ] as const) {
    const res = await send(method, path, json);
    if (res.status !== 200) throw new Error(`${method} ${path}: ${res.text}`);
  }
}

// Each of these, resolved as a URL parser resolves it, reaches a route that exists: the first
// ones `DELETE …/dogs/victim` (or its like `bone`), the last the organization's credentials.
const DOT_SEGMENTS = [
  ['DELETE', `${APP}/dogs/victim/likes/%2e%2e`],
  ['DELETE', `${APP}/dogs/victim/likes/%2E%2E`],
  ['DELETE', `${APP}/dogs/victim/likes/.%2E`],
  ['DELETE', `${APP}/dogs/victim/likes/%2e.`],
  ['DELETE', `${APP}/dogs/victim/likes/..`],
  ['DELETE', `${APP}/dogs/victim/likes/../`],
  ['DELETE', `${APP}/dogs/victim/likes/..?limit=1`],
  ['DELETE', `${APP}/dogs/victim/likes/bone/%2e`],
  ['DELETE', `${APP}/dogs/victim/likes/bone/.`],
  ['DELETE', `${APP}/dogs/victim/%2e/likes/bone`],
  ['GET', `${APP}/dogs/%2E%2E/%2E%2E/%2E%2E/management/orgs/acme/credentials`],
  // Inside a nested group path (docs/api.md#groups): `DELETE …/groups/company` and `…/company/eng`.
  ['DELETE', `${APP}/groups/company/eng/%2e%2e`],
  ['DELETE', `${APP}/groups/company/eng/web/%2E%2e`],
  ['DELETE', `${APP}/groups/company/eng/web/.`],
] as const;

// Each of these reaches a handler with a `/`, `\` or NUL inside a name.
const ENCODED_SEPARATORS = [
  ['DELETE', `${APP}/dogs/victim%2Flikes%2Fbone`],
  ['DELETE', `${APP}/dogs/victim%2flikes/bone`],
  ['PUT', `${APP}/dogs/new%5Cdog`],
  ['PUT', `${APP}/dogs/new%5cdog`],
  ['DELETE', `${APP}/dogs/victim%00`],
  ['GET', `/management/orgs/acme%2F..%2F`],
  ['DELETE', `${APP}/groups/company%2Feng`],
  ['DELETE', `${APP}/groups/company/eng%2Fweb`],
  // A NUL in the organization of a nested group path: refused before any lookup (PostgreSQL refuses NUL in text).
  ['POST', `/acme%00/sandbox/groups/company/eng/users`],
] as const;

// Dots inside names, three dots, and a doubly encoded `%252e%252e` (the name `%2e%2e`) are names.
const ORDINARY = [
  [`${APP}/dogs/rex.jr`, 'rex.jr'],
  [`${APP}/dogs/...`, '...'],
  [`${APP}/dogs/%252e%252e`, '%2e%2e'],
  [`${APP}/dogs/%252E%252E`, '%2e%2e'],
] as const;

describe('dot segments and encoded separators over a real server', () => {
  let server: RunningServer;
  let admin: string;
  beforeAll(async () => {
    server = await startServer(resolveConfig({ logLevel: 'silent', db: ':memory:', port: '0' }, {}));
    const send = (method: string, path: string, json?: unknown) => requestServer(server.url, method, path, { json, token: admin });
    await send('POST', '/management/orgs', ORG);
    admin = (await send('POST', '/management/token', { grant_type: 'password', username: ORG.username, password: ORG.password })).body.access_token;
    await send('POST', '/management/orgs/acme/apps', { name: 'sandbox' });
    await populate(send);
  });
  afterAll(() => server.close());

  it.each([...DOT_SEGMENTS, ...ENCODED_SEPARATORS])('%s %s is 400 invalid_path and changes nothing', async (method, path) => {
    const res = await expectRefusedUnchanged(server, () => rawRequest(server, method, path, admin), 400, 'invalid_path');
    expect(res.text).not.toContain('client_secret');
  });

  it('leaves the dog and its like in place', async () => {
    expect((await rawRequest(server, 'GET', `${APP}/dogs/victim/likes/bone`, admin)).status).toBe(200);
  });

  it('refuses a raw backslash as invalid_path before the application sees it, and changes nothing', async () => {
    const res = await expectRefusedUnchanged(server, () => rawRequest(server, 'DELETE', `${APP}/dogs/victim\\likes\\bone`, admin), 400, 'invalid_path');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect((await rawRequest(server, 'GET', `${APP}/dogs/victim/likes/bone`, admin)).status).toBe(200);
  });

  it.each(ORDINARY)('GET %s is the dog named %s', async (path, name) => {
    const res = await rawRequest(server, 'GET', path, admin);
    expect(res.status, res.text).toBe(200);
    expect(res.body.entities[0].name).toBe(name);
  });

  it('serves /.well-known/openid-configuration', async () => {
    const res = await rawRequest(server, 'GET', '/.well-known/openid-configuration', admin);
    expect(res.status, res.text).toBe(200);
    expect(res.body.issuer).toBe(server.url);
  });
});

describe('encoded separators through app.request()', () => {
  let d: DataTest;
  beforeAll(async () => {
    d = await createDataTest();
    await populate((method, path, json) => d.t.request(method, path, { json, token: d.admin }));
  });
  afterAll(() => d.t.close());

  it.each(ENCODED_SEPARATORS)('%s %s is 400 invalid_path and changes nothing', async (method, path) => {
    await expectRefusedUnchanged(
      d.t,
      () => d.t.request(method, path, { json: method === 'PUT' ? { age: 1 } : undefined, token: d.admin }),
      400,
      'invalid_path',
    );
  });

  it('refuses a guest the same way, before the token check', async () => {
    const res = await expectRefusedUnchanged(d.t, () => d.t.request('PUT', `${APP}/dogs/new%5Cdog`, { json: { age: 1 } }), 400, 'invalid_path');
    expect(res.body.error_description).toContain("(found '%5C')");
    await expectRefusedUnchanged(d.t, () => d.t.request('GET', `/management/orgs/acme%2F..%2F`, { token: 'not-a-token' }), 400, 'invalid_path');
  });

  it.each(ORDINARY)('GET %s is the dog named %s', async (path, name) => {
    const res = await d.t.request('GET', path, { token: d.admin });
    expect(res.status, res.text).toBe(200);
    expect(res.body.entities[0].name).toBe(name);
  });

  it('serves /.well-known/openid-configuration', async () => {
    expect((await d.t.request('GET', '/.well-known/openid-configuration')).status).toBe(200);
  });
});
