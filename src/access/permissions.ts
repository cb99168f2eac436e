/**
 * Usergrid path permissions (docs/api.md#permissions): pure parsing and matching,
 * no I/O. A permission is `"<verbs>:<pattern>"`, e.g. `"get,put:/users/me/**"`, as in Apache
 * Usergrid, which evaluated the pattern with Ant path matching:
 *
 * - path segments are compared one by one, case-insensitively; empty segments (`//`, a trailing
 *   `/`) are ignored;
 * - `*` matches exactly one segment, `**` zero or more (`/users/**` matches `/users` too, and
 *   `/**` matches every path including `/`);
 * - `me` and `${user}` match any request segment that denotes the caller: `me`, the caller's
 *   uuid or the caller's username. Usergrid documents `${user}` as the caller's uuid; `me` is its
 *   `/users/me` alias, which the default role's `/users/me/**` relies on.
 *
 * Only app users and guests are checked here; admin users, org and app clients have full control
 * of an application (docs/api.md#principals) and never reach `isPermitted`.
 */
import { IllegalArgument } from '../errors.js';

export type Verb = 'get' | 'put' | 'post' | 'delete';

/** Canonical order, used by `formatPermission` so equal permissions print identically. */
const VERBS: readonly Verb[] = ['get', 'put', 'post', 'delete'];

export interface Permission {
  readonly verbs: ReadonlySet<Verb>;
  /** Canonical pattern: lower case, one `/` between segments, `/` alone for the root. */
  readonly pattern: string;
  readonly segments: readonly string[];
}

/** An app user (uuid and/or username), or `{}` for a guest: a request without a token. */
export interface Caller {
  uuid?: string;
  username?: string;
}

/**
 * The permission rules that apply to one caller, as the storage layer gathered them: those
 * stored on the user, on each of the user's groups, and on each role that applies (the user's
 * roles, their groups' roles and the implicit `default` or `guest` role, see default-roles.ts).
 * A guest has no user and no groups.
 */
export interface HeldPermissions {
  user: readonly string[];
  groups: readonly (readonly string[])[];
  roles: readonly (readonly string[])[];
}

const ANY_SEGMENT = '*';
const ANY_DEPTH = '**';
const ME = 'me';
const USER_VARIABLE = '${user}';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Parses `"<verbs>:<pattern>"`. Verbs are a comma-separated subset of get, put, post, delete in
 * any order and case, or `*` for all four. An empty verb list is rejected rather than read as
 * "all": a typo must not grant everything.
 *
 * @throws AppError `illegal_argument` (400) naming what is wrong.
 */
export function parsePermission(text: string): Permission {
  const parsed = readPermission(text);
  if (typeof parsed === 'string') {
    throw IllegalArgument(`Invalid permission "${text}": ${parsed}`, { fields: { permission: parsed } });
  }
  return parsed;
}

/** The canonical text of a permission, e.g. `get,put:/users/me/**`; `parsePermission` reads it back. */
export function formatPermission(permission: Permission): string {
  const verbs = VERBS.filter((verb) => permission.verbs.has(verb));
  return `${verbs.join(',')}:${permission.pattern}`;
}

/**
 * Whether any of `permissions` allows `verb` on `path` (relative to the application, e.g.
 * `/users/fred/devices`; a query string is ignored). Stored strings that do not parse are
 * skipped, never thrown: a bad permission saved earlier must not turn requests into 500s.
 * Paths with `.` or `..` segments are refused, since they would not name what the pattern sees.
 */
export function isPermitted(permissions: readonly (string | Permission)[], verb: Verb, path: string, caller: Caller): boolean {
  return permittingRule(permissions, verb, path, caller) !== undefined;
}

/**
 * The first of `permissions` that allows `verb` on `path`, as `isPermitted` decides it, or
 * undefined: what the permission tester shows as the reason of a yes.
 */
export function permittingRule<T extends string | Permission>(permissions: readonly T[], verb: Verb, path: string, caller: Caller): T | undefined {
  const segments = splitRequestPath(path);
  if (segments === null) return undefined;
  const isCaller = callerTest(caller);
  return permissions.find((entry) => {
    const permission = typeof entry === 'string' ? readPermission(entry) : entry;
    return typeof permission !== 'string' && permission.verbs.has(verb) && matchSegments(permission.segments, segments, isCaller);
  });
}

/**
 * The permission verb an HTTP method needs. HEAD reads like GET and PATCH updates like PUT;
 * any other method (OPTIONS, TRACE …) has no Usergrid verb and gets `null`.
 */
export function verbOfMethod(method: string): Verb | null {
  return METHOD_VERBS.get(method.toUpperCase()) ?? null;
}

