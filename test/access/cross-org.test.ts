/** Who may call what on /management: a tenant never reaches another, and a refused request writes nothing. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, expectRefusal, expectRefusedUnchanged, ORG, type TestApp } from '../helpers.js';
import { createTenant, token, type Tenant } from '../oauth/fixtures.js';
import { ensureSuperuser } from '../../src/management/admin-users.js';

let t: TestApp;
let a: Tenant;
let b: Tenant;
beforeEach(async () => {
  t = await createTestApp();
  a = await createTenant(t);
  b = await createTenant(t, { ...ORG, organization: 'globex', username: 'bob', email: 'bob@example.com' }, 'shop');
});
afterEach(() => t.close());

// Every management route of organization B and of its admin bob, reads and writes.
// Each is [method, path, JSON body when the route needs one].
const B_ROUTES: [string, string, unknown?][] = [
  ['GET', '/management/orgs/globex'],
  ['GET', '/management/orgs/globex/apps'],
  ['POST', '/management/orgs/globex/apps', { name: 'planted' }],
  ['GET', '/management/orgs/globex/credentials'],
  ['POST', '/management/orgs/globex/credentials'],
  ['GET', '/management/orgs/globex/users'],
  ['PUT', '/management/orgs/globex/users/alice'],
  ['DELETE', '/management/orgs/globex/users/bob'],
  ['GET', '/management/orgs/globex/feed'],
  ['GET', '/management/orgs/globex/apps/shop/credentials'],
  ['POST', '/management/orgs/globex/apps/shop/credentials'],
  ['DELETE', '/management/orgs/globex/apps/shop'],
  ['GET', '/management/orgs/globex/apps/shop/clients'],
  ['POST', '/management/orgs/globex/apps/shop/clients', { grant_types: ['password'], token_endpoint_auth_method: 'none' }],
  ['GET', '/management/users/bob'],
  ['PUT', '/management/users/bob', { city: 'Elsewhere' }],
  ['PUT', '/management/users/bob/password', { password: ORG.password, newpassword: 'taken-over-1' }],
];

const clientCredentials = (creds: Tenant['org']) => ({ grant_type: 'client_credentials', client_id: creds.client_id, client_secret: creds.client_secret });

describe("a token of organization A on organization B's routes", () => {
  it.each(B_ROUTES)("%s %s: A's admin is refused with 403 and nothing is written", async (method, path, json) => {
    await expectRefusedUnchanged(t, () => t.request(method, path, { json, token: a.adminToken }), 403, 'forbidden');
  });

  it.each(B_ROUTES)("%s %s: A's organization and application clients are refused with 403 and nothing is written", async (method, path, json) => {
    for (const creds of [a.org, a.app]) {
      const issued = await token(t, clientCredentials(creds));
      await expectRefusedUnchanged(t, () => t.request(method, path, { json, token: issued.body.access_token }), 403, 'forbidden');
    }
  });

  it.each(B_ROUTES)('%s %s: a guest gets 401 and nothing is written', async (method, path, json) => {
    await expectRefusedUnchanged(t, () => t.request(method, path, { json }), 401, 'unauthorized');
  });

  it("B's old secrets still issue tokens after A's refused regenerations", async () => {
    const aClients = [];
    for (const creds of [a.org, a.app]) aClients.push((await token(t, clientCredentials(creds))).body.access_token as string);
    for (const bearer of [a.adminToken, ...aClients]) {
      for (const path of ['/management/orgs/globex/credentials', '/management/orgs/globex/apps/shop/credentials']) {
        expectRefusal(await t.request('POST', path, { token: bearer }), 403, 'forbidden');
      }
    }
    for (const creds of [b.org, b.app]) {
      const issued = await token(t, clientCredentials(creds));
      expect(issued.status, issued.text).toBe(200);
    }
  });

  it("B's application is still there, with its data, after A's refused deletion", async () => {
    expectRefusal(await t.request('DELETE', '/management/orgs/globex/apps/shop', { token: a.adminToken }), 403, 'forbidden');
    const apps = await t.request('GET', '/management/orgs/globex/apps', { token: b.adminToken });
    expect(apps.body.data).toEqual({ 'globex/shop': b.appUuid });
    const issued = await token(t, clientCredentials(b.app));
    expect(issued.status, issued.text).toBe(200);
  });

  it("B's own admin and a sysadmin are let in", async () => {
    expect((await t.request('GET', '/management/orgs/globex', { token: b.adminToken })).status).toBe(200);
    await ensureSuperuser(t.deps, 'root', 'root-password');
    const root = await token(t, { grant_type: 'password', client_id: 'admin-cli', username: 'root', password: 'root-password', scope: 'api' });
    expect((await t.request('GET', '/management/orgs/globex/apps', { token: root.body.access_token })).status).toBe(200);
  });

  it('refuses a bad or tampered token with 401, never as a guest', async () => {
    const [header, payload, signature] = a.adminToken.split('.');
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), sub: 'someone-else' })).toString('base64url');
    for (const bad of ['garbage', `${header}.${forged}.${signature}`]) {
      const res = await t.request('GET', '/management/orgs/acme', { token: bad });
      expectRefusal(res, 401, 'unauthorized');
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    }
  });
});

describe('POST /management/orgs follows --signup', () => {
  it('closed: guests 401, admins 403, sysadmins may', async () => {
    const closed = await createTestApp({ signup: 'closed' });
    try {
      await ensureSuperuser(closed.deps, 'root', 'root-password');
      const body = { json: { ...ORG, organization: 'initech', username: 'peter', email: 'peter@example.com' } };
      await expectRefusedUnchanged(closed, () => closed.request('POST', '/management/orgs', body), 401, 'unauthorized');
      const root = await closed.request('POST', '/management/token', { json: { grant_type: 'password', username: 'root', password: 'root-password' } });
      const created = await closed.request('POST', '/management/orgs', { ...body, token: root.body.access_token });
      expect(created.status, created.text).toBe(200);
      const peter = await closed.request('POST', '/management/token', { json: { grant_type: 'password', username: 'peter', password: ORG.password } });
      const again = { json: { ...ORG, organization: 'x2', username: 'x2', email: 'x2@example.com' }, token: peter.body.access_token };
      await expectRefusedUnchanged(closed, () => closed.request('POST', '/management/orgs', again), 403, 'forbidden');
    } finally {
      await closed.close();
    }
  });
});
