/**
 * Helpers for declaring routes once: the same zod schema validates the request and describes it
 * in /openapi.json.
 */
import { OpenAPIHono, z, type RouteConfig, type RouteHandler } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import type { ZodType } from 'zod';
import type { Env } from './env.js';
import { validationError, validationHook } from './errors.js';
import { formatOfMediaType, readBody, type BodyRule } from './request-input.js';

/** `strict: false` on the top-level app makes `/users/fred/likes/` the same route as `/users/fred/likes`. */
export function router(options: { strict?: boolean } = {}) {
  return new OpenAPIHono<Env>({ defaultHook: validationHook, ...options });
}

type Router = ReturnType<typeof router>;

/** A request body accepted as JSON or as a form (Usergrid accepted both). */
export function jsonOrForm<T extends ZodType>(schema: T, description: string) {
  return {
    description,
    content: {
      'application/json': { schema },
      'application/x-www-form-urlencoded': { schema },
      'multipart/form-data': { schema },
    },
  };
}

/** A request body accepted only as a form (the OAuth endpoints and the pages' forms). */
export function formBody<T extends ZodType>(schema: T, description?: string) {
  return { description, content: { 'application/x-www-form-urlencoded': { schema } } };
}

/** What a validation hook sees: on failure, the zod error and the value as it was read. */
export interface ValidationResult {
  success: boolean;
  error?: z.ZodError;
  data?: unknown;
}

/** What a validation failure answers instead of the error body (a page, a redirect); nothing, or a throw, for the error body. */
export type InputHook = (result: ValidationResult, c: Context<Env>) => Response | Promise<Response | undefined | void> | undefined | void;

/** A handler of validated input; it answers any Response (a page as well as the JSON /openapi.json describes). */
type InputHandler<R extends RouteConfig> = (c: Parameters<RouteHandler<R, Env>>[0]) => Response | Promise<Response>;

interface InputOptions {
  hook?: InputHook;
  /** The formats of body read; by default the media types the route declares, and no body at all. */
  body?: BodyRule;
}

/**
 * `app.openapi` for a route that may take a body: the route is documented as declared; its path
 * and query are validated by zod-openapi, its body read by the one body reader
 * (server/request-input.ts) and validated by the schema it is documented with. The value is
 * `c.req.valid('json')` and `c.req.valid('form')` alike. A failure goes to `hook`, else to the
 * router's defaultHook (the one error body).
 */
export function openapiRoute<R extends RouteConfig>(app: Router, route: R, handler: InputHandler<R>, options: InputOptions = {}): void {
  const body = route.request?.body;
  if (body === undefined) {
    app.openapi(route, handler as never, options.hook as never);
    return;
  }
  const { middleware, hide, ...documented } = route;
  if (!hide) app.openAPIRegistry.registerPath(documented);
  const declared = Object.entries(body.content) as [string, { schema: ZodType }][];
  const schema = declared[0][1].schema;
  const rule = options.body ?? { accept: [...declared.map(([type]) => formatOfMediaType(type)), 'none'] };
  const hook = (options.hook ?? app.defaultHook) as InputHook | undefined;
  const validBody: MiddlewareHandler<Env> = async (c, next) => {
    const value = await readBody(c, rule);
    const result = await schema.safeParseAsync(value);
    if (!result.success) {
      const answered = await hook?.({ success: false, error: result.error, data: value }, c);
      if (answered instanceof Response) return answered;
      throw validationError(result.error);
    }
    c.req.addValidatedData('json', result.data as object);
    c.req.addValidatedData('form', result.data as object);
    await next();
  };
  const before = middleware === undefined ? [] : [middleware].flat();
  app.openapi(
    { ...route, hide: true, request: { ...route.request, body: undefined }, middleware: [...before, validBody] },
    handler as never,
    options.hook as never,
  );
}

/** Every success of the management and data API: the Usergrid envelope (described loosely). */
export const EnvelopeSchema = z
  .object({
    action: z.string(),
    entities: z.array(z.unknown()),
    timestamp: z.number(),
    duration: z.number(),
  })
  .passthrough()
  .openapi('Envelope');

export const ErrorSchema = z
  .object({
    error: z.string(),
    error_description: z.string(),
    code: z.number(),
    message: z.string(),
    fields: z.record(z.string(), z.string()),
    timestamp: z.number(),
    duration: z.number(),
  })
  .openapi('Error');

export function responses(description: string) {
  return {
    200: { description, content: { 'application/json': { schema: EnvelopeSchema } } },
    default: { description: 'Error', content: { 'application/json': { schema: ErrorSchema } } },
  };
}
