/**
 * OAuth clients of an application: /management/orgs/{orgId}/apps/{appId}/clients[/{clientId}]
 * (CONTRACT.md section 2). Organization administrators only; the secret appears in a response
 * only when it was just made.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { Env } from '../env.js';
import { router, responses } from '../openapi.js';
import { ok } from '../envelope.js';
import { applicationPath } from '../views.js';
import { requireOrganizationAccess } from '../access.js';
import { findOrganization } from '../../src/management/organizations.js';
import { findApplication } from '../../src/management/applications.js';
import {
  ClientMetadataInput,
  createOAuthClient,
  deleteOAuthClient,
  findOAuthClient,
  listOAuthClients,
  updateOAuthClient,
  type OAuthClientRow,
  type SavedClient,
} from '../../src/identity/oauth-clients.js';

const tag = 'OAuth clients';
const AppParams = z.object({
  orgId: z.string().openapi({ description: 'organization name or uuid' }),
  appId: z.string().openapi({ description: 'application name or uuid' }),
});
const ClientParams = AppParams.extend({ clientId: z.string() });
const body = { required: true, description: 'RFC 7591 client metadata', content: { 'application/json': { schema: ClientMetadataInput.openapi('ClientMetadata') } } };

function clientView(row: OAuthClientRow, secret?: string) {
  return {
    uuid: row.clientId,
    type: 'client',
    client_id: row.clientId,
    client_Id: row.clientId,
    client_id_issued_at: Math.floor(row.created / 1000),
    ...row.metadata,
    // RFC 7591 3.2.1: 0 = the secret does not expire.
    ...(secret !== undefined && { client_secret: secret, client_secret_expires_at: 0 }),
    created: row.created,
    modified: row.modified,
    metadata: { path: `${applicationPath(row.orgUuid, row.appUuid)}/clients/${row.clientId}` },
  };
}

async function target(c: Context<Env>, params: { orgId: string; appId: string }) {
  const org = await findOrganization(c.get('deps'), params.orgId);
  await requireOrganizationAccess(c, org);
  return { org, app: await findApplication(c.get('deps'), org, params.appId) };
}

function answer(c: Context<Env>, action: string, scope: Awaited<ReturnType<typeof target>>, saved: SavedClient) {
  const view = clientView(saved.row, saved.secret);
  return ok(c, {
    action,
    entities: [view],
    organization: scope.org,
    application: scope.app,
    ...(saved.secret !== undefined && { extra: { credentials: { client_id: view.client_id, client_secret: saved.secret } } }),
  });
}

export function clientRoutes() {
  const app = router();
  const path = '/management/orgs/{orgId}/apps/{appId}/clients';

  app.openapi(
    createRoute({ method: 'post', path, tags: [tag], summary: 'Register an OAuth client', request: { params: AppParams, body }, responses: responses('Client') }),
    async (c) => {
      const scope = await target(c, c.req.valid('param'));
      return answer(c, 'new client', scope, await createOAuthClient(c.get('deps'), scope.app, c.req.valid('json')));
    },
  );

  app.openapi(
    createRoute({ method: 'get', path, tags: [tag], summary: 'List the OAuth clients of an application', request: { params: AppParams }, responses: responses('Client') }),
    async (c) => {
      const scope = await target(c, c.req.valid('param'));
      const rows = await listOAuthClients(c.get('deps'), scope.app);
      return ok(c, { action: 'get clients', entities: rows.map((row) => clientView(row)), organization: scope.org, application: scope.app, count: true });
    },
  );

  app.openapi(
    createRoute({ method: 'get', path: `${path}/{clientId}`, tags: [tag], summary: 'Get an OAuth client', request: { params: ClientParams }, responses: responses('Client') }),
    async (c) => {
      const params = c.req.valid('param');
      const scope = await target(c, params);
      return answer(c, 'get client', scope, { row: await findOAuthClient(c.get('deps'), scope.app, params.clientId) });
    },
  );

  app.openapi(
    createRoute({ method: 'put', path: `${path}/{clientId}`, tags: [tag], summary: 'Replace the metadata of an OAuth client', request: { params: ClientParams, body }, responses: responses('Client') }),
    async (c) => {
      const params = c.req.valid('param');
      const scope = await target(c, params);
      return answer(c, 'update client', scope, await updateOAuthClient(c.get('deps'), scope.app, params.clientId, c.req.valid('json')));
    },
  );

  app.openapi(
    createRoute({ method: 'delete', path: `${path}/{clientId}`, tags: [tag], summary: 'Delete an OAuth client and revoke its grants', request: { params: ClientParams }, responses: responses('Client') }),
    async (c) => {
      const params = c.req.valid('param');
      const scope = await target(c, params);
      return answer(c, 'delete client', scope, { row: await deleteOAuthClient(c.get('deps'), scope.app, params.clientId) });
    },
  );
  return app;
}
