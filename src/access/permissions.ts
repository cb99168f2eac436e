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
 * A rule may demand how strongly its holder signed in (RFC 9470, docs/api.md#step-up): a suffix
 * `?acr=mfa` (or `pwd`, `phr`, or the full `urn:idp:acr:…` value) and/or `max_age=SECONDS`, joined
 * by `&`, e.g. `get,put:/secrets/**?acr=mfa&max_age=600`. Such a rule grants only to a token whose
 * `acr` is at least that strong and whose sign-in is at most that old; it never takes away what
 * another rule grants. Usergrid never put a `?` in a permission, so its rules read as before.
 *
 * Only app users and guests are checked here; admin users, org and app clients have full control
 * of an application (docs/api.md#principals) and never reach `isPermitted`.
 */
import { IllegalArgument } from '../errors.js';
import { ACR_VALUES, acrRank } from '../acr.js';

export type Verb = 'get' | 'put' | 'post' | 'delete';

/** Canonical order, used by `formatPermission` so equal permissions print identically. */
const VERBS: readonly Verb[] = ['get', 'put', 'post', 'delete'];

export interface Permission {
  readonly verbs: ReadonlySet<Verb>;
  /** Canonical pattern: lower case, one `/` between segments, `/` alone for the root. */
  readonly pattern: string;
  readonly segments: readonly string[];
  /** The weakest `acr` the rule grants to (`?acr=`), a full value of ACR_VALUES. */
  readonly acr?: string;
  /** The oldest sign-in the rule grants to, in seconds (`?max_age=`). */
  readonly maxAge?: number;
}

/** What the caller's token says of the sign-in behind it, and the time now (seconds since the epoch). */
export interface SignIn {
  acr?: string;
  authTime?: number;
  now: number;
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
  const conditions = [
    ...(permission.acr === undefined ? [] : [`acr=${permission.acr}`]),
    ...(permission.maxAge === undefined ? [] : [`max_age=${permission.maxAge}`]),
  ];
  return `${verbs.join(',')}:${permission.pattern}${conditions.length > 0 ? `?${conditions.join('&')}` : ''}`;
}

/** Whether two rules demand the same sign-in (they are then one rule when on one path). */
export function sameConditions(a: Permission, b: Permission): boolean {
  return a.acr === b.acr && a.maxAge === b.maxAge;
}

/**
 * Whether any of `permissions` allows `verb` on `path` (relative to the application, e.g.
 * `/users/fred/devices`; a query string is ignored). Stored strings that do not parse are
 * skipped, never thrown: a bad permission saved earlier must not turn requests into 500s.
 * Paths with `.` or `..` segments are refused, since they would not name what the pattern sees.
 */
export function isPermitted(permissions: readonly (string | Permission)[], verb: Verb, path: string, caller: Caller, signIn?: SignIn): boolean {
  return permittingRule(permissions, verb, path, caller, signIn) !== undefined;
}

/**
 * The first of `permissions` that allows `verb` on `path`, as `isPermitted` decides it, or
 * undefined: what the permission tester shows as the reason of a yes. A rule that demands a
 * sign-in (`?acr=`, `?max_age=`) allows only when `signIn` meets it.
 */
export function permittingRule<T extends string | Permission>(
  permissions: readonly T[],
  verb: Verb,
  path: string,
  caller: Caller,
  signIn?: SignIn,
): T | undefined {
  return findRule(permissions, verb, path, caller, (permission) => meetsConditions(permission, signIn));
}

/**
 * The rule that would allow `verb` on `path` after a stronger or newer sign-in (RFC 9470 3), when
 * none allows it with the sign-in the caller has: the one demanding the least.
 */
export function stepUpRule(permissions: readonly (string | Permission)[], verb: Verb, path: string, caller: Caller): Permission | undefined {
  const candidates = permissions
    .map((entry) => (typeof entry === 'string' ? readPermission(entry) : entry))
    .filter((permission): permission is Permission => typeof permission !== 'string' && (permission.acr !== undefined || permission.maxAge !== undefined));
  const matching = candidates.filter((permission) => findRule([permission], verb, path, caller, () => true) !== undefined);
  return matching.sort((a, b) => acrRank(a.acr) - acrRank(b.acr) || (b.maxAge ?? Infinity) - (a.maxAge ?? Infinity))[0];
}

function meetsConditions(permission: Permission, signIn: SignIn | undefined): boolean {
  if (permission.acr !== undefined && (signIn === undefined || acrRank(signIn.acr) < acrRank(permission.acr))) return false;
  if (permission.maxAge === undefined) return true;
  return signIn?.authTime !== undefined && signIn.now - signIn.authTime <= permission.maxAge;
}

function findRule<T extends string | Permission>(
  permissions: readonly T[],
  verb: Verb,
  path: string,
  caller: Caller,
  granted: (permission: Permission) => boolean,
): T | undefined {
  const segments = splitRequestPath(path);
  if (segments === null) return undefined;
  const isCaller = callerTest(caller);
  return permissions.find((entry) => {
    const permission = typeof entry === 'string' ? readPermission(entry) : entry;
    return typeof permission !== 'string' && permission.verbs.has(verb) && matchSegments(permission.segments, segments, isCaller) && granted(permission);
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

  const [pattern, query] = splitConditions(trimmed.slice(colon + 1).trim());
  const conditions = query === undefined ? {} : readConditions(query);
  if (typeof conditions === 'string') return conditions;
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
  return { verbs, pattern: `/${segments.join('/')}`, segments, ...conditions };
}

/** The pattern, and what follows its `?` (the sign-in the rule demands), if anything. */
function splitConditions(text: string): [string, string | undefined] {
  const mark = text.indexOf('?');
  return mark < 0 ? [text.trimEnd(), undefined] : [text.slice(0, mark).trim(), text.slice(mark + 1).trim()];
}

/** Short names of our `acr` values, as a rule may write them. */
const ACR_NAMES: ReadonlyMap<string, string> = new Map(ACR_VALUES.map((value) => [value.slice(value.lastIndexOf(':') + 1), value]));

/** `acr=…&max_age=…`: the sign-in a rule demands, or the reason it is not one. */
function readConditions(query: string): Pick<Permission, 'acr' | 'maxAge'> | string {
  const conditions: { acr?: string; maxAge?: number } = {};
  for (const part of query.split('&')) {
    const [name, value = ''] = part.split('=', 2).map((piece) => piece.trim());
    if (name === 'acr' && conditions.acr === undefined) {
      const acr = ACR_NAMES.get(value.toLowerCase()) ?? (ACR_VALUES as readonly string[]).find((known) => known === value.toLowerCase());
      if (acr === undefined) return `acr must be one of ${[...ACR_NAMES.keys()].join(', ')} (or ${ACR_VALUES.join(', ')})`;
      conditions.acr = acr;
    } else if (name === 'max_age' && conditions.maxAge === undefined) {
      if (!/^\d{1,9}$/.test(value)) return 'max_age must be a whole number of seconds';
      conditions.maxAge = Number(value);
    } else {
      return `"${part}": after "?" a permission takes acr=… and max_age=…, each once`;
    }
  }
  return conditions;
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
