/**
 * The security headers of every response: hono's secureHeaders defaults with X-Frame-Options
 * DENY and without Cross-Origin-Resource-Policy (the API is meant to be called from other
 * origins); pages add their own Content-Security-Policy (and X-Frame-Options again, so a page
 * is safe wherever it is served from).
 *
 * They are added by Node's response itself, when its head is written, to the headers hono
 * writes; a header hono (or anything before it) sets wins over the default of the same name, and
 * no header is sent twice. Set through hono instead — on the context, or on the finished response
 * as hono's own middleware does — they turn every response's headers into a web Headers object,
 * validated and sorted entry by entry and converted back for Node: measured, that was 5–8% of
 * the CPU time of a data request. Set with `setHeader` on each new response, they cost another
 * 5%: each call validates and stores its header, and hono's own then take Node's slow path of
 * merging into those.
 *
 * The fast path for the security headers, so measured on 2026-11-24 against hono's own
 * `secureHeaders({ xFrameOptions: 'DENY', crossOriginResourcePolicy: false, overwrite: false })`
 * (`get-entity` scenario, 5 interleaved pairs, docs/benchmarks.md#speed-ups-and-their-figures):
 * 80 vs 95 µs CPU per request, 7,983 vs 7,027 req/s. Only server/serve.ts makes such a server.
 * A request that does not come through one (`app.request()` in a test, another runtime) gets
 * the same headers, by the same rule, from `secureHeadersElsewhere` in the app's first
 * middleware: a test sees what a client sees.
 *
 * Strict-Transport-Security is sent only by a server whose issuer is https: a browser ignores it
 * over plain http (RFC 6797 8.1), and a server published over http has no https to pin.
 */
import {
  createServer,
  ServerResponse,
  type IncomingMessage,
  type OutgoingHttpHeader,
  type OutgoingHttpHeaders,
  type RequestListener,
  type Server,
} from 'node:http';
import type { Context, MiddlewareHandler } from 'hono';
import type { Env } from '../env.js';

export const SECURE_HEADERS: readonly (readonly [string, string])[] = [
  ['Cross-Origin-Opener-Policy', 'same-origin'],
  ['Origin-Agent-Cluster', '?1'],
  ['Referrer-Policy', 'no-referrer'],
  ['Strict-Transport-Security', 'max-age=15552000; includeSubDomains'],
  ['X-Content-Type-Options', 'nosniff'],
  ['X-DNS-Prefetch-Control', 'off'],
  ['X-Download-Options', 'noopen'],
  ['X-Frame-Options', 'DENY'],
  ['X-Permitted-Cross-Domain-Policies', 'none'],
  ['X-XSS-Protection', '0'],
];

const HSTS = 'strict-transport-security';
const CACHE_CONTROL = 'cache-control';

type Default = { name: string; key: string; value: string };

const WITH_HSTS: readonly Default[] = SECURE_HEADERS.map(([name, value]) => ({ name, key: name.toLowerCase(), value }));
const WITHOUT_HSTS = WITH_HSTS.filter(({ key }) => key !== HSTS);

type GivenHeaders = OutgoingHttpHeaders | OutgoingHttpHeader[];

/** The headers `writeHead` was given (an object, a flat list, or a list of pairs) as a flat list of names and values. */
function flatten(headers: GivenHeaders | undefined): OutgoingHttpHeader[] {
  if (headers === undefined || headers === null) return [];
  if (!Array.isArray(headers)) {
    const flat: OutgoingHttpHeader[] = [];
    for (const name in headers) flat.push(name, headers[name] as OutgoingHttpHeader);
    return flat;
  }
  return Array.isArray(headers[0]) ? (headers as unknown as OutgoingHttpHeader[][]).flat() : headers;
}

/** Node's response, writing its head with every one of `defaults` the response has not set itself. */
function secureResponse(defaults: readonly Default[]) {
  return class SecureResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
    /** Set by `answerNoStore`: the head gets `Cache-Control: no-store` unless it has a Cache-Control of its own. */
    declare noStore?: boolean;

    override writeHead(statusCode: number, reason?: string | GivenHeaders, headers?: GivenHeaders): this {
      const message = typeof reason === 'string' ? reason : undefined;
      const own = flatten(typeof reason === 'string' ? headers : reason);
      const ownKeys: string[] = [];
      for (let index = 0; index < own.length; index += 2) ownKeys.push(String(own[index]).toLowerCase());
      const merged: OutgoingHttpHeader[] = [];
      for (const { name, key, value } of defaults) {
        if (!ownKeys.includes(key) && !this.hasHeader(key)) merged.push(name, value);
      }
      if (this.noStore === true && !ownKeys.includes(CACHE_CONTROL) && !this.hasHeader(CACHE_CONTROL)) merged.push('Cache-Control', 'no-store');
      for (const entry of own) merged.push(entry);
      return message === undefined ? super.writeHead(statusCode, merged) : super.writeHead(statusCode, message, merged);
    }
  };
}

const WITH_HSTS_RESPONSE = secureResponse(WITH_HSTS);
const WITHOUT_HSTS_RESPONSE = secureResponse(WITHOUT_HSTS);

type SecureResponse = InstanceType<typeof WITH_HSTS_RESPONSE>;

/** Whether Node's response `outgoing` adds the headers itself (a server made by createSecureServer). */
const addsHeadersItself = (outgoing: unknown): outgoing is SecureResponse =>
  outgoing instanceof WITH_HSTS_RESPONSE || outgoing instanceof WITHOUT_HSTS_RESPONSE;

/**
 * The answer to this request is `Cache-Control: no-store` unless it sets a Cache-Control of its
 * own (docs/api.md#caching). Said to Node's response where it adds the headers itself: set on
 * the context instead, the header alone makes hono build a web Headers object for the answer,
 * which measured +9% instructions per request on `get-entity` (callgrind, 1,000 sequential
 * requests: 1,567k without the header, 1,706k with it through the context).
 */
export function answerNoStore(c: Context<Env>): void {
  const outgoing = c.env?.outgoing;
  if (addsHeadersItself(outgoing)) outgoing.noStore = true;
  else c.header('Cache-Control', 'no-store');
}

/**
 * Hono middleware giving the same headers, by the same rule (a header the response set itself
 * wins), to every response whose request did not come through createSecureServer.
 */
export function secureHeadersElsewhere({ hsts }: { hsts: boolean }): MiddlewareHandler<Env> {
  const defaults = hsts ? WITH_HSTS : WITHOUT_HSTS;
  return async (c, next) => {
    await next();
    if (addsHeadersItself(c.env?.outgoing)) return;
    const headers = c.res.headers;
    for (const { key, value } of defaults) if (!headers.has(key)) headers.set(key, value);
  };
}

/** Strict-Transport-Security is said only by a server whose issuer is https. */
export const sendsHsts = (issuer: string | undefined) => issuer?.startsWith('https:') === true;

/**
 * An HTTP server for `listener` (hono's, through @hono/node-server) giving every response the
 * headers, Strict-Transport-Security among them when `hsts`. Without Node's time limit for a whole
 * request, which would cut a long bulk import: the listener holds bodies to its own (body-time.ts).
 */
export function createSecureServer(listener: RequestListener, { hsts }: { hsts: boolean }): Server {
  return createServer({ ServerResponse: hsts ? WITH_HSTS_RESPONSE : WITHOUT_HSTS_RESPONSE, requestTimeout: 0 }, listener);
}
