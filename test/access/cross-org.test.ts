/** Who may call what on /management (docs/api.md#principals): a tenant never reaches another. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, ORG, type TestApp } from '../helpers.js';
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

const B_ROUTES: [string, string][] = [
  ['GET', '/management/orgs/globex'],
  ['GET', '/management/orgs/globex/apps'],
  ['GET', '/management/orgs/globex/credentials'],
  ['POST', '/management/orgs/globex/credentials'],
  ['GET', '/management/orgs/globex/users'],
  ['GET', '/management/orgs/globex/feed'],
  ['GET', '/management/orgs/globex/apps/shop/credentials'],
  ['DELETE', '/management/orgs/globex/apps/shop'],
  ['GET', '/management/orgs/globex/apps/shop/clients'],
];

describe("a token of organization A on organization B's routes", () => {
  it.each(B_ROUTES)("%s %s: A's admin is refused with 403", async (method, path) => {
    const res = await t.request(method, path, { token: a.adminToken });
    expect(res.status, res.text).toBe(403);
    expect(res.body.error).toBe('forbidden');
  });

  it.each(B_ROUTES)("%s %s: A's organization and application clients are refused with 403", async (method, path) => {
    for (const creds of [a.org, a.app]) {
      const issued = await token(t, { grant_type: 'client_credentials', client_id: creds.client_id, client_secret: creds.client_secret });
      const res = await t.request(method, path, { token: issued.body.access_token });
      expect(res.status, res.text).toBe(403);
    }
  });

  it.each(B_ROUTES)('%s %s: a guest gets 401', async (method, path) => {
    const res = await t.request(method, path);
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('unauthorized');
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
      expect(res.status).toBe(401);
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
      expect((await closed.request('POST', '/management/orgs', body)).status).toBe(401);
      const root = await closed.request('POST', '/management/token', { json: { grant_type: 'password', username: 'root', password: 'root-password' } });
      const created = await closed.request('POST', '/management/orgs', { ...body, token: root.body.access_token });
      expect(created.status, created.text).toBe(200);
      const peter = await closed.request('POST', '/management/token', { json: { grant_type: 'password', username: 'peter', password: ORG.password } });
      const again = await closed.request('POST', '/management/orgs', { json: { ...ORG, organization: 'x2', username: 'x2', email: 'x2@example.com' }, token: peter.body.access_token });
      expect(again.status).toBe(403);
    } finally {
      closed.close();
    }
  });
});
