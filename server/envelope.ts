/**
 * The Usergrid response envelope (docs/api.md#envelope) wrapped around every success of the
 * management and data API.
 */
import type { Context } from 'hono';
import type { Env } from './env.js';

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

/** The request's URL, read once per request however many parts of the answer ask for it. */
export function urlOf(c: Context<Env>): URL {
  let url = c.get('url');
  if (url === undefined) c.set('url', (url = new URL(c.req.url)));
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

/** A 200 response with the envelope: the one way routes answer success. */
export function ok(c: Context<Env>, input: EnvelopeInput) {
  return c.json(envelope(c, input), 200);
}

/** A 201 response with the envelope, where the API answers a POST so (docs/api.md#second-factors). */
export function created(c: Context<Env>, input: EnvelopeInput) {
  return c.json(envelope(c, input), 201);
}
