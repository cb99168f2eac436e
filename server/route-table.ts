/**
 * The route table: the server is a list of areas, each mounted at its own URL prefix with the
 * middleware its routes share (find the organization, check access, …), and one rule that
 * decides which route answers a request, whatever order the areas are listed in.
 *
 * hono tries routes in the order they were registered. So the table registers them most
 * specific first, as find-my-way (Fastify) and Go's ServeMux decide: at the first path segment
 * where two patterns differ, a fixed segment beats a parameter, a parameter beats the end of the
 * path, and the end beats a wildcard. `/management/orgs/{orgId}` therefore wins over the data
 * API's `/{orgId}/{appId}/{collection}`, and `/{orgId}/{appId}/users/resetpw` over
 * `/{orgId}/{appId}/{collection}/{entityId}`, with no list of reserved names anywhere. Two route
 * modules that declare the same shape for the same method are a startup error, not a silent
 * shadow. An area whose prefix starts with a fixed segment owns everything below it: a path
 * there that no route matches is a plain 404, never passed on to the data API.
 *
 * Paths are written as /openapi.json shows them (`{name}` parameters), everywhere.
 */
import type { Hono, MiddlewareHandler } from 'hono';
import type { Env } from './env.js';
import { router } from './openapi.js';
import { NotFound } from '../src/errors.js';

type Router = ReturnType<typeof router>;
type Handler = MiddlewareHandler<Env>;

/** The routes of one file, registered relative to the prefix of the area they join. */
export interface RouteModule {
  /** The file that declares them, from the repository's root (printed by `idp routes`). */
  readonly file: string;
  register(app: Router): void;
}

export function defineRoutes(file: string, register: (app: Router) => void): RouteModule {
  return { file, register };
}

export interface Area {
  /** Where the area is mounted, e.g. `/management/orgs/{orgId}`. */
  readonly prefix: string;
  /** Run, in order, before each route of the area (and only its routes). */
  readonly middleware?: readonly Handler[];
  readonly routes: readonly RouteModule[];
}

/** One route of the table: a method, a full path, the file that declares it, and its handlers. */
export interface Route {
  readonly method: string;
  readonly path: string;
  readonly file: string;
  readonly handlers: readonly Handler[];
}

/** `{name}` → hono's `:name`. */
export function honoPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1');
}

/** `:name` → `{name}`, as /openapi.json and this table write parameters. */
export function documentedPath(path: string): string {
  return path.replace(/:(\w+)(\{[^}]*\})?/g, '{$1}');
}

const LITERAL = 0;
const PARAMETER = 1;
const END = 2;
const WILDCARD = 3;

function rankOf(segment: string | undefined): number {
  if (segment === undefined) return END;
  if (segment === '*') return WILDCARD;
  return segment.startsWith(':') ? PARAMETER : LITERAL;
}

/** Negative when `a` is more specific than `b` (module comment); 0 when neither is. */
export function compareSpecificity(a: string, b: string): number {
  const left = a.split('/').slice(1);
  const right = b.split('/').slice(1);
  for (let index = 0; index < Math.max(left.length, right.length); index++) {
    const difference = rankOf(left[index]) - rankOf(right[index]);
    if (difference !== 0) return difference;
    if (left[index] === undefined) break;
  }
  return 0;
}

/** The shape two patterns share when one URL could match both: literals kept, parameters alike. */
function shapeOf(path: string): string {
  return path.replace(/:[^/]+/g, ':');
}

/**
 * Every route of every area, with the area's middleware in front of each, collected (and
 * documented) on `documented` — most specific first.
 */
function collectRoutes(areas: readonly Area[], documented: Router): Route[] {
  const routes: Route[] = [];
  const owned = new Set<string>();
  for (const area of areas) {
    const enter = enterArea(area);
    for (const module of area.routes) {
      const own = router();
      module.register(own);
      const first = documented.routes.length;
      // OpenAPIHono's route() prefixes both the routes and their /openapi.json entries.
      documented.route(honoPath(area.prefix), own as unknown as Hono<Env>);
      // hono keeps one entry per handler: consecutive entries of one method and path are one route.
      for (const entry of documented.routes.slice(first)) {
        const last = routes.at(-1);
        if (last !== undefined && last.file === module.file && last.method === entry.method && last.path === entry.path) {
          (last.handlers as Handler[]).push(entry.handler as Handler);
        } else {
          routes.push({ method: entry.method, path: entry.path, file: module.file, handlers: [...enter, entry.handler as Handler] });
        }
      }
    }
    if (rankOf(honoPath(area.prefix).split('/')[1]) === LITERAL && !owned.has(area.prefix)) {
      // One catch-all per fixed prefix, however many areas share it.
      owned.add(area.prefix);
      routes.push(ownedRest(area.prefix));
    }
  }
  refuseAmbiguity(routes);
  // Array.prototype.sort is stable: routes of one shape keep their order (a 405 after the methods).
  return routes.sort((a, b) => compareSpecificity(a.path, b.path));
}

/**
 * The area's middleware as one step that runs once per request: a route that passes a request
 * on (`next()`) to another route of the same area does not find the caller and the application
 * again.
 */
function enterArea(area: Area): Handler[] {
  const chain = area.middleware ?? [];
  if (chain.length === 0) return [];
  const enter: Handler = async (c, next) => {
    if (c.get('area') === area) return next();
    c.set('area', area);
    const step = async (index: number): Promise<void> => {
      if (index === chain.length) return next();
      const answered = await chain[index](c, () => step(index + 1));
      if (answered instanceof Response) c.res = answered;
    };
    await step(0);
  };
  return [enter];
}

/** Anything below a fixed prefix that no route of its area matched. */
function ownedRest(prefix: string): Route {
  const notFound: Handler = () => {
    throw NotFound('no such resource');
  };
  return { method: 'ALL', path: `${honoPath(prefix)}/*`, file: 'server/route-table.ts', handlers: [notFound] };
}

function refuseAmbiguity(routes: readonly Route[]): void {
  const owners = new Map<string, Route>();
  for (const route of routes) {
    const key = `${route.method} ${shapeOf(route.path)}`;
    const other = owners.get(key);
    if (other !== undefined && other.file !== route.file) {
      throw new Error(
        `route table: ${route.method} ${documentedPath(route.path)} (${route.file}) and ${documentedPath(other.path)} (${other.file}) match the same requests`,
      );
    }
    owners.set(key, route);
  }
}

/**
 * Registers every area's routes on `app`, most specific first. Returns the router that holds
 * their /openapi.json entries (with their full paths), for the document to be generated from.
 */
export function mountAreas(app: Router, areas: readonly Area[]): Router {
  const documented = router();
  for (const route of collectRoutes(areas, documented)) app.on([route.method], [route.path], ...(route.handlers as [Handler, ...Handler[]]));
  return documented;
}

/** The table as `idp routes` prints it: method, path (as documented) and the declaring file. */
export function listRoutes(areas: readonly Area[]): { method: string; path: string; file: string }[] {
  return collectRoutes(areas, router()).map((route) => ({ method: route.method, path: documentedPath(route.path), file: route.file }));
}

/** An absolute path that other code also builds URLs from, relative to the area at `prefix`. */
export function within(prefix: string, path: string): string {
  if (!path.startsWith(`${prefix}/`)) throw new Error(`route table: ${path} is not under ${prefix}`);
  return path.slice(prefix.length);
}
