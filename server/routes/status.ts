import { createRoute, z } from '@hono/zod-openapi';
import { router } from '../openapi.js';
import { VERSION } from '../../src/version.js';

const Status = z.object({ status: z.literal('ok'), version: z.string() }).openapi('Status');

/** GET /status: liveness without authentication (CONTRACT.md section 1). */
export function statusRoutes() {
  const app = router();
  app.openapi(
    createRoute({
      method: 'get',
      path: '/status',
      tags: ['Server'],
      summary: 'Server status',
      responses: { 200: { description: 'The server is up', content: { 'application/json': { schema: Status } } } },
    }),
    (c) => c.json({ status: 'ok' as const, version: VERSION }),
  );
  return app;
}
