import type { MiddlewareHandler } from 'hono';
import type { Env } from '../env.js';
import { GUEST } from '../../src/access/principal.js';

/** Decides who is calling, once per request, before any route runs. */
export function principal(): MiddlewareHandler<Env> {
  return async (c, next) => {
    c.set('principal', GUEST);
    await next();
  };
}
