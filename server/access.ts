/**
 * Who may call what, decided once per request by the middleware each area of the route table
 * lists (server/app.ts): the caller, then the organization or application the path names and
 * the right to act on it. Rules live in src/access/policy.ts and src/access/app-access.ts. No
 * token → 401; a token without the right → 403.
 */
import type { Context, MiddlewareHandler } from 'hono';
import type { Env } from './env.js';
import { Forbidden, Unauthorized } from '../src/errors.js';
import { findOrganization, type Organization } from '../src/management/organizations.js';
import { findApplication } from '../src/management/applications.js';
import { listAdminOrganizations, type AdminUser } from '../src/management/admin-users.js';
import { isOrganizationAdmin } from '../src/access/policy.js';
import { authorizeAppRequest } from '../src/access/app-access.js';
import { verbOfMethod } from '../src/access/permissions.js';
import { callerOf } from './middleware/principal.js';
import { answerNoStore } from './middleware/secure-headers.js';
import { collectionForWrite } from '../src/data/collections.js';
import type { Tx } from '../src/db/open.js';

function requireSignedIn(c: Context<Env>): void {
  if (c.get('principal').kind === 'guest') {
    throw Unauthorized('an access token is required', { headers: { 'WWW-Authenticate': 'Bearer' } });
  }
}

/** The segments of a path inside the application: `/acme/sandbox/users/me/` → `users`, `me`. */
function segmentsOf(path: string): string[] {
  return path
    .split('/')
    .filter((segment) => segment !== '')
    .slice(2);
}

/** The segments of the path inside the application, as routed (a nested group by its uuid, group-paths.ts). */
export function appSegments(c: Context<Env>): string[] {
  return segmentsOf(c.req.path);
}

/**
 * The collection a first path segment addresses, as the routes resolve it (an existing
 * collection by name or type, else the one a POST would create), so that a permission on
 * `/users/**` holds for `/user/{id}` too. A segment that names no collection stays as it is.
 */
async function collectionOfSegment(tx: Tx, appUuid: string, segment: string): Promise<string> {
  try {
    return (await collectionForWrite(tx, appUuid, decodeURIComponent(segment))).name;
  } catch {
    return segment;
  }
}

/**
 * The path inside the application that permissions are matched against: `/acme/sandbox/user/me`
 * → `/users/me`; a nested group as the client named it (`/groups/company/eng/users`).
 */
async function permissionPath(c: Context<Env>, appUuid: string): Promise<string> {
  const [collection, ...rest] = segmentsOf(c.get('sentPath'));
  if (collection === undefined) return '/';
  return `/${[await collectionOfSegment(c.get('deps').db, appUuid, collection), ...rest].join('/')}`;
}

/**
 * The caller: a bearer token, Usergrid's query-string credentials, or a guest
 * (docs/api.md#principals). Whatever is answered to a caller who is not a guest is theirs alone
 * and may hold a secret (credentials, a client's secret): it is `no-store`, errors included,
 * unless the route sets a Cache-Control of its own (docs/api.md#caching). A shared cache already
 * reuses no answer to a request with an Authorization header (RFC 9111 3.5), but query-string
 * credentials are no such header, and a browser's own cache keeps either.
 */
export const caller: MiddlewareHandler<Env> = async (c, next) => {
  const principal = await callerOf(c);
  c.set('principal', principal);
  if (principal.kind !== 'guest') answerNoStore(c);
  await next();
};

/** `/management/orgs/{orgId}/…`: the organization, whose administrators alone go on. */
export const organizationAdmin: MiddlewareHandler<Env> = async (c, next) => {
  const org = await findOrganization(c.get('deps'), c.req.param('orgId') ?? '');
  await requireOrganizationAccess(c, org);
  c.set('organization', org);
  await next();
};

/** `/management/orgs/{orgId}/apps/{appId}/…`: the application of the organization found before. */
export const managedApplication: MiddlewareHandler<Env> = async (c, next) => {
  const org = c.get('organization');
  c.set('appScope', { org, app: await findApplication(c.get('deps'), org, c.req.param('appId') ?? '') });
  await next();
};

