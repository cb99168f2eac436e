/**
 * The roles every new application starts with (docs/api.md#permissions), as Apache Usergrid
 * created them: `admin`, `default` and `guest`. They are ordinary roles afterwards: an app's
 * admins may edit their permissions, so the storage layer copies these into each new app and
 * reads them back from there, never from this constant.
 */
import type { Caller } from './permissions.js';

export interface DefaultRole {
  readonly name: DefaultRoleName;
  readonly title: string;
  readonly permissions: readonly string[];
}

export type DefaultRoleName = 'admin' | 'default' | 'guest';

/** Applies to every signed-in app user, whether or not it was ever assigned (Usergrid's `default`). */
export const SIGNED_IN_ROLE = 'default' satisfies DefaultRoleName;

/** Applies to every request without a token (Usergrid's `guest`). */
export const GUEST_ROLE = 'guest' satisfies DefaultRoleName;

export const DEFAULT_ROLES: readonly DefaultRole[] = Object.freeze([
  role('admin', 'Administrator', ['get,put,post,delete:/**']),
  // A signed-in user may read the whole app and change only their own entity and what hangs
  // under it (devices, activities, connections).
  role('default', 'Default', ['get,put,post,delete:/users/me/**', 'get:/**']),
  // Without a token one may only sign up and register a device for push, and update a device
  // by its id; no reads at all.
  role('guest', 'Guest', ['post:/users', 'post:/devices', 'put:/devices/*']),
]);

/**
 * The role that applies to a caller without being assigned: `default` for an app user (who has
 * a uuid or a username), `guest` for a request without a token.
 */
export function implicitRoleName(caller: Caller): typeof SIGNED_IN_ROLE | typeof GUEST_ROLE {
  return caller.uuid || caller.username ? SIGNED_IN_ROLE : GUEST_ROLE;
}

function role(name: DefaultRoleName, title: string, permissions: string[]): DefaultRole {
  return Object.freeze({ name, title, permissions: Object.freeze(permissions) });
}
