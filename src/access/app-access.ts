/**
 * The one access decision of the data API (/{org}/{app}/…, docs/api.md#permissions).
 * Administrators of the application (policy.ts) may do everything. Everyone else is held to the
 * Usergrid permissions that apply to them, read from storage on every request so a change takes
 * effect on the very next one:
 *
 * - an app user: the `permissions` property of their user entity, of each group they belong to,
 *   of each role assigned to them or to one of their groups, and of the `default` role;
 * - a guest (no token), or an administrator of another organization: the `guest` role.
 *
 * Roles, users and groups keep their permission rules in the same `permissions` property (a
 * string array, written only through …/permissions endpoints).
 */
import { and, eq, inArray } from 'drizzle-orm';

import { Forbidden, stepUpRequired, Unauthorized, type AppError } from '../errors.js';
import type { Deps } from '../deps.js';
import { type Tx, schemaOf } from '../db/open.js';
import { findEntityByName, findEntityByUuid, type EntityRow } from '../db/entity-store.js';
import { GUEST_ROLE, SIGNED_IN_ROLE } from './default-roles.js';
import { isPermitted, permissionsForCaller, permittingRule, stepUpRule, type Caller, type HeldPermissions, type Permission, type Verb } from './permissions.js';
import { isApplicationAdmin } from './policy.js';
import type { Principal } from '../principal.js';

export interface AppRequest {
  readonly principal: Principal;
  readonly app: { readonly uuid: string; readonly orgUuid: string };
  readonly verb: Verb;
  /**
   * The path inside the application, e.g. `/users/me/devices`; a function when finding it takes
   * a lookup that administrators, who are never held to paths, should not pay for.
   */
  readonly path: string | (() => Promise<string>);
  /**
   * Whether `me` / `${user}` in a permission may match the caller. Off for requests that
   * change who may do what (permissions, role and group membership), so that the default
   * role's `/users/me/**` never lets a user grant themselves more.
   */
  readonly selfMatches?: boolean;
  /** What the caller's token says of its sign-in (RFC 9470), and the scheme it came with (its challenge's). */
  readonly authentication?: Authentication;
}

/** The sign-in behind a token (its `acr` and `auth_time`), and how the token was presented. */
export interface Authentication {
  acr?: string;
  authTime?: number;
  scheme: 'Bearer' | 'DPoP';
}

/**
 * @throws AppError `unauthorized` (401) for a guest or a user who no longer exists, `forbidden`
 * (403) for a signed-in caller without permission.
 */
export async function authorizeAppRequest(deps: Deps, request: AppRequest): Promise<void> {
  const { principal, app } = request;
  if (await isApplicationAdmin(deps, principal, app)) return;
  const { held, caller } = await heldPermissionsOf(deps.db, principal, app.uuid);
  const path = typeof request.path === 'string' ? request.path : await request.path();
  const permissions = permissionsForCaller(held);
  const matching = request.selfMatches === false ? {} : caller;
  const { authentication } = request;
  const signIn = authentication && { acr: authentication.acr, authTime: authentication.authTime, now: Math.floor(deps.now() / 1000) };
  if (isPermitted(permissions, request.verb, path, matching, signIn)) return;
  if (principal.kind === 'guest') throw Unauthorized(`sign in to ${request.verb} ${path}`);
  const stepUp = stepUpRule(permissions, request.verb, path, matching);
  if (stepUp) throw insufficientAuthentication(stepUp, authentication?.scheme ?? 'Bearer', `${request.verb} ${path}`);
  throw Forbidden(`not permitted to ${request.verb} ${path}`);
}

/** RFC 9470 3: what sign-in `rule` wants, in a 401 whose challenge the client can act on (docs/api.md#step-up). */
function insufficientAuthentication(rule: Permission, scheme: Authentication['scheme'], action: string): AppError {
  const wants = [...(rule.acr === undefined ? [] : [`a sign-in of ${rule.acr}`]), ...(rule.maxAge === undefined ? [] : [`at most ${rule.maxAge} seconds old`])];
  const description = `${action} needs ${wants.join(', ')}: sign in again with the acr_values${rule.maxAge === undefined ? '' : ' and max_age'} of the WWW-Authenticate header`;
  return stepUpRequired(description, { acr: rule.acr, maxAge: rule.maxAge, scheme });
}

