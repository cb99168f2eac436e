/**
 * Every request answered is counted for /metrics under its route template, its method and its
 * status, with its duration (src/metrics.ts); with `--access-log`, it is also one log line. The
 * template is the path of the route that answered as /openapi.json writes it
 * (`/{orgId}/{appId}/{collection}/{entityId}`), never the URL asked, so what clients send cannot
 * grow the number of series; a request no route took is `unmatched`.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import type { Deps } from '../../src/deps.js';
import { loginContextOf } from '../client-address.js';
import type { Env } from '../env.js';
import { documentedPath } from '../route-table.js';

/** hono's pattern → its template, worked out once per route. */
const templates = new Map<string, string>();

function templateOf(c: Context<Env>): string {
  const pattern = routePath(c);
  let template = templates.get(pattern);
  if (template === undefined) {
    // Only the request-wide middleware ran: nothing matched, or the request was refused before routing.
    template = pattern === '*' || pattern === '/*' ? 'unmatched' : documentedPath(pattern);
    templates.set(pattern, template);
  }
  return template;
}

export function observeRequests(deps: Deps): MiddlewareHandler<Env> {
  const { metrics } = deps;
  // The access log is asked for by its own flag, so it is written whatever --log-level says.
  const access = deps.config.accessLog ? deps.logger.child({ event: 'request' }, { level: 'info' }) : undefined;
  return async (c, next) => {
    const started = performance.now();
    await next();
    const milliseconds = performance.now() - started;
    const route = templateOf(c);
    const { status } = c.res;
    metrics.observeRequest(route, c.req.method, status, milliseconds / 1000);
    // The path without its query: a query may carry access_token or client_secret.
    access?.info({ method: c.req.method, path: c.req.path, route, status, ms: Math.round(milliseconds * 10) / 10, address: loginContextOf(c).address });
  };
}
