/**
 * The request-size limit (413), checked before anything reads a body. A declared Content-Length
 * is checked from the header alone. A body without one (chunked) is counted as it is read: the
 * request's body becomes a stream that fails once it passes the limit, so a request refused
 * before its body is read (a bad token) never has it read at all. (hono's bodyLimit reads the
 * whole body first, and on every request makes @hono/node-server build a full web Request: that
 * tripled the CPU cost of a small POST.)
 *
 * A multipart/form-data body may carry a file attached to an entity (docs/api.md#assets): it
 * passes here up to the asset size plus the body limit for its other fields, and whoever reads it
 * holds each part to its own limit (server/multipart.ts, request-input.ts for the forms read whole).
 *
 * An `application/x-ndjson` body (the bulk import, docs/api.md#bulk-import) has no total limit:
 * each of its lines is held to the body limit instead, counted as it is read, and its reader
 * (server/ndjson.ts) answers the failure with the line it happened on. Nor has it a time limit
 * (body-time.ts): it fails with `408 request_timeout` when no byte of it came for the body's
 * time limit while it was waited for.
 */
import type { Context, MiddlewareHandler } from 'hono';
import type { Env } from '../env.js';
import { PayloadTooLarge, RequestTimeout } from '../../src/errors.js';
import { onError } from '../errors.js';
import { bodyFormatOf } from '../request-input.js';

/** The next chunk of `reader`; with `idleMs`, a failure with `408 request_timeout` when none came in that time. */
async function nextChunk(reader: ReadableStreamDefaultReader<Uint8Array>, idleMs: number | undefined): Promise<ReadableStreamReadResult<Uint8Array>> {
  if (idleMs === undefined) return reader.read();
  let timer: NodeJS.Timeout | undefined;
  const idle = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(RequestTimeout(`no byte of the request body came for ${idleMs / 1000} s`));
      reader.cancel().catch(() => undefined);
    }, idleMs);
  });
  try {
    return await Promise.race([reader.read(), idle]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Replaces the request's body by one that passes on the bytes `fits` allows of each chunk (all,
 * or those before the first too many) and then fails with `tooLarge()`, once its reader has read
 * what came before; tells whether it did. With `idleMs`, it fails with `408 request_timeout` once
 * no chunk came for that long.
 */
function guardBody(c: Context<Env>, fits: (chunk: Uint8Array) => number, tooLarge: () => Error, idleMs?: number): () => boolean {
  const reader = c.req.raw.body?.getReader();
  if (reader === undefined) return () => false;
  let exceeded = false;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (exceeded) return controller.error(tooLarge());
      const { done, value } = await nextChunk(reader, idleMs);
      if (done) return controller.close();
      const allowed = fits(value);
      if (allowed === value.byteLength) return controller.enqueue(value);
      exceeded = true;
      await reader.cancel();
      // Erroring now would discard what the reader has not read yet: the next pull fails instead.
      if (allowed > 0) controller.enqueue(value.subarray(0, allowed));
      else controller.error(tooLarge());
    },
    cancel: (reason) => reader.cancel(reason),
  });
  c.req.raw = new Request(c.req.raw, { body, duplex: 'half' } as RequestInit);
  return () => exceeded;
}

/** A body that fails once it passes `maxSize` bytes (guardBody). */
function countBody(c: Context<Env>, maxSize: number, tooLarge: () => Error): () => boolean {
  let size = 0;
  return guardBody(c, (chunk) => ((size += chunk.byteLength) <= maxSize ? chunk.byteLength : 0), tooLarge);
}

/** A body that fails once one of its lines (the bytes between newlines) passes `maxSize` bytes, or none of it came for `idleMs` (guardBody). */
function countLines(c: Context<Env>, maxSize: number, tooLarge: () => Error, idleMs: number): void {
  // Bytes since the last newline.
  let run = 0;
  guardBody(
    c,
    (chunk) => {
      for (let at = 0; at < chunk.byteLength;) {
        const newline = chunk.indexOf(0x0a, at);
        run += (newline === -1 ? chunk.byteLength : newline) - at;
        if (run > maxSize) return at;
        if (newline === -1) break;
        run = 0;
        at = newline + 1;
      }
      return chunk.byteLength;
    },
    tooLarge,
    idleMs,
  );
}

/**
 * The limit as request-wide middleware: a declared length over it is 413 at once; a counted body
 * that passed it makes the answer 413, whatever the reader of the body made of the failure.
 * `limits.body` for every body, `limits.multipart` for a multipart one; `limits.idleMs`, the wait
 * for a bulk import's next chunk.
 */
export function bodySizeLimit(limits: { body: number; multipart: number; idleMs: number }): MiddlewareHandler<Env> {
  return async (c, next) => {
    const method = c.req.method;
    if (method === 'GET' || method === 'HEAD' || method === 'OPTIONS') return next();
    const format = bodyFormatOf(c);
    if (format === 'ndjson') {
      countLines(c, limits.body, () => PayloadTooLarge(`a line of the request body is longer than ${limits.body} bytes`), limits.idleMs);
      return next();
    }
    const maxSize = format === 'multipart' ? limits.multipart : limits.body;
    const tooLarge = () => PayloadTooLarge(`the request body is larger than ${maxSize} bytes`);
    const length = c.req.header('content-length');
    if (length !== undefined && c.req.header('transfer-encoding') === undefined) {
      if (Number(length) > maxSize) throw tooLarge();
      return next();
    }
    const exceeded = countBody(c, maxSize, tooLarge);
    await next();
    if (exceeded()) c.res = onError(tooLarge(), c);
  };
}
