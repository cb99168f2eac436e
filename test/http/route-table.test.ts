/**
 * The route table (server/route-table.ts): the most specific route answers whatever order the
 * areas are listed in, a fixed prefix owns what is below it, two modules cannot claim the same
 * requests, and every route names the file that declares it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApp, AREAS } from '../../server/app.js';
import { compareSpecificity, defineRoutes, listRoutes, mountAreas, type Area } from '../../server/route-table.js';
import { router } from '../../server/openapi.js';
import { createTestApp, expectRefusal, signUp, type TestApp } from '../helpers.js';

describe('which route is more specific', () => {
  it.each([
    ['/management/orgs/:orgId', '/:orgId/:appId/:collection'],
    ['/:orgId/:appId/users/resetpw', '/:orgId/:appId/:collection/:entityId'],
    ['/:orgId/:appId/:collection/:entityId/receipts', '/:orgId/:appId/:collection/:entityId/:relation'],
    ['/management/orgs/:orgId', '/management/orgs/:orgId/*'],
    ['/management/orgs/:orgId/activate', '/management/orgs/:orgId/*'],
  ])('%s before %s', (specific, general) => {
    expect(compareSpecificity(specific, general)).toBeLessThan(0);
    expect(compareSpecificity(general, specific)).toBeGreaterThan(0);
  });

  it('calls two patterns that share no request equal', () => {
    expect(compareSpecificity('/management/orgs', '/management/users')).toBe(0);
  });
});

describe('the route table', () => {
  let t: TestApp;
  let token: string;
  beforeEach(async () => {
    t = await createTestApp();
    token = await signUp(t);
    await t.request('POST', '/management/orgs/acme/apps', { token, json: { name: 'sandbox' } });
    await t.request('POST', '/acme/sandbox/users', { token, json: { username: 'fred', password: 'fred-password-1' } });
  });
  afterEach(() => t.close());

  // Paths where a general pattern of another area also matches, with what the right route answers.
  const PROBES: [string, string, number, string][] = [
    ['GET', '/management/orgs/acme', 200, 'get organization'],
    ['GET', '/management/orgs/acme/apps', 200, 'get organization application'],
    ['GET', '/management/orgs/acme/apps/sandbox/clients', 200, 'get clients'],
    ['GET', '/acme/sandbox/users/fred', 200, 'get'],
    ['GET', '/acme/sandbox/notifiers', 200, 'get'],
    // The push route refuses a notification without payloads; the data API would have stored an entity.
    ['POST', '/acme/sandbox/users/fred/notifications', 400, 'required_property_not_found'],
  ];

  async function answers(app: ReturnType<typeof createApp>) {
    const seen = [];
    for (const [method, path] of PROBES) {
      const res = await app.request(`http://idp.test${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: method === 'GET' ? undefined : '{}',
      });
      const body = await res.json();
      seen.push([method, path, res.status, body.action ?? body.error]);
    }
    return seen;
  }

  it('answers each path with its own route, whatever order the areas are listed in', async () => {
    expect(await answers(createApp(t.deps))).toEqual(PROBES);
    expect(await answers(createApp(t.deps, [...AREAS].reverse()))).toEqual(PROBES);
  });

  it('keeps an unknown path under a fixed prefix a plain 404, never an organization lookup', async () => {
    for (const path of ['/management/nothing', '/management/orgs/acme/nothing/here', '/connect/nothing', '/.well-known/nothing']) {
      expectRefusal(await t.request('GET', path, { token }), 404, 'not_found');
      expect((await t.request('GET', path, { token })).body.error_description).toBe('no such resource');
    }
  });

  it('refuses two route modules that claim the same requests, naming both files', () => {
    const one = defineRoutes('server/routes/one.ts', (app) => app.get('/:id', (c) => c.text('one')));
    const two = defineRoutes('server/routes/two.ts', (app) => app.get('/:name', (c) => c.text('two')));
    const areas: Area[] = [
      { prefix: '/{orgId}/{appId}', routes: [one] },
      { prefix: '/{orgId}/{appId}', routes: [two] },
    ];
    expect(() => mountAreas(router(), areas)).toThrow(
      /GET \/\{orgId\}\/\{appId\}\/\{name\} \(server\/routes\/two\.ts\) and .* \(server\/routes\/one\.ts\) match the same requests/,
    );
  });

  it("runs an area's middleware once when a route passes the request on to another of the same area", async () => {
    let runs = 0;
    const counted: Area['middleware'] = [
      async (_c, next) => {
        runs++;
        await next();
      },
    ];
    const first = defineRoutes('server/routes/first.ts', (app) =>
      app.get('/things/:id/:relation', async (c, next) => (c.req.param('id') === '*' ? c.text('star') : next())),
    );
    const second = defineRoutes('server/routes/second.ts', (app) => app.get('/:collection/:id/:relation', (c) => c.text('general')));
    const app = router();
    mountAreas(app, [{ prefix: '/{orgId}', middleware: counted, routes: [first, second] }]);
    expect(await (await app.request('/acme/things/7/likes')).text()).toBe('general');
    expect(runs).toBe(1);
  });

  it('lists every route with a file that declares it', () => {
    const routes = listRoutes(AREAS);
    expect(routes.length).toBeGreaterThan(100);
    for (const file of new Set(routes.map((route) => route.file))) {
      expect(existsSync(file), file).toBe(true);
      if (file !== 'server/route-table.ts') expect(readFileSync(file, 'utf8'), file).toContain(`defineRoutes('${file}'`);
    }
    expect(routes).toContainEqual({ method: 'GET', path: '/management/orgs/{orgId}/apps/{appId}/clients', file: 'server/routes/clients.ts' });
    expect(routes).toContainEqual({ method: 'POST', path: '/{orgId}/{appId}/{collection}', file: 'server/routes/data/entities.ts' });
    // Only a fixed prefix owns what is below it; the application's areas pass unknown paths on.
    expect(routes.filter((route) => route.file === 'server/route-table.ts').map((route) => route.path)).toEqual([
      '/management/orgs/{orgId}/apps/{appId}/*',
      '/management/orgs/{orgId}/*',
      '/status/*',
      '/healthz/*',
      '/readyz/*',
      '/metrics/*',
      '/docs/*',
      '/console/*',
      '/.well-known/*',
      '/connect/*',
      '/device/*',
      '/management/*',
    ]);
  });
});
