/**
 * One application, managed: /management/orgs/{orgId}/apps/{appId} — its settings, deletion and
 * credentials.
 * Its OAuth clients and identity providers are clients.ts and identity-providers.ts, in the same
 * area: its middleware has found the organization, checked that the caller administers it, and
 * found the application (server/access.ts).
 */
import { createRoute } from '@hono/zod-openapi';
import { defineRoutes } from '../route-table.js';
import { jsonOrForm, openapiRoute, responses } from '../openapi.js';
import { ok } from '../envelope.js';
import { appDataOf, applicationView } from '../views.js';
import { deleteApplication, regenerateApplicationCredential, updateApplication } from '../../src/management/applications.js';
import { UpdateApp } from '../../src/management/schemas.js';
import { getCredential } from '../../src/management/credentials.js';
import { actorOf } from '../../src/principal.js';
import { credentialRoutes } from './credentials.js';
import { AppParams } from './management-params.js';

export const applicationRoutes = defineRoutes('server/routes/application.ts', (app) => {
  app.openapi(
    createRoute({
      method: 'get',
      path: '/',
      tags: ['Management'],
      summary: 'Get an application and its settings',
      request: { params: AppParams },
      responses: responses('AppData'),
    }),
    async (c) => {
      const { org, app: target } = c.get('appScope');
      return ok(c, { action: 'get application', entities: [applicationView(org, target)], organization: org, extra: { data: appDataOf(org, [target]) } });
    },
  );

  openapiRoute(
    app,
    createRoute({
      method: 'put',
      path: '/',
      tags: ['Management'],
      summary: "Change an application's settings: its password policy (docs/api.md#passwords), open client registration, second factor required",
      request: {
        params: AppParams,
        body: jsonOrForm(
          UpdateApp,
          'passwordPolicy: minLength, require, blocklist; openClientRegistration, secondFactorRequired: true or false; null removes a setting',
        ),
      },
      responses: responses('AppData'),
    }),
    async (c) => {
      const { org, app: target } = c.get('appScope');
      const updated = await updateApplication(c.get('deps'), org, target, c.req.valid('json'), actorOf(c.get('principal')));
      return ok(c, { action: 'update application', entities: [applicationView(org, updated)], organization: org, extra: { data: appDataOf(org, [updated]) } });
    },
  );

  app.openapi(
    createRoute({
      method: 'delete',
      path: '/',
      tags: ['Management'],
      summary: 'Delete an application and all its data',
      request: { params: AppParams },
      responses: responses('AppData'),
    }),
    async (c) => {
      const { org, app: target } = c.get('appScope');
      await deleteApplication(c.get('deps'), org, target, actorOf(c.get('principal')));
      return ok(c, { action: 'delete application', entities: [applicationView(org, target)], organization: org, extra: { data: appDataOf(org, [target]) } });
    },
  );

  credentialRoutes(app, {
    owner: 'application',
    params: AppParams,
    read: (c) => getCredential(c.get('deps'), 'application', c.get('appScope').app.uuid),
    regenerate: (c) => regenerateApplicationCredential(c.get('deps'), c.get('appScope').org, c.get('appScope').app, actorOf(c.get('principal'))),
    scope: (c) => ({ organization: c.get('appScope').org, application: c.get('appScope').app }),
  });
});
