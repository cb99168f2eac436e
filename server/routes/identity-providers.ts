/**
 * External OpenID providers of an application:
 * /management/orgs/{orgId}/apps/{appId}/identity-providers[/{providerId}] (CONTRACT.md section 4).
 * Organization administrators only; the client secret is accepted and never returned.
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
  createIdentityProvider,
  deleteIdentityProvider,
  findIdentityProvider,
  IdentityProviderInput,
  listIdentityProviders,
  updateIdentityProvider,
  type IdentityProviderRow,
} from '../../src/identity/identity-providers.js';
import { issuerOf } from '../../src/identity/access-tokens.js';
import { FEDERATION_CALLBACK_PATH } from '../../src/identity/federation.js';

const tag = 'Identity providers';
const AppParams = z.object({
  orgId: z.string().openapi({ description: 'organization name or uuid' }),
  appId: z.string().openapi({ description: 'application name or uuid' }),
});
const ProviderParams = AppParams.extend({ providerId: z.string().openapi({ description: 'provider name or uuid' }) });
const body = {
  required: true,
  description: 'an external OpenID provider',
  content: { 'application/json': { schema: IdentityProviderInput.openapi('IdentityProvider') } },
};

function providerView(c: Context<Env>, scope: Scope, row: IdentityProviderRow) {
  return {
    uuid: row.uuid,
    type: 'identity_provider',
    name: row.name,
    issuer: row.issuer,
    client_id: row.clientId,
    client_Id: row.clientId,
    has_client_secret: row.clientSecret !== null,
    scope: row.scope,
    // What to register as the redirect URI at the provider.
    redirect_uri: `${issuerOf(c.get('deps'))}${FEDERATION_CALLBACK_PATH}`,
    created: row.created,
    modified: row.modified,
    metadata: { path: `${applicationPath(scope.org.uuid, scope.app.uuid)}/identity-providers/${row.uuid}` },
  };
}

async function target(c: Context<Env>, params: { orgId: string; appId: string }) {
  const org = await findOrganization(c.get('deps'), params.orgId);
  await requireOrganizationAccess(c, org);
  return { org, app: await findApplication(c.get('deps'), org, params.appId) };
}
type Scope = Awaited<ReturnType<typeof target>>;

function answer(c: Context<Env>, action: string, scope: Scope, rows: IdentityProviderRow[], count = false) {
  return ok(c, { action, entities: rows.map((row) => providerView(c, scope, row)), organization: scope.org, application: scope.app, count });
}

export function identityProviderRoutes() {
  const app = router();
  const path = '/management/orgs/{orgId}/apps/{appId}/identity-providers';
  const one = `${path}/{providerId}`;

  app.openapi(
    createRoute({ method: 'post', path, tags: [tag], summary: 'Add an external OpenID provider', request: { params: AppParams, body }, responses: responses('IdentityProvider') }),
    async (c) => {
      const scope = await target(c, c.req.valid('param'));
      return answer(c, 'new identity provider', scope, [await createIdentityProvider(c.get('deps'), scope.app, c.req.valid('json'))]);
    },
  );

  app.openapi(
    createRoute({ method: 'get', path, tags: [tag], summary: 'List the external OpenID providers', request: { params: AppParams }, responses: responses('IdentityProvider') }),
    async (c) => {
      const scope = await target(c, c.req.valid('param'));
      return answer(c, 'get identity providers', scope, await listIdentityProviders(c.get('deps'), scope.app), true);
    },
  );

  app.openapi(
    createRoute({ method: 'get', path: one, tags: [tag], summary: 'Get an external OpenID provider', request: { params: ProviderParams }, responses: responses('IdentityProvider') }),
    async (c) => {
      const params = c.req.valid('param');
      const scope = await target(c, params);
      return answer(c, 'get identity provider', scope, [await findIdentityProvider(c.get('deps'), scope.app, params.providerId)]);
    },
  );

  app.openapi(
    createRoute({ method: 'put', path: one, tags: [tag], summary: 'Replace an external OpenID provider', request: { params: ProviderParams, body }, responses: responses('IdentityProvider') }),
    async (c) => {
      const params = c.req.valid('param');
      const scope = await target(c, params);
      return answer(c, 'update identity provider', scope, [await updateIdentityProvider(c.get('deps'), scope.app, params.providerId, c.req.valid('json'))]);
    },
  );

  app.openapi(
    createRoute({ method: 'delete', path: one, tags: [tag], summary: 'Delete an external OpenID provider', request: { params: ProviderParams }, responses: responses('IdentityProvider') }),
    async (c) => {
      const params = c.req.valid('param');
      const scope = await target(c, params);
      return answer(c, 'delete identity provider', scope, [await deleteIdentityProvider(c.get('deps'), scope.app, params.providerId)]);
    },
  );
  return app;
}
