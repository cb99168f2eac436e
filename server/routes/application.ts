/**
 * One application, managed: /management/orgs/{orgId}/apps/{appId} — deletion and credentials.
 * Its OAuth clients and identity providers are clients.ts and identity-providers.ts, in the same
 * area: its middleware has found the organization, checked that the caller administers it, and
 * found the application (server/access.ts).
 */
import { createRoute } from '@hono/zod-openapi';
import { defineRoutes } from '../route-table.js';
import { responses } from '../openapi.js';
import { ok } from '../envelope.js';
import { appDataOf, applicationView } from '../views.js';
import { deleteApplication, regenerateApplicationCredential } from '../../src/management/applications.js';
import { getCredential } from '../../src/management/credentials.js';
import { actorOf } from '../../src/principal.js';
import { credentialRoutes } from './credentials.js';
import { AppParams } from './management-params.js';

export const applicationRoutes = defineRoutes('server/routes/application.ts', (app) => {
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
