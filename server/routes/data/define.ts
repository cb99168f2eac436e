/**
 * Declares one data route: the handler on its hono path, and its description in /openapi.json.
 * The data routes read their parameters with `c.req.param()` because their bodies are
 * free-form JSON; the declaration still documents every path and method.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { Env } from '../../env.js';
import type { router } from '../../openapi.js';
import { responses } from '../../openapi.js';
import { MethodNotAllowed } from '../../../src/errors.js';

export type Method = 'get' | 'post' | 'put' | 'delete';
export type Handler = (c: Context<Env>) => Promise<Response>;
type Router = ReturnType<typeof router>;

/** `/{orgId}/{appId}/{collection}` → `/:orgId/:appId/:collection`. */
function honoPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1');
}

export function define(app: Router, method: Method, path: string, summary: string, handler: Handler): void {
  const names = [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
  app.openAPIRegistry.registerPath(
    createRoute({
      method,
      path,
      tags: ['Data'],
      summary,
      request: { params: z.object(Object.fromEntries(names.map((name) => [name, z.string()]))) },
      responses: responses('Entity'),
    }),
  );
  app.on(method.toUpperCase(), honoPath(path), handler);
}

/** Every other method on `path` is 405 with `Allow` naming the ones that exist. */
export function otherMethodsNotAllowed(app: Router, path: string, allowed: readonly Method[]): void {
  const allow = allowed.map((method) => method.toUpperCase()).join(', ');
  app.all(honoPath(path), () => {
    throw MethodNotAllowed(`${path} allows ${allow}`, { headers: { Allow: allow } });
  });
}
