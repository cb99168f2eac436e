/**
 * External OpenID providers of an application:
 * /management/orgs/{orgId}/apps/{appId}/identity-providers[/{providerId}] (docs/api.md#authorize-endpoint).
 * Organization administrators only; the client secret is accepted and never returned.
 */
import type { Context } from 'hono';
import type { Env } from '../env.js';
import { defineRoutes } from '../route-table.js';
import { appResourceRoutes } from './app-resources.js';
import { applicationPath } from '../views.js';
import {
  createIdentityProvider,
  deleteIdentityProvider,
  findIdentityProvider,
  IdentityProviderInput,
  listIdentityProviders,
  updateIdentityProvider,
  type IdentityProviderRow,
} from '../../src/identity/federation/identity-providers.js';
import { issuerOf } from '../../src/identity/issuer.js';
import { FEDERATION_CALLBACK_PATH } from '../../src/identity/federation/federation.js';

function providerView(c: Context<Env>, row: IdentityProviderRow) {
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
    metadata: { path: `${applicationPath(c.get('appScope').org.uuid, row.appUuid)}/identity-providers/${row.uuid}` },
  };
}

export const identityProviderRoutes = defineRoutes('server/routes/identity-providers.ts', (app) =>
  appResourceRoutes(app, {
    path: '/identity-providers',
    param: 'providerId',
    paramDescription: 'provider name or uuid',
    tag: 'Identity providers',
    model: 'IdentityProvider',
    noun: 'identity provider',
    body: { description: 'an external OpenID provider', schema: IdentityProviderInput.openapi('IdentityProvider') },
    summaries: {
      create: 'Add an external OpenID provider',
      list: 'List the external OpenID providers',
      get: 'Get an external OpenID provider',
      update: 'Replace an external OpenID provider',
      delete: 'Delete an external OpenID provider',
    },
    create: createIdentityProvider,
    list: listIdentityProviders,
    find: findIdentityProvider,
    update: updateIdentityProvider,
    remove: deleteIdentityProvider,
    view: providerView,
  }),
);
