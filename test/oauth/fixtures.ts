/**
 * Shared setup of the OAuth tests: an organization with an admin, an application with its
 * credentials, OAuth clients, app users (written through the storage layer: the data API that
 * creates them over HTTP is another feature's).
 */
import { createHash, randomBytes } from 'node:crypto';
import { insertEntity } from '../../src/db/entity-store.js';
import { setAppUserPassword } from '../../src/identity/sign-in/app-user-passwords.js';
import { createTestApp, ORG, signUp, type Clock, type TestApp, type TestResponse } from '../helpers.js';

export interface Tenant {
  adminToken: string;
  orgUuid: string;
  appUuid: string;
  org: { client_id: string; client_secret: string };
  app: { client_id: string; client_secret: string };
}

export async function createTenant(t: TestApp, org = ORG, appName = 'sandbox'): Promise<Tenant> {
  const adminToken = await signUp(t, org);
  const created = await t.request('POST', `/management/orgs/${org.organization}/apps`, { json: { name: appName }, token: adminToken });
  const orgCreds = await t.request('GET', `/management/orgs/${org.organization}/credentials`, { token: adminToken });
  const appCreds = await t.request('GET', `/management/orgs/${org.organization}/apps/${appName}/credentials`, { token: adminToken });
  const orgInfo = await t.request('GET', `/management/orgs/${org.organization}`, { token: adminToken });
  return {
    adminToken,
    orgUuid: orgInfo.body.entities[0].uuid,
    appUuid: created.body.entities[0].uuid,
    org: orgCreds.body.credentials,
    app: appCreds.body.credentials,
  };
}

export async function createAppUser(t: TestApp, appUuid: string, username: string, password: string, extra: Record<string, unknown> = {}): Promise<string> {
  const row = await insertEntity(t.deps.db, {
    appUuid,
    collection: 'users',
    type: 'user',
    name: username,
    properties: { username, ...extra },
    now: t.deps.now(),
  });
  await setAppUserPassword(t.deps, appUuid, row.uuid, password);
  return row.uuid;
}

export function basic(id: string, secret: string): string {
  const encode = (text: string) => new URLSearchParams({ x: text }).toString().slice(2);
  return `Basic ${Buffer.from(`${encode(id)}:${encode(secret)}`).toString('base64')}`;
}

export function token(t: TestApp, form: Record<string, string>, headers: Record<string, string> = {}): Promise<TestResponse> {
  return t.request('POST', '/connect/token', { form, headers });
}

export async function registerClient(t: TestApp, tenant: Tenant, metadata: Record<string, unknown>, path = '/management/orgs/acme/apps/sandbox/clients') {
  const res = await t.request('POST', path, { json: metadata, token: tenant.adminToken });
  if (res.status !== 200) throw new Error(`client registration failed: ${res.text}`);
  return res.body.entities[0] as { client_id: string; client_secret?: string } & Record<string, unknown>;
}

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export function claimsOf(jwt: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString());
}

/** A fresh app on a test clock with one tenant (organization acme, application sandbox). */
export async function createTenantApp(overrides: Parameters<typeof createTestApp>[0] = {}): Promise<{ t: TestApp; tenant: Tenant; clock: Clock }> {
  const clock: Clock = { now: Date.now() };
  const t = await createTestApp(overrides, { now: () => clock.now });
  return { t, tenant: await createTenant(t), clock };
}
