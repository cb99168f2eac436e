/**
 * The request-size limit (413 before parsing), cheap for the common case: a declared
 * Content-Length is checked from the header alone. hono's bodyLimit reads `c.req.raw.body` on
 * every request, which makes @hono/node-server build a full web Request and stream for it: that
 * tripled the CPU cost of a small POST. Bodies without a length (chunked) still go through it.
 */
import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { Env } from '../env.js';
import { PayloadTooLarge } from '../../src/errors.js';

export function limitBodySize(maxSize: number): MiddlewareHandler<Env> {
  const tooLarge = () => {
    throw PayloadTooLarge(`the request body is larger than ${maxSize} bytes`);
  };
  const streaming = bodyLimit({ maxSize, onError: tooLarge });
  return async (c, next) => {
    if (c.req.method === 'GET' || c.req.method === 'HEAD' || c.req.method === 'OPTIONS') return next();
    const length = c.req.header('content-length');
    if (length !== undefined && c.req.header('transfer-encoding') === undefined) {
      if (Number(length) > maxSize) tooLarge();
      return next();
    }
    return streaming(c, next);
  };
}