const METHOD_VERBS: ReadonlyMap<string, Verb> = new Map([
  ['GET', 'get'],
  ['HEAD', 'get'],
  ['PUT', 'put'],
  ['PATCH', 'put'],
  ['POST', 'post'],
  ['DELETE', 'delete'],
]);

/**
 * The effective permissions of a caller: the union of everything granted to the user, their
 * groups and their roles, as Usergrid did (permissions only ever add access; there is no deny).
 * Duplicates are dropped; order is kept so the result reads like its sources.
 */
export function permissionsForCaller(held: HeldPermissions): string[] {
  return [...new Set([...held.user, ...held.groups.flat(), ...held.roles.flat()])];
}

/** A Permission, or the reason the text is not one. */
function readPermission(text: string): Permission | string {
  const trimmed = text.trim();
  if (trimmed === '') return 'it is empty';
  const colon = trimmed.indexOf(':');
  if (colon < 0) return 'expected "<verbs>:<path pattern>"';

  const verbs = readVerbs(trimmed.slice(0, colon));
  if (typeof verbs === 'string') return verbs;

  const pattern = trimmed.slice(colon + 1).trim();
  if (!pattern.startsWith('/')) return 'the path pattern must start with "/"';
  // Usergrid sketched "<verbs>:<path>:<property path>" but never implemented it; refuse it
  // rather than silently granting the whole entity.
  if (pattern.includes(':')) return 'property-level permissions are not supported';

  const segments = pattern
    .toLowerCase()
    .split('/')
    .filter((segment) => segment !== '');
  for (const segment of segments) {
    if (segment.includes('*') && segment !== ANY_SEGMENT && segment !== ANY_DEPTH) {
      return `"${segment}": "*" and "**" must be whole path segments`;
    }
    if (segment.includes('${') && segment !== USER_VARIABLE) {
      return `"${segment}": the only variable is \${user}`;
    }
  }
  return { verbs, pattern: `/${segments.join('/')}`, segments };
}

function readVerbs(text: string): ReadonlySet<Verb> | string {
  const names = text.split(',').map((name) => name.trim().toLowerCase());
  if (names.length === 1 && names[0] === '*') return new Set(VERBS);
  const verbs = new Set<Verb>();
  for (const name of names) {
    const verb = VERBS.find((known) => known === name);
    if (verb === undefined) {
      return name === '' ? 'missing verb (use get, put, post, delete or *)' : `unknown verb "${name}"`;
    }
    verbs.add(verb);
  }
  return verbs;
}

/** Lower-cased, percent-decoded segments of a request path, or null when it has dot segments. */
function splitRequestPath(path: string): string[] | null {
  const pathname = path.split(/[?#]/, 1)[0];
  const segments = pathname
    .split('/')
    .filter((segment) => segment !== '')
    .map((segment) => decodeSegment(segment).toLowerCase());
  return segments.some((segment) => segment === '.' || segment === '..') ? null : segments;
}

/** Decodes like the router does (`%40` is `@`), keeping a malformed escape as written. */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * Tells whether a (lower-case) segment names the caller. A username only counts when the segment is
 * not uuid-shaped: a uuid segment always addresses an entity by id (docs/api.md#identifiers), so
 * someone named after another user's uuid must not gain that user's paths.
 */
function callerTest(caller: Caller): (segment: string) => boolean {
  const uuid = caller.uuid?.toLowerCase() || undefined;
  const username = caller.username?.toLowerCase() || undefined;
  if (uuid === undefined && username === undefined) return () => false;
  return (segment) => segment === ME || segment === uuid || (segment === username && !UUID.test(segment));
}

function matchSegment(pattern: string, segment: string, isCaller: (segment: string) => boolean): boolean {
  if (pattern === ME || pattern === USER_VARIABLE) return isCaller(segment);
  if (pattern === ANY_SEGMENT || pattern === segment) return true;
  // A literal naming the caller (say `/users/fred/**` granted to fred) also covers their `me`.
  return isCaller(pattern) && isCaller(segment);
}

/**
 * Ant-style matching without backtracking: `reachable[j]` says whether the pattern read so far
 * can consume exactly the first j request segments. O(pattern × path), whatever the `**` count.
 */
function matchSegments(pattern: readonly string[], path: readonly string[], isCaller: (segment: string) => boolean): boolean {
  let reachable = path.map(() => false).concat(false);
  reachable[0] = true;
  for (const part of pattern) {
    const next = reachable.map(() => false);
    if (part === ANY_DEPTH) {
      for (let j = 0; j <= path.length; j++) next[j] = reachable[j] || (j > 0 && next[j - 1]);
    } else {
      for (let j = 0; j < path.length; j++) next[j + 1] = reachable[j] && matchSegment(part, path[j], isCaller);
    }
    reachable = next;
  }
  return reachable[path.length];
}
