/**
 * Which answers a cache may keep (docs/api.md#caching): every answer to a caller who is not a
 * guest is `no-store`, refusals included, unless its route sets a Cache-Control of its own; the
 * token endpoints are `no-store` whoever calls them; a guest's answer carries none of ours.
 * Node's response adds the header for `idp serve`, the context for any other caller
 * (server/middleware/secure-headers.ts): each case runs against a real server and app.request().
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createServedTestApp, createTestApp, expectRefusal, readResponse, type TestApp } from '../helpers.js';
import { createAppUser, createTenant, type Tenant } from '../oauth/fixtures.js';
import { AREAS, createApp } from '../../server/app.js';
import { caller } from '../../server/access.js';
import { defineRoutes } from '../../server/route-table.js';

const cacheControl = (res: { headers: Headers }) => res.headers.get('cache-control');

describe.each([
  ['app.request()', () => createTestApp()],
  ['a real server', () => createServedTestApp()],
])('through %s', (_, open) => {
  let t: TestApp;
  let tenant: Tenant;
  beforeEach(async () => {
    t = await open();
    tenant = await createTenant(t);
    const admin = { token: tenant.adminToken };
    await t.request('POST', '/acme/sandbox/roles/guest/permissions', { json: { permission: 'get:/dogs/**' }, ...admin });
    const dog = await t.request('POST', '/acme/sandbox/dogs', { json: { name: 'rex' }, ...admin });
    expect(dog.status, dog.text).toBe(200);
  });
  afterEach(() => t.close());

  describe('answers to a caller who is not a guest', () => {
    it("are no-store for an admin's token, on the data API and on management routes", async () => {
      for (const path of ['/acme/sandbox/dogs/rex', '/management/orgs/acme', '/management/users/alice']) {
        const res = await t.request('GET', path, { token: tenant.adminToken });
        expect(res.status, `${path}: ${res.text}`).toBe(200);
        expect(cacheControl(res), path).toBe('no-store');
      }
    });

    it('are no-store when refused', async () => {
      const missing = await t.request('GET', '/acme/sandbox/dogs/nobody', { token: tenant.adminToken });
      expectRefusal(missing, 404, 'entity_not_found');
      expect(cacheControl(missing)).toBe('no-store');
    });

    it('are no-store for credentials in the query string, which are no Authorization header to a shared cache', async () => {
      const { client_id, client_secret } = tenant.org;
      const credentials = await t.request('GET', `/management/orgs/acme/credentials?${new URLSearchParams({ client_id, client_secret })}`);
      expect(credentials.status, credentials.text).toBe(200);
      expect(credentials.body.credentials.client_secret).toBe(client_secret);
      expect(cacheControl(credentials)).toBe('no-store');
      const dog = await t.request('GET', `/acme/sandbox/dogs/rex?${new URLSearchParams(tenant.app)}`);
      expect(dog.status, dog.text).toBe(200);
      expect(cacheControl(dog)).toBe('no-store');
    });

    it("are no-store for an app user's token, and so is the token endpoint's answer", async () => {
      await createAppUser(t, tenant.appUuid, 'fred', 'fred-password');
      const issued = await t.request('POST', '/acme/sandbox/token', { json: { grant_type: 'password', username: 'fred', password: 'fred-password' } });
      expect(issued.status, issued.text).toBe(200);
      expect(cacheControl(issued)).toBe('no-store');
      const me = await t.request('GET', '/acme/sandbox/users/me', { token: issued.body.access_token });
      expect(me.status, me.text).toBe(200);
      expect(cacheControl(me)).toBe('no-store');
    });
  });

  describe('answers to a guest', () => {
    it('carry no Cache-Control of ours: what a guest may read is public', async () => {
      const res = await t.request('GET', '/acme/sandbox/dogs/rex');
      expect(res.status, res.text).toBe(200);
      expect(res.body.entities[0].name).toBe('rex');
      expect(cacheControl(res)).toBeNull();
    });

    it('of the token endpoints are no-store all the same', async () => {
      const { client_id, client_secret } = tenant.org;
      const issued = await t.request('POST', '/management/token', { json: { grant_type: 'client_credentials', client_id, client_secret } });
      expect(issued.status, issued.text).toBe(200);
      expect(cacheControl(issued)).toBe('no-store');
    });
  });
});

describe('a route that sets its own Cache-Control', () => {
  it('keeps it for a caller who is not a guest', async () => {
    const t = await createTestApp();
    const tenant = await createTenant(t);
    const own = defineRoutes('test/http/cache-control.test.ts', (app) =>
      app.get('/mine', (c) => {
        c.header('Cache-Control', 'private, max-age=60');
        return c.json({ mine: true });
      }),
    );
    const app = createApp(t.deps, [...AREAS, { prefix: '/cached', middleware: [caller], routes: [own] }]);
    const res = await readResponse(await app.request('http://idp.test/cached/mine', { headers: { authorization: `Bearer ${tenant.adminToken}` } }));
    expect([res.status, res.body]).toEqual([200, { mine: true }]);
    expect(cacheControl(res)).toBe('private, max-age=60');
    await t.close();
  });
});
