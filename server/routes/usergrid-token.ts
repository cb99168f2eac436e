/**
 * Usergrid-compatible token endpoints (docs/api.md#usergrid-style): POST
 * /management/token for admin users and organization clients, POST /{orgId}/{appId}/token for
 * app users and application clients.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { Env } from '../env.js';
import { jsonOrForm, openapiRoute, type router } from '../openapi.js';
import { defineRoutes } from '../route-table.js';
import { loginContextOf } from '../client-address.js';
import { noStore } from '../middleware/no-store.js';
import { ErrorSchema } from '../openapi.js';
import { adminUserView } from '../views.js';
import { UsergridTokenRequest, issueApplicationToken, issueManagementToken, type UsergridTokenResult } from '../../src/identity/tokens/usergrid-token.js';
import { listAdminOrganizations } from '../../src/management/admin-users.js';

const TokenResponse = z
  .object({ access_token: z.string(), token_type: z.literal('Bearer'), expires_in: z.number(), scope: z.string() })
  .passthrough()
  .openapi('UsergridToken');

const responses = {
  200: { description: 'Access token', content: { 'application/json': { schema: TokenResponse } } },
  default: { description: 'Error', content: { 'application/json': { schema: ErrorSchema } } },
};

async function answer(c: Context<Env>, result: UsergridTokenResult) {
  const base = { access_token: result.issued.token, token_type: 'Bearer' as const, expires_in: result.issued.expiresIn, scope: 'api' };
  if ('admin' in result) {
    const orgs = await listAdminOrganizations(c.get('deps'), result.admin.uuid);
    return c.json({ ...base, user: adminUserView(result.admin, orgs) }, 200);
  }
  if ('appUser' in result) {
    const { uuid, type, created, modified, properties } = result.appUser;
    return c.json({ ...base, user: { uuid, type, ...properties, created, modified } }, 200);
  }
  const client = result.client;
  return c.json(
    {
      ...base,
      ...(client.kind === 'application' ? { application: { uuid: client.appUuid, organization: client.orgUuid } } : { organization: { uuid: client.orgUuid } }),
    },
    200,
  );
}

type Router = ReturnType<typeof router>;
type TokenInput = z.infer<typeof UsergridTokenRequest>;

/** POST /token in an area: no-store, the request documented, and `issue` answered as Usergrid did. */
function tokenRoute(
  app: Router,
  summary: string,
  request: { params?: z.ZodObject; description: string },
  issue: (c: Context<Env>, input: TokenInput) => Promise<UsergridTokenResult>,
): void {
  app.use('/token', noStore());
  openapiRoute(
    app,
    createRoute({
      method: 'post',
      path: '/token',
      tags: ['Tokens'],
      summary,
      request: { ...(request.params && { params: request.params }), body: jsonOrForm(UsergridTokenRequest, request.description) },
      responses,
    }),
    async (c) => answer(c, await issue(c, c.req.valid('json') as TokenInput)),
  );
}

export const managementTokenRoutes = defineRoutes('server/routes/usergrid-token.ts', (app) =>
  tokenRoute(
    app,
    'Usergrid-style admin or organization token',
    { description: 'grant_type password (username, password) or client_credentials (client_id, client_secret)' },
    (c, input) => issueManagementToken(c.get('deps'), input, loginContextOf(c)),
  ),
);

/** The application's area has found the application (server/access.ts `application`). */
export const applicationTokenRoutes = defineRoutes('server/routes/usergrid-token.ts', (app) =>
  tokenRoute(
    app,
    'Usergrid-style app user or application token',
    { params: z.object({ orgId: z.string(), appId: z.string() }), description: 'grant_type password or client_credentials' },
    (c, input) => issueApplicationToken(c.get('deps'), c.get('appScope').app, input, loginContextOf(c)),
  ),
);
