/**
 * Declares the routes of an application's area (data and push): the handler on each spelling of
 * its path, and its description in /openapi.json, with the area's `{orgId}` and `{appId}`, the
 * query it reads and its free-form JSON body.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { Env } from '../../env.js';
import type { router } from '../../openapi.js';
import { responses } from '../../openapi.js';
import { formParam } from '../../request-input.js';
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

/** The query of a list: which entities, how many, and where the previous page ended (docs/api.md#queries-and-paging). */
export const FindQuery = z.object({
  ql: formParam().openapi({ description: "a query, e.g. select * where name = 'rex' order by created desc" }),
  queryStatement: formParam().openapi({ description: 'another name for ql' }),
  limit: formParam().openapi({ description: 'at most this many entities: 1 to 1000, 10 by default' }),
  cursor: formParam().openapi({ description: 'the cursor of the previous page' }),
  explain: formParam().openapi({
    description: "true: add `explain: {index, rows_read}`, how the database found the entities (the application's administrators only)",
  }),
});

/** Entity bodies are free-form: one object, or an array of them to create several. */
const EntityBody = z.union([z.record(z.string(), z.unknown()), z.array(z.record(z.string(), z.unknown()))]).openapi('EntityBody');

/** A file to attach (docs/api.md#assets): the `file` part, and the entity's properties as the other fields. */
const EntityUpload = z
  .object({ file: z.string().openapi({ format: 'binary', description: 'the bytes of the asset' }) })
  .catchall(z.string())
  .openapi('EntityUpload');

export interface RouteOptions {
  tag?: string;
  model?: string;
  /** The query parameters the route reads, validated before the handler. */
  query?: z.ZodObject;
  /** The route reads a body: documented as EntityBody, read by the handler (request.ts `readEntityBody`). */
  body?: boolean;
  /** The body may also be a multipart upload of a file (assets.ts `readEntityUpload`). */
  upload?: boolean;
}

function bodyOf(options: RouteOptions) {
  const json = options.body ? { 'application/json': { schema: EntityBody } } : {};
  const upload = options.upload ? { 'multipart/form-data': { schema: EntityUpload } } : {};
  return { description: 'JSON (also sent as text/plain), or a form; a multipart form attaches its `file`', content: { ...json, ...upload } };
}

function describe(method: Method, path: string, summary: string, options: RouteOptions) {
  const names = ['orgId', 'appId', ...[...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1])];
  return createRoute({
    method,
    path,
    tags: [options.tag ?? 'Data'],
    summary,
    request: {
      params: z.object(Object.fromEntries(names.map((name) => [name, z.string()]))),
      ...(options.query && { query: options.query }),
      ...((options.body || options.upload) && { body: bodyOf(options) }),
    },
    responses: responses(options.model ?? 'Entity'),
  });
}

/** Documents a route of the application's area in /openapi.json. */
export function document(app: Router, method: Method, path: string, summary: string, options: RouteOptions = {}): void {
  app.openAPIRegistry.registerPath(describe(method, path, summary, options));
}

/**
 * Declares and documents one route, on each spelling of its path, with its query validated (the
 * path parameters are any text, and the body is the handler's to read, after the access checks).
 */
export function define(app: Router, method: Method, path: string, summary: string, handler: Handler, options: RouteOptions = {}): void {
  document(app, method, path, summary, options);
  const request = options.query && { query: options.query };
  for (const pattern of honoPaths(path)) app.openapi({ ...describe(method, pattern, summary, {}), hide: true, request }, handler as never);
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
