/**
 * The Usergrid response envelope (docs/api.md#envelope) wrapped around every success of the
 * management and data API.
 */
import type { Context } from 'hono';
import type { Env } from './env.js';
import { TextCache } from '../src/db/driver.js';
// Query parameters that carry secrets never echo back in `params`.
import { SECRET_PARAMS } from './request-input.js';

export interface EnvelopeInput {
  action: string;
  entities?: unknown[];
  organization?: { name: string; uuid: string };
  application?: { name: string; uuid: string };
  count?: boolean;
  cursor?: string;
  /** Extra top-level members such as Usergrid's `data` or `credentials`. */
  extra?: Record<string, unknown>;
  /**
   * `path` and `uri` when they are not the request's own: the data API answers with the path
   * inside the application, as Usergrid did (server/routes/data/request.ts `dataLocation`).
   */
  location?: { path: string; uri: string };
}

/** The parts of the request's URL that answers show. */
export interface RequestUrl {
  readonly origin: string;
  readonly pathname: string;
  readonly searchParams: URLSearchParams;
}

/** Origins by the scheme and authority they were read from; bounded, as Host is the caller's. */
const origins = new TextCache<string>(64);
const originOf = (authority: string): string => origins.get(authority, (text) => new URL(text).origin);

/** A request URL's parts, cut out of its text; the query is parsed when first asked for. */
class SlicedUrl implements RequestUrl {
  #searchParams: URLSearchParams | undefined;

  constructor(
    readonly origin: string,
    readonly pathname: string,
    private readonly search: string,
  ) {}

  get searchParams(): URLSearchParams {
    return (this.#searchParams ??= new URLSearchParams(this.search));
  }
}

/**
 * The parts of a request URL as WHATWG URL gives them, found by position. hono's request URL
 * is already normalized (a URL's href: @hono/node-server builds it so, undici's Request too),
 * so its path starts at the first slash after the authority and runs to `?` or `#`. Only the
 * origin, which drops userinfo and a default port, goes through URL — once per authority: a
 * full parse of every request URL was 3% of a data request.
 */
export function parseRequestUrl(href: string): RequestUrl {
  const authority = /^https?:\/\/[^/?#]*/i.exec(href)?.[0];
  const pathStart = authority?.length ?? -1;
  if (authority === undefined || href[pathStart] !== '/') return new URL(href);
  let end = href.indexOf('#', pathStart);
  if (end === -1) end = href.length;
  const query = href.indexOf('?', pathStart);
  const pathEnd = query !== -1 && query < end ? query : end;
  return new SlicedUrl(originOf(authority), href.slice(pathStart, pathEnd), pathEnd < end ? href.slice(pathEnd + 1, end) : '');
}

/** The request's URL, read once per request however many parts of the answer ask for it. */
export function urlOf(c: Context<Env>): RequestUrl {
  let url = c.get('url');
  if (url === undefined) c.set('url', (url = parseRequestUrl(c.req.url)));
  return url;
}

export function envelope(c: Context<Env>, input: EnvelopeInput) {
  const url = urlOf(c);
  const params: Record<string, string[]> = {};
  for (const [name, value] of url.searchParams) {
    if (SECRET_PARAMS.has(name)) continue;
    (params[name] ??= []).push(value);
  }
  const now = Date.now();
  const entities = input.entities ?? [];
  return {
    action: input.action,
    ...(input.application && { application: input.application.uuid, applicationName: input.application.name }),
    params,
    path: input.location?.path ?? url.pathname,
    uri: input.location?.uri ?? `${url.origin}${url.pathname}`,
    entities,
    ...(input.count && { count: entities.length }),
    ...(input.cursor && { cursor: input.cursor }),
    ...input.extra,
    timestamp: now,
    duration: now - c.get('startedAt'),
    ...(input.organization && { organization: input.organization.name }),
  };
}

/**
 * A member of `entities` already serialized (server/routes/data/views.ts keeps the text of an
 * entity the read cache shares). `ok` puts the text in as it is; anything else that serializes
 * one gets the value back through toJSON.
 */
export class JsonText {
  constructor(readonly text: string) {}

  toJSON(): unknown {
    return JSON.parse(this.text);
  }
}

const ENTITIES_KEY = '"entities":[';

/**
 * The envelope as JSON, with the texts of JsonText entities put in unchanged. The envelope is
 * serialized with no entities, and the entities go between the brackets of its first
 * `"entities":[]`: the members before `entities` are strings (whose quotes JSON escapes) and
 * `params`, whose arrays are never empty, so that first one is the envelope's own.
 */
function splice(body: ReturnType<typeof envelope>): string {
  const text = JSON.stringify({ ...body, entities: [] });
  const at = text.indexOf(`${ENTITIES_KEY}]`) + ENTITIES_KEY.length;
  const entities = body.entities.map((entity) => (entity instanceof JsonText ? entity.text : JSON.stringify(entity))).join(',');
  return `${text.slice(0, at)}${entities}${text.slice(at)}`;
}

function jsonAnswer(c: Context<Env>, body: ReturnType<typeof envelope>) {
  return c.json(body, 200);
}

/** A 200 response with the envelope: the one way routes answer success. */
export function ok(c: Context<Env>, input: EnvelopeInput) {
  const body = envelope(c, input);
  if (!body.entities.some((entity) => entity instanceof JsonText)) return jsonAnswer(c, body);
  // The same answer with the kept texts spliced in (hono types a response by how it was made).
  return c.body(splice(body), 200, { 'Content-Type': 'application/json' }) as unknown as ReturnType<typeof jsonAnswer>;
}
