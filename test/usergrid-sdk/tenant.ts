/**
 * What the Usergrid SDK suites share: a real server in this process (startTestServer, on the test
 * database) with one organization, its admin, one application and that application's credentials,
 * made through the management API as an SDK user's administrator would.
 */
import type { RunningServer } from '../../server/serve.js';
import type { ServeFlags } from '../../src/config.js';
import { startTestServer } from '../database.js';
import { callServer } from '../helpers.js';

export interface SdkTenant {
  server: RunningServer;
  org: string;
  app: string;
  adminToken: string;
  credentials: { client_id: string; client_secret: string };
}

/**
 * Starts the server and creates organization `org` (admin `owner`) with application `app`; `now`
 * is the server's clock, `flags` more `idp serve` flags.
 */
export async function startSdkTenant(org: string, app: string, options: { now?: () => number; flags?: ServeFlags } = {}): Promise<SdkTenant> {
  const server = await startTestServer({ port: '0', ...options.flags }, options);
  const owner = { username: 'owner', password: 'owner-password' };
  await callServer(server.url, 'POST', '/management/orgs', { json: { organization: org, name: 'Owner', email: 'owner@example.com', ...owner } });
  const adminToken = String((await callServer(server.url, 'POST', '/management/token', { json: { grant_type: 'password', ...owner } })).access_token);
  await callServer(server.url, 'POST', `/management/orgs/${org}/apps`, { json: { name: app }, token: adminToken });
  const { credentials } = await callServer(server.url, 'GET', `/management/orgs/${org}/apps/${app}/credentials`, { token: adminToken });
  return { server, org, app, adminToken, credentials };
}
