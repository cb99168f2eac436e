/**
 * Helpers for declaring routes once: the same zod schema validates the request and describes it
 * in /openapi.json.
 */
import { OpenAPIHono, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { ZodType } from 'zod';
import type { Env } from './env.js';
import { validationError, validationHook } from './errors.js';

/** `strict: false` on the top-level app makes `/users/fred/likes/` the same route as `/users/fred/likes`. */
export function router(options: { strict?: boolean } = {}) {
  return new OpenAPIHono<Env>({ defaultHook: validationHook, ...options });
}

/** A request body accepted as JSON or as a form (Usergrid accepted both). */
export function jsonOrForm<T extends ZodType>(schema: T, description: string) {
  return {
    description,
    content: {
      'application/json': { schema },
      'application/x-www-form-urlencoded': { schema },
    },
  };
}

/**
 * The validated body of a jsonOrForm route. A request without any body is validated as `{}` so
 * missing required fields are reported by name rather than silently accepted.
 */
export function bodyOf<T extends ZodType>(c: Context<Env>, schema: T): z.infer<T> {
  const type = c.req.header('content-type') ?? '';
  const req = c.req as unknown as { valid(target: 'json' | 'form'): unknown };
  if (/^application\/([a-z.-]+\+)?json/i.test(type)) return req.valid('json') as z.infer<T>;
  if (/^(application\/x-www-form-urlencoded|multipart\/form-data)/i.test(type)) return req.valid('form') as z.infer<T>;
  const parsed = schema.safeParse({});
  if (!parsed.success) throw validationError(parsed.error);
  return parsed.data as z.infer<T>;
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
