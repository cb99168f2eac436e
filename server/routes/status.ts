import { createRoute, z } from '@hono/zod-openapi';
import { defineRoutes } from '../route-table.js';
import { VERSION } from '../../src/version.js';

const Status = z.object({ status: z.literal('ok'), version: z.string() }).openapi('Status');

/** GET /status: the server is up, and its version; no authentication. */
export const statusRoutes = defineRoutes('server/routes/status.ts', (app) => {
  app.openapi(
    createRoute({
      method: 'get',
      path: '/',
      tags: ['Server'],
      summary: 'Server status',
      responses: { 200: { description: 'The server is up', content: { 'application/json': { schema: Status } } } },
    }),
    (c) => c.json({ status: 'ok' as const, version: VERSION }),
  );
});
