/**
 * OAuth clients of an application: /management/orgs/{orgId}/apps/{appId}/clients[/{clientId}]
 * (RFC 7591 metadata; docs/api.md#clients). Organization administrators only; the secret
 * appears in a response only when it was just made.
 */
import { defineRoutes } from '../route-table.js';
import { appResourceRoutes } from './app-resources.js';
import { applicationPath } from '../views.js';
import {
  ClientMetadataInput,
  createOAuthClient,
  deleteOAuthClient,
  findOAuthClient,
  listOAuthClients,
  updateOAuthClient,
  type SavedClient,
} from '../../src/identity/clients/manage.js';

function clientView({ row, secret }: SavedClient) {
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

export const clientRoutes = defineRoutes('server/routes/clients.ts', (app) =>
  appResourceRoutes<ClientMetadataInput, SavedClient>(app, {
    path: '/clients',
    param: 'clientId',
    tag: 'OAuth clients',
    model: 'Client',
    noun: 'client',
    body: { description: 'RFC 7591 client metadata', schema: ClientMetadataInput.openapi('ClientMetadata') },
    summaries: {
      create: 'Register an OAuth client',
      list: 'List the OAuth clients of an application',
      get: 'Get an OAuth client',
      update: 'Replace the metadata of an OAuth client',
      delete: 'Delete an OAuth client and revoke its grants',
    },
    create: createOAuthClient,
    list: async (deps, app) => (await listOAuthClients(deps, app)).map((row) => ({ row })),
    find: async (deps, app, id) => ({ row: await findOAuthClient(deps, app, id) }),
    update: updateOAuthClient,
    remove: async (deps, app, id) => ({ row: await deleteOAuthClient(deps, app, id) }),
    view: (_c, saved) => clientView(saved),
    extra: (saved) => (saved.secret === undefined ? undefined : { credentials: { client_id: saved.row.clientId, client_secret: saved.secret } }),
  }),
);
