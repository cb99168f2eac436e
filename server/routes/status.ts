import { createRoute, z } from '@hono/zod-openapi';
import { defineRoutes } from '../route-table.js';
import { callerOf } from '../middleware/principal.js';
import { VERSION } from '../../src/version.js';
import { dialectOf } from '../../src/db/open.js';

const Status = z
  .object({
    status: z.literal('ok'),
    version: z.string(),
    database: z.enum(['sqlite', 'postgres']).optional().openapi({ description: 'Which database the server runs on (sysadmins only)' }),
    uptime: z.number().int().optional().openapi({ description: 'Seconds since the server process started (sysadmins only)' }),
  })
  .openapi('Status');

/**
 * GET /status: the server is up, and its version; no authentication. A sysadmin's token adds
 * the database kind and the uptime (docs/api.md): harmless alone, but what a stranger learns of
 * the deployment (the database it runs on, when it was last restarted, so whether it was
 * patched) is kept to those who run it.
 */
export const statusRoutes = defineRoutes('server/routes/status.ts', (app) => {
  app.openapi(
    createRoute({
      method: 'get',
      path: '/',
      tags: ['Server'],
      summary: 'Server status (a sysadmin also sees the database kind and the uptime)',
      responses: { 200: { description: 'The server is up', content: { 'application/json': { schema: Status } } } },
    }),
    async (c) => {
      const status = { status: 'ok' as const, version: VERSION };
      if ((await callerOf(c)).kind !== 'sysadmin') return c.json(status);
      return c.json({ ...status, database: dialectOf(c.get('deps').db), uptime: Math.floor(process.uptime()) });
    },
  );
});
