/**
 * The one way the CLI talks HTTP: undici with a keep-alive Agent (a command that follows cursors
 * or applies fixtures makes many requests to one origin), bounded time-outs, and failures turned
 * into messages a person can act on instead of a stack trace.
 */
import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Agent, FormData, request } from 'undici';
import { NetworkError, ServerError, UsageError } from './errors.js';

/** Connecting to a local or LAN server takes milliseconds; ten seconds means it is not there. */
const CONNECT_TIMEOUT_MS = 10_000;
/** Bulk operations (an app delete, a large page) may take a while, but not forever. */
const RESPONSE_TIMEOUT_MS = 60_000;
/** Shorter than the server's idle timeout, so a reused socket is never one the server closed. */
const KEEP_ALIVE_MS = 4_000;

export interface HttpRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  query?: Record<string, string | number | undefined>;
  json?: unknown;
  form?: Record<string, string | undefined>;
  token?: string;
  headers?: Record<string, string>;
  /** A file sent as the one file of a multipart/form-data body, read as it is sent. */
  file?: { field: string; blob: Blob; filename: string };
  /**
   * A body sent as it is made, of this content type (the bulk import, docs/api.md#bulk-import):
   * sent once, never again, and the answer awaited without a time limit, as the server answers
   * only once it has read the whole body.
   */
  stream?: { contentType: string; body: AsyncIterable<Uint8Array> };
  /** Where a 2xx answer's body goes, as it arrives, instead of into `text`. */
  saveTo?: Writable;
  /** Gives up on the request when it aborts (shell completion waits two seconds at most). */
  signal?: AbortSignal;
}

export interface HttpResponse {
  status: number;
  /** The parsed JSON body; undefined when the body was not JSON. */
  body: unknown;
  text: string;
  contentType: string;
}

export interface Http {
  readonly baseUrl: string;
  send(req: HttpRequest): Promise<HttpResponse>;
  close(): Promise<void>;
}

export function parseBaseUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`--url '${text}' is not a valid URL (expected something like http://127.0.0.1:8080)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--url '${text}' must start with http:// or https://`);
  return url.href.replace(/\/+$/, '');
}

export function createHttp(baseUrl: string): Http {
  const agent = new Agent({
    keepAliveTimeout: KEEP_ALIVE_MS,
    connect: { timeout: CONNECT_TIMEOUT_MS },
    headersTimeout: RESPONSE_TIMEOUT_MS,
    bodyTimeout: RESPONSE_TIMEOUT_MS,
  });
  return {
    baseUrl,
    async send(req) {
      const url = new URL(baseUrl + req.path);
      for (const [name, value] of Object.entries(req.query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
      const headers: Record<string, string> = { accept: 'application/json', ...req.headers };
      let body: string | FormData | Readable | undefined;
      if (req.stream !== undefined) {
        headers['content-type'] = req.stream.contentType;
        body = Readable.from(req.stream.body);
      } else if (req.file !== undefined) {
        body = new FormData();
        body.append(req.file.field, req.file.blob, req.file.filename);
      } else if (req.json !== undefined) {
        headers['content-type'] = 'application/json';
        body = JSON.stringify(req.json);
      } else if (req.form !== undefined) {
        headers['content-type'] = 'application/x-www-form-urlencoded';
        body = new URLSearchParams(Object.entries(req.form).filter((entry): entry is [string, string] => entry[1] !== undefined)).toString();
      }
      if (req.token) headers.authorization = `Bearer ${req.token}`;
      try {
        const timeouts = req.stream === undefined ? {} : { headersTimeout: 0 };
        const response = await request(url, { method: req.method, headers, body, dispatcher: agent, signal: req.signal, ...timeouts });
        const contentType = String(response.headers['content-type'] ?? '');
        if (req.saveTo !== undefined && response.statusCode >= 200 && response.statusCode < 300) {
          await pipeline(response.body, req.saveTo);
          return { status: response.statusCode, body: undefined, text: '', contentType };
        }
        const text = await response.body.text();
        return { status: response.statusCode, body: parseJson(text, contentType), text, contentType };
      } catch (error) {
        throw networkError(baseUrl, error);
      }
    },
    close: () => agent.close(),
  };
}

function parseJson(text: string, contentType: string): unknown {
  if (!contentType.includes('json')) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const NETWORK_REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused (is `idp serve` running there?)',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  ECONNRESET: 'the connection was reset',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  UND_ERR_CONNECT_TIMEOUT: `no connection within ${CONNECT_TIMEOUT_MS / 1000} s`,
  UND_ERR_HEADERS_TIMEOUT: `no answer within ${RESPONSE_TIMEOUT_MS / 1000} s`,
  UND_ERR_BODY_TIMEOUT: `the answer stalled for ${RESPONSE_TIMEOUT_MS / 1000} s`,
  UND_ERR_SOCKET: 'the connection was closed',
  EPROTO: 'TLS handshake failed (is it really https?)',
};

function networkError(baseUrl: string, error: unknown): NetworkError {
  const code = findCode(error);
  const reason = (code && NETWORK_REASONS[code]) ?? (error instanceof Error ? error.message : String(error));
  return new NetworkError(`cannot reach ${baseUrl}: ${reason}`, error);
}

function findCode(error: unknown): string | undefined {
  for (let current = error; current instanceof Error; current = current.cause) {
    const code = (current as NodeJS.ErrnoException).code;
    if (code) return code;
    // Happy-eyeballs connects fail with an AggregateError whose members carry the code.
    if (current instanceof AggregateError) return findCode(current.errors[0]);
  }
  return undefined;
}

/**
 * A non-2xx answer becomes an error carrying the server's own words; an answer that is not our
 * JSON at all means --url points at something else.
 */
export function errorOf(baseUrl: string, req: HttpRequest, res: HttpResponse): ServerError {
  const body = res.body;
  if (body && typeof body === 'object' && 'error' in body) {
    const { error, error_description: description, message } = body as Record<string, unknown>;
    // No route at all (rather than no such organization, user, …): most likely a wrong --url.
    const hint = res.status === 404 && error === 'not_found' ? `: ${req.method} ${baseUrl}${req.path} (is --url right?)` : '';
    return new ServerError(res.status, String(error), `${String(description ?? message ?? error)}${hint}`, body);
  }
  const what = res.contentType ? res.contentType.split(';')[0] : 'no content type';
  return new ServerError(
    res.status,
    'unexpected_response',
    `${req.method} ${baseUrl}${req.path} answered ${res.status} with ${what}; is ${baseUrl} an idp server?`,
    res.text,
  );
}
