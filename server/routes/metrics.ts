/**
 * GET /metrics: the Prometheus text format (docs/operations.md). On the server's port it needs
 * a sysadmin's access token or the token of `--metrics-token`; with `--metrics-port` the same
 * text is served without a token on that port (createMetricsApp), which only the host it binds
 * should reach.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { Context, Hono } from 'hono';
import type { Deps } from '../../src/deps.js';
import { NotFound } from '../../src/errors.js';
import { scrapeMetrics } from '../../src/operations/scrape.js';
import { secretsEqual } from '../../src/passwords.js';
import { requireSysadmin } from '../access.js';
import type { Env } from '../env.js';
import { onError } from '../errors.js';
import { noStore } from '../middleware/no-store.js';
import { callerOf } from '../middleware/principal.js';
import { ErrorSchema, openapiRoute, router } from '../openapi.js';
import { defineRoutes } from '../route-table.js';

async function answerMetrics(c: Context<Env>): Promise<Response> {
  const deps = c.get('deps');
  return c.body(await scrapeMetrics(deps), 200, { 'Content-Type': deps.metrics.contentType });
}

/** The metrics token, compared in constant time; otherwise the caller must be a sysadmin. */
async function requireMetricsReader(c: Context<Env>): Promise<void> {
  const expected = c.get('deps').config.metricsToken;
  const bearer = c.req.header('authorization')?.match(/^Bearer\s+(\S+)$/i)?.[1];
  if (expected !== undefined && bearer !== undefined && secretsEqual(bearer, expected)) return;
  c.set('principal', await callerOf(c));
  requireSysadmin(c);
}

const refused = { content: { 'application/json': { schema: ErrorSchema } } };

export const metricsRoutes = defineRoutes('server/routes/metrics.ts', (app) => {
  openapiRoute(
    app,
    createRoute({
      method: 'get',
      path: '/',
      tags: ['Server'],
      summary: "Prometheus metrics (a sysadmin's access token, or the --metrics-token)",
      responses: {
        200: { description: 'The Prometheus text exposition format', content: { 'text/plain': { schema: z.string() } } },
        401: { description: 'No token, or not a valid one', ...refused },
        403: { description: "A valid access token, but not a sysadmin's", ...refused },
      },
    }),
    async (c) => {
      await requireMetricsReader(c);
      return answerMetrics(c);
    },
  );
});

/** What `--metrics-port` serves: GET /metrics and nothing else, without a token. */
export function createMetricsApp(deps: Deps): Hono<Env> {
  const app = router();
  app.use('*', async (c, next) => {
    c.set('startedAt', Date.now());
    c.set('deps', deps);
    c.set('logger', deps.logger);
    await next();
  });
  app.get('/metrics', noStore(), answerMetrics);
  app.notFound(() => {
    throw NotFound('no such resource');
  });
  app.onError(onError);
  return app;
}
