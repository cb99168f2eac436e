/**
 * Nested group paths in URLs (docs/api.md#groups): `/{org}/{app}/groups/company/eng/web/users`
 * names the group `company/eng/web`. The route table's patterns take one segment per entity, so
 * before routing such a request is sent on as `/{org}/{app}/groups/{uuid}/users`: every route of
 * a group (the group itself, members, roles, permissions, activities, feed, connections) then
 * answers for a nested group as for any other. Permissions are still matched against the path as
 * the client sent it (`sentPath`, server/access.ts).
 */
import type { Hono } from 'hono';
import type { Env } from './env.js';
import type { Deps } from '../src/deps.js';
import { findOrganizationIn } from '../src/management/organizations.js';
import { findApplicationIn } from '../src/management/applications.js';
import { findNestedGroup, GROUPS } from '../src/data/group-paths.js';
import { isInvalidPath } from './middleware/path-segments.js';

/** The path each rewritten request had as it was sent. */
const sentPaths = new WeakMap<Request, string>();

/**
 * The path of `request` as the client sent it, when it named a nested group; else undefined.
 * Read by the first middleware (app.ts), which keeps it as `sentPath`.
 */
export function sentPathOf(request: Request): string | undefined {
  return sentPaths.get(request);
}

function decoded(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

/** `request`, or the same request with its nested group path replaced by the group's uuid. */
async function withGroupUuid(deps: Deps, request: Request): Promise<Request> {
  const url = new URL(request.url);
  // '', org, app, groups, then at least two segments of a path.
  const segments = url.pathname.split('/');
  const [, orgSegment, appSegment, collection] = segments;
  if (segments.length < 6 || ![GROUPS, 'group'].includes(collection.toLowerCase())) return request;
  // Left to the route's refusal (400 invalid_path): such a name must never reach the database.
  if (isInvalidPath(url.pathname)) return request;
  const names = segments.slice(4).map(decoded);
  const [orgName, appName] = [decoded(orgSegment), decoded(appSegment)];
  if (names.includes(null) || orgName === null || appName === null) return request;
  const org = await findOrganizationIn(deps.db, orgName);
  const app = org && (await findApplicationIn(deps.db, org, appName));
  const found = app && (await findNestedGroup(deps.db, app.uuid, names as string[]));
  if (!found) return request;
  url.pathname = [...segments.slice(0, 4), found.group.uuid, ...segments.slice(4 + found.length)].join('/');
  const rewritten = new Request(url, {
    method: request.method,
    headers: request.headers,
    body: request.body,
    signal: request.signal,
    // A streamed body (Node's) goes on as it arrives.
    duplex: 'half',
  } as RequestInit);
  sentPaths.set(rewritten, segments.join('/'));
  return rewritten;
}

/** Makes `app` route nested group paths (module comment), whoever calls its fetch: Node's server or app.request(). */
export function routeNestedGroupPaths(app: Hono<Env>, deps: Deps): void {
  const dispatch = app.fetch;
  app.fetch = async (request, ...rest) => dispatch(await withGroupUuid(deps, request), ...rest);
}
