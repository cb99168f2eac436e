/**
 * OAuth clients of an application: /management/orgs/{orgId}/apps/{appId}/clients[/{clientId}]
 * (RFC 7591 metadata; docs/api.md#clients). Organization administrators only; the secret
 * appears in a response only when it was just made.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { Env } from '../env.js';
import { defineRoutes } from '../route-table.js';
import { openapiRoute, responses, type router } from '../openapi.js';
import { ok } from '../envelope.js';
import { appResourceRoutes } from './app-resources.js';
import { AppParams } from './management-params.js';
import { applicationPath } from '../views.js';
import {
  listInitialAccessTokens,
  mintInitialAccessToken,
  revokeInitialAccessToken,
  type MintedInitialAccessToken,
} from '../../src/identity/clients/initial-access-tokens.js';
import {
  ClientMetadataInput,
  createOAuthClient,
  deleteOAuthClient,
  findOAuthClient,
  listOAuthClients,
  updateOAuthClient,
  type SavedClient,
} from '../../src/identity/clients/manage.js';

/**
 * A client's RFC 7591 3.2.1 information: its metadata, when its id was issued, and the secret
 * only when it was just made. /connect/register answers with it too.
 */
export function clientInformation({ row, secret }: SavedClient) {
  return {
    client_id: row.clientId,
    client_id_issued_at: Math.floor(row.created / 1000),
    ...row.metadata,
    // RFC 7591 3.2.1: 0 = the secret does not expire.
    ...(secret !== undefined && { client_secret: secret, client_secret_expires_at: 0 }),
  };
}

function clientView(saved: SavedClient) {
  const { row } = saved;
  return {
    uuid: row.clientId,
    type: 'client',
    client_Id: row.clientId,
    ...clientInformation(saved),
    created: row.created,
    modified: row.modified,
    metadata: { path: `${applicationPath(row.orgUuid, row.appUuid)}/clients/${row.clientId}` },
  };
}

const TOKENS = '/clients/initial-access-tokens';

/** A whole number between `min` and `max`, its bounds said in the refusal as `unit` puts them. */
const wholeNumber = (field: string, min: number, max: number, unit: string) =>
  z
    .number({ error: `${field} must be a number` })
    .int(`${field} must be a whole number`)
    .min(min, `${field} must be at least ${min}`)
    .max(max, `${field} may be at most ${max}${unit}`);

const MintRequest = z
  .object({
    expiration: wholeNumber('expiration', 1, 2_592_000, ' seconds (30 days)')
      .optional()
      .openapi({ description: 'seconds until the token expires; default 86400 (a day), at most 30 days' }),
    count: wholeNumber('count', 1, 1000, '').optional().openapi({ description: 'how many clients it may register; default 1' }),
  })
  .strict()
  .openapi('InitialAccessTokenRequest');

/** Keycloak's ClientInitialAccessPresentation, in the envelope: the token itself only when just minted. */
function initialAccessTokenView(orgUuid: string, { row, token }: MintedInitialAccessToken) {
  return {
    uuid: row.id,
    type: 'initial_access_token',
    id: row.id,
    ...(token !== undefined && { token }),
    timestamp: Math.floor(row.created / 1000),
    expiration: Math.round((row.expiresAt - row.created) / 1000),
    expires_at: Math.floor(row.expiresAt / 1000),
    count: row.count,
    remainingCount: row.remaining,
    created: row.created,
    metadata: { path: `${applicationPath(orgUuid, row.appUuid)}${TOKENS}/${row.id}` },
  };
}

function answerTokens(c: Context<Env>, action: string, tokens: MintedInitialAccessToken[], count = false) {
  const { org, app } = c.get('appScope');
  return ok(c, { action, entities: tokens.map((minted) => initialAccessTokenView(org.uuid, minted)), organization: org, application: app, count });
}

/** Initial access tokens for /connect/register (RFC 7591 3), minted, listed and revoked by the application's administrators. */
function initialAccessTokenRoutes(app: ReturnType<typeof router>): void {
  const declare = (method: 'get' | 'post' | 'delete', path: string, summary: string, body?: true) =>
    createRoute({
      method,
      path,
      tags: ['OAuth clients'],
      summary,
      request: {
        params: path === TOKENS ? AppParams : AppParams.extend({ tokenId: z.string().openapi({ description: 'the id of the initial access token' }) }),
        ...(body && { body: { required: false, description: 'expiration (seconds) and count', content: { 'application/json': { schema: MintRequest } } } }),
      },
      responses: responses('InitialAccessToken'),
    });
  openapiRoute(app, declare('post', TOKENS, 'Mint an initial access token for dynamic client registration', true), async (c) => {
    const body = (c.req as unknown as { valid(target: 'json'): z.infer<typeof MintRequest> }).valid('json');
    return answerTokens(c, 'new initial access token', [await mintInitialAccessToken(c.get('deps'), c.get('appScope').app, body)]);
  });
  openapiRoute(app, declare('get', TOKENS, 'List the initial access tokens of an application'), async (c) =>
    answerTokens(c, 'get initial access tokens', await listInitialAccessTokens(c.get('deps'), c.get('appScope').app), true),
  );
  openapiRoute(app, declare('delete', `${TOKENS}/{tokenId}`, 'Revoke an initial access token'), async (c) =>
    answerTokens(c, 'delete initial access token', [await revokeInitialAccessToken(c.get('deps'), c.get('appScope').app, c.req.param('tokenId') ?? '')]),
  );
}

export const clientRoutes = defineRoutes('server/routes/clients.ts', (app) => {
  initialAccessTokenRoutes(app);
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
  });
});