/** `/{orgId}/{appId}/…`: the organization and application, without deciding access yet. */
export const application: MiddlewareHandler<Env> = async (c, next) => {
  const deps = c.get('deps');
  const org = await findOrganization(deps, c.req.param('orgId') ?? '');
  c.set('appScope', { org, app: await findApplication(deps, org, c.req.param('appId') ?? '') });
  await next();
};

/**
 * The data API's permission check (docs/api.md#permissions): the caller's roles, groups and own
 * permissions against the request's verb and its path inside the application.
 */
export const dataAccess: MiddlewareHandler<Env> = async (c, next) => {
  const verb = verbOfMethod(c.req.method);
  // Methods without a Usergrid verb change nothing: their routes answer 405.
  if (verb !== null) {
    const { app } = c.get('appScope');
    // Found only when the caller is held to permissions: administrators skip the collection lookup.
    const authentication = c.get('authentication');
    await authorizeAppRequest(c.get('deps'), { principal: c.get('principal'), app, verb, path: () => permissionPath(c, app.uuid), authentication });
  }
  await next();
};

/** POST /management/orgs and /management/users follow `--signup`. */
export function requireSignup(c: Context<Env>): void {
  if (c.get('deps').config.signup === 'open' || c.get('principal').kind === 'sysadmin') return;
  requireSignedIn(c);
  throw Forbidden('sign-up is closed on this server; ask an administrator');
}

/** Server-wide operations such as key rotation. */
export function requireSysadmin(c: Context<Env>): void {
  requireSignedIn(c);
  if (c.get('principal').kind !== 'sysadmin') throw Forbidden('only a sysadmin may do this');
}

async function requireOrganizationAccess(c: Context<Env>, org: Organization): Promise<void> {
  requireSignedIn(c);
  if (!(await isOrganizationAdmin(c.get('deps'), c.get('principal'), org.uuid))) {
    throw Forbidden(`you are not an administrator of organization '${org.name}'`);
  }
}

/**
 * An admin user's own record: the user themselves and sysadmins may change it; administrators
 * of an organization the user belongs to may read it.
 */
export async function requireAdminUserAccess(c: Context<Env>, user: AdminUser, mode: 'read' | 'write'): Promise<void> {
  requireSignedIn(c);
  const principal = c.get('principal');
  if (principal.kind === 'sysadmin') return;
  if (principal.kind === 'admin' && principal.userUuid === user.uuid) return;
  if (mode === 'read') {
    for (const org of await listAdminOrganizations(c.get('deps'), user.uuid)) {
      if (await isOrganizationAdmin(c.get('deps'), principal, org.uuid)) return;
    }
  }
  throw Forbidden(`you may not ${mode === 'read' ? 'read' : 'change'} admin user '${user.username}'`);
}

/**
 * Deactivating or activating an admin user (docs/api.md#account-state): a sysadmin, or whoever
 * administers every organization the user belongs to (an admin of them all, or the client of
 * the one). An admin of only some cannot lock the user out of the others; a user who belongs to
 * no organization, or a sysadmin, is a sysadmin's to switch. Nobody switches themself.
 */
export async function requireAdminUserSwitch(c: Context<Env>, user: AdminUser): Promise<void> {
  requireSignedIn(c);
  const principal = c.get('principal');
  if ('userUuid' in principal && principal.userUuid === user.uuid) throw Forbidden('you may not deactivate or activate your own account');
  if (principal.kind === 'sysadmin') return;
  const orgs = user.sysadmin ? [] : await listAdminOrganizations(c.get('deps'), user.uuid);
  const administersAll = await Promise.all(orgs.map((org) => isOrganizationAdmin(c.get('deps'), principal, org.uuid)));
  if (orgs.length === 0 || administersAll.includes(false)) {
    throw Forbidden(`only a sysadmin or an administrator of every organization of '${user.username}' may deactivate or activate them`);
  }
}
