import type { MiddlewareHandler } from 'hono';
import type { Env } from '../env.js';

/**
 * RFC 6749 5.1: token responses, and their errors, must not be cached. Set before the handler so
 * the headers are on whatever it, or onError, answers.
 */
export function noStore(): MiddlewareHandler<Env> {
  return async (c, next) => {
    c.header('Cache-Control', 'no-store');
    c.header('Pragma', 'no-cache');
    await next();
  };
}
