/**
 * Dot segments and encoded separators are refused before routing (docs/api.md#paths). A
 * segment `.` or `..`, raw or percent-encoded in any case (`%2e%2e`, `.%2E`), is resolved by
 * every URL parser on the way (RFC 3986 5.2.4, and the WHATWG URL that hono and
 * @hono/node-server build the request from), so `…/dogs/victim/likes/%2e%2e` would reach
 * `…/dogs/victim` and a rule or proxy that allows by path prefix could be escaped. An encoded
 * `/`, `\` or NUL inside a segment would reach a handler as part of a name. Each is
 * `400 invalid_path`. A doubly encoded one (`%252e`) decodes once, to the text `%2e`: allowed.
 *
 * Read from the request target as the client sent it, which Node keeps (`incoming.url`): the URL
 * of the web Request has had its dot segments resolved already. Without Node (app.request()),
 * the Request's URL is all there is; its dot segments were resolved by whoever built it.
 */
import type { RequestListener } from 'node:http';
import type { Context } from 'hono';
import type { Env } from '../env.js';
import { errorBody } from '../errors.js';
import { InvalidPath } from '../../src/errors.js';

/**
 * A whole segment of one or two dots, each raw or `%2e`; or `%2F`, `%5C`, `%00`. (A raw `\`
 * never gets here: see refusingRawBackslash.)
 */
const INVALID_PATH = /\/(?:\.|%2e){1,2}(?=\/|$)|%(?:2f|5c|00)/i;

/** The path of a request target (`/a/b?q`) or of an absolute URL: what precedes `?` or `#`. */
function pathOf(target: string): string {
  const start = target.startsWith('/') ? 0 : target.indexOf('/', target.indexOf('//') + 2);
  if (start === -1) return '';
  const path = target.slice(start);
  const end = path.search(/[?#]/);
  return end === -1 ? path : path.slice(0, end);
}

/** Whether a path (as sent, still percent-encoded) holds a dot segment or an encoded separator. */
export function isInvalidPath(path: string): boolean {
  return INVALID_PATH.test(path);
}

/** Throws `400 invalid_path` when the request's path holds a dot segment or an encoded separator. */
export function refuseInvalidPath(c: Context<Env>): void {
  const found = INVALID_PATH.exec(pathOf(c.env?.incoming?.url ?? c.req.url));
  if (found === null) return;
  throw InvalidPath(`the path may not hold a . or .. segment, nor an encoded /, \\ or NUL (found '${found[0]}')`);
}

/**
 * Node's request listener `listener`, but a request target whose path holds a raw `\` is
 * `400 invalid_path` too: a URL parser reads it as `/`, and @hono/node-server, which would not
 * make such a target a web Request, answers a bare 400 without the error body.
 */
export function refusingRawBackslash(listener: RequestListener): RequestListener {
  return (incoming, outgoing) => {
    const target = incoming.url ?? '';
    if (!target.includes('\\') || !pathOf(target).includes('\\')) return listener(incoming, outgoing);
    const body = JSON.stringify(errorBody(InvalidPath('the path may not hold a \\'), undefined));
    outgoing.writeHead(400, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
    outgoing.end(body);
  };
}
