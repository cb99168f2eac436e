/**
 * GET /healthz and GET /readyz: what a load balancer or an orchestrator polls. Both need no
 * token and are never cached. /healthz says the process answers; /readyz says it can serve:
 * its database answers, is migrated, and the signing keys are loaded (src/operations/readiness.ts).
 */
import { createRoute, z } from '@hono/zod-openapi';
import { defineRoutes } from '../route-table.js';
import { ErrorSchema } from '../openapi.js';
import { TemporarilyUnavailable } from '../../src/errors.js';
import { checkReadiness } from '../../src/operations/readiness.js';

const Health = z.object({ status: z.literal('ok') }).openapi('Health');
const ok = { description: 'Yes', content: { 'application/json': { schema: Health } } };

export const livenessRoutes = defineRoutes('server/routes/health.ts', (app) => {
  app.openapi(createRoute({ method: 'get', path: '/', tags: ['Server'], summary: 'Liveness: the process answers', responses: { 200: ok } }), (c) =>
    c.json({ status: 'ok' as const }),
  );
});

export const readinessRoutes = defineRoutes('server/routes/health.ts', (app) => {
  app.openapi(
    createRoute({
      method: 'get',
      path: '/',
      tags: ['Server'],
      summary: 'Readiness: the database answers and is migrated, the signing keys are loaded',
      responses: {
        200: ok,
        503: { description: 'Not ready; `error_description` says why', content: { 'application/json': { schema: ErrorSchema } } },
      },
    }),
    async (c) => {
      const readiness = await checkReadiness(c.get('deps'));
      if (!readiness.ready) throw TemporarilyUnavailable(`not ready: ${readiness.reason}`);
      return c.json({ status: 'ok' as const }, 200);
    },
  );
});