function permissionsOf(properties: Record<string, unknown> | undefined): string[] {
  const value = properties?.permissions;
  return Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === 'string') : [];
}

async function rolePermissions(tx: Tx, appUuid: string, name: string): Promise<string[]> {
  return permissionsOf((await findEntityByName(tx, appUuid, 'roles', name))?.properties);
}

/** Entities of `collection` that point at any of `targets` through `relation`. */
async function sourcesOf(tx: Tx, collection: string, relation: string, targets: string[]) {
  const { connections, entities } = schemaOf(tx);
  if (targets.length === 0) return [];
  return await tx
    .select({ uuid: entities.uuid, properties: entities.properties })
    .from(connections)
    .innerJoin(entities, eq(entities.uuid, connections.sourceUuid))
    .where(and(inArray(connections.targetUuid, targets), eq(connections.relation, relation), eq(entities.collection, collection)));
}

async function heldPermissionsOf(tx: Tx, principal: Principal, appUuid: string): Promise<{ held: HeldPermissions; caller: Caller }> {
  const guest = { held: { user: [], groups: [], roles: [await rolePermissions(tx, appUuid, GUEST_ROLE)] }, caller: {} };
  if (principal.kind !== 'app-user') return guest;
  if (principal.appUuid !== appUuid) throw Unauthorized('the access token belongs to another application');
  const user = await findEntityByUuid(tx, appUuid, principal.userUuid);
  if (user === undefined || user.collection !== 'users') throw Unauthorized('the user of this access token no longer exists');
  if (user.properties.disabled === true) throw Unauthorized('this user is disabled');
  return userPermissionsOf(tx, appUuid, user);
}

/** What a user holds: their own rules, their groups', their roles' and their groups' roles', and the `default` role's. */
async function userPermissionsOf(tx: Tx, appUuid: string, user: EntityRow): Promise<{ held: HeldPermissions; caller: Caller }> {
  const groups = await sourcesOf(tx, 'groups', 'users', [user.uuid]);
  const roles = [
    ...(await sourcesOf(tx, 'roles', 'users', [user.uuid])),
    ...(await sourcesOf(
      tx,
      'roles',
      'groups',
      groups.map((group) => group.uuid),
    )),
  ];
  return {
    held: {
      user: permissionsOf(user.properties),
      groups: groups.map((group) => permissionsOf(group.properties)),
      roles: [...roles.map((role) => permissionsOf(role.properties)), await rolePermissions(tx, appUuid, SIGNED_IN_ROLE)],
    },
    caller: { uuid: user.uuid, username: user.name ?? undefined },
  };
}

/** The permission tester's answer (docs/api.md#permissions): the decision, the rule that allows, and everything the user holds. */
export interface PermissionCheck {
  permitted: boolean;
  /** The first held rule that allows the request; absent when none does. */
  rule?: string;
  /** A disabled user may do nothing, whatever they hold. */
  disabled: boolean;
  /** The user's effective rules (permissions.ts `permissionsForCaller`). */
  permissions: string[];
}

/**
 * Whether the app user `user` may `verb` on `path`, decided as `authorizeAppRequest` decides the
 * user's own ordinary requests (`me` and `${user}` match them).
 */
export async function checkUserPermission(deps: Deps, user: EntityRow, verb: Verb, path: string): Promise<PermissionCheck> {
  const { held, caller } = await userPermissionsOf(deps.db, user.appUuid, user);
  const permissions = permissionsForCaller(held);
  const disabled = user.properties.disabled === true;
  const rule = disabled ? undefined : permittingRule(permissions, verb, path, caller);
  return { permitted: rule !== undefined, ...(rule !== undefined && { rule }), disabled, permissions };
}
