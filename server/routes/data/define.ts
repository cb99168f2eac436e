/**
 * Declares the routes of an application's area (data and push): the handler on each spelling of
 * its path, and its description in /openapi.json. These routes read their parameters with
 * `c.req.param()` because their bodies are free-form JSON; the declaration still documents every
 * path and method, with the area's `{orgId}` and `{appId}`.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { Env } from '../../env.js';
import type { router } from '../../openapi.js';
import { responses } from '../../openapi.js';
import { MethodNotAllowed } from '../../../src/errors.js';

export type Method = 'get' | 'post' | 'put' | 'delete';
export type Handler = (c: Context<Env>, next?: () => Promise<void>) => Promise<Response | undefined>;
type Router = ReturnType<typeof router>;

/** Collections whose path segment may also be the singular type, as Usergrid allowed. */
const PLURALS: ReadonlySet<string> = new Set(['notifiers', 'notifications', 'receipts', 'devices', 'users', 'groups']);

/**
 * The hono patterns of a documented path: `{name}` is a parameter, and a fixed collection segment
 * also answers to its singular (one pattern for each spelling: fixed segments are a lookup in
 * hono's trie, where a parameter with a pattern, `:collection{devices?}`, is a regular expression
 * tried on every request of the data API).
 */
export function honoPaths(path: string): string[] {
  let paths = [''];
  for (const segment of path.split('/').slice(1)) {
    const spellings = PLURALS.has(segment) ? [segment, segment.slice(0, -1)] : [segment.replace(/^\{(\w+)\}$/, ':$1')];
    paths = paths.flatMap((prefix) => spellings.map((spelling) => `${prefix}/${spelling}`));
  }
  return paths;
}

/** Documents a route of the application's area in /openapi.json. */
export function document(app: Router, method: Method, path: string, summary: string, options: { tag?: string; model?: string } = {}): void {
  const names = ['orgId', 'appId', ...[...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1])];
  app.openAPIRegistry.registerPath(
    createRoute({
      method,
      path,
      tags: [options.tag ?? 'Data'],
      summary,
      request: { params: z.object(Object.fromEntries(names.map((name) => [name, z.string()]))) },
      responses: responses(options.model ?? 'Entity'),
    }),
  );
}

/** Declares and documents one route. */
export function define(app: Router, method: Method, path: string, summary: string, handler: Handler, options: { tag?: string } = {}): void {
  document(app, method, path, summary, options);
  app.on(method.toUpperCase(), honoPaths(path), handler);
}

/** Every other method on `path` is 405 with `Allow` naming the ones that exist. */
export function otherMethodsNotAllowed(app: Router, path: string, allowed: readonly Method[]): void {
  const allow = allowed.map((method) => method.toUpperCase()).join(', ');
  const shown = `/{orgId}/{appId}${path === '/' ? '' : path}`;
  for (const pattern of honoPaths(path)) {
    app.all(pattern, () => {
      throw MethodNotAllowed(`${shown} allows ${allow}`, { headers: { Allow: allow } });
    });
  }
}
