/**
 * App users: entities of the `users` collection, addressed by uuid, username or email, or `me`
 * for the caller (docs/api.md#identifiers). Passwords never enter entity properties: they are
 * hashed into app_user_credentials (src/identity/sign-in/app-user-passwords.ts).
 */
import { EntityNotFound, IllegalArgument } from '../errors.js';
import type { Deps } from '../deps.js';
import type { Tx } from '../db/open.js';
import { hashPassword } from '../passwords.js';
import { storeAppUserPasswordHash, verifyAppUserPassword } from '../identity/sign-in/app-user-passwords.js';
import { confirmCurrentPassword } from '../identity/sign-in/authenticate.js';
import type { LoginContext } from '../identity/sign-in/throttle.js';
import { str } from '../management/schemas.js';
import { findAppPasswordPolicy } from '../management/applications.js';
import { assertPasswordAllowed, type PasswordOwner, type PasswordPolicy } from '../password-policy.js';
import { findEntityByUuid, type EntityRow } from '../db/entity-store.js';
import { findUserUuidByLogin } from './user-logins.js';
import { entityBodies, insertEntityFromBody, type CollectionRef } from './entities.js';

export const USERS: CollectionRef = { name: 'users', type: 'user' };

/** The signed-in app user a request is made by, when there is one. */
export type CallerUuid = string | undefined;

/** A user by uuid, username or email (any case), or `me` for the caller. */
export async function findUserIn(tx: Tx, appUuid: string, id: string, caller: CallerUuid): Promise<EntityRow | undefined> {
  const uuid = id.toLowerCase() === 'me' ? caller : ((await findUserUuidByLogin(tx, appUuid, id)) ?? id);
  const row = uuid === undefined ? undefined : await findEntityByUuid(tx, appUuid, uuid);
  return row?.collection === 'users' ? row : undefined;
}

export async function requireUser(tx: Tx, appUuid: string, id: string, caller: CallerUuid): Promise<EntityRow> {
  const row = await findUserIn(tx, appUuid, id, caller);
  if (row !== undefined) return row;
  const description = id.toLowerCase() === 'me' ? '/users/me names the signed-in app user, and this caller is not one' : `user '${id}' not found`;
  throw EntityNotFound(description, { fields: { user: id } });
}

/** A new password of an app user, as the application's policy allows it, hashed. */
async function hashUserPassword(policy: PasswordPolicy, value: unknown, owner: PasswordOwner, field: string): Promise<string> {
  const parsed = str(field).safeParse(value);
  if (!parsed.success) {
    const message = parsed.error.issues[0]?.message ?? `${field} is invalid`;
    throw IllegalArgument(message, { fields: { [field]: message } });
  }
  return await hashPassword(await assertPasswordAllowed(policy, parsed.data, owner, field));
}

const ownerOf = (properties: Record<string, unknown>, name?: string | null): PasswordOwner => ({
  username: typeof properties.username === 'string' ? properties.username : name,
  email: typeof properties.email === 'string' ? properties.email : undefined,
});

/**
 * CreateUser (one or an array); an optional `password` is hashed into the credentials table.
 * `pendingActivation` (self sign-up under --require-activation): the users start not activated
 * whatever the body says, so a guest cannot skip the mailed link.
 */
export async function createUsers(deps: Deps, appUuid: string, body: unknown, options: { pendingActivation?: boolean } = {}): Promise<EntityRow[]> {
  const items = entityBodies(body);
  const policy = items.some((item) => item.password !== undefined) ? await findAppPasswordPolicy(deps, appUuid) : undefined;
  // Hash before the transaction, which holds the database while it runs.
  const hashes = await Promise.all(
    items.map((item) => (item.password === undefined ? undefined : hashUserPassword(policy!, item.password, ownerOf(item), 'password'))),
  );
  return await deps.db.transaction(async (tx) => {
    const now = deps.now();
    const rows: EntityRow[] = [];
    for (const [i, item] of items.entries()) {
      const { password: _password, ...properties } = item;
      if (options.pendingActivation) properties.activated = false;
      const row = await insertEntityFromBody(tx, appUuid, USERS, properties, now);
      const hash = hashes[i];
      if (hash !== undefined) await storeAppUserPasswordHash(tx, appUuid, row.uuid, hash, now);
      rows.push(row);
    }
    return rows;
  });
}

/**
 * ResetPW: sets a new password. The old one must match unless `trusted` (an administrator of
 * the application or its client calls), as in Usergrid; a wrong one is a password guess, counted
 * and throttled as a sign-in is (confirmCurrentPassword).
 */
export async function changeUserPassword(
  deps: Deps,
  user: EntityRow,
  input: { oldPassword?: string; newPassword: unknown },
  trusted: boolean,
  context: LoginContext,
): Promise<void> {
  const policy = await findAppPasswordPolicy(deps, user.appUuid);
  const hash = await hashUserPassword(policy, input.newPassword, ownerOf(user.properties, user.name), 'newpassword');
  if (!trusted) {
    const old = input.oldPassword;
    if (old === undefined) throw IllegalArgument('oldpassword is required', { fields: { oldpassword: 'required' } });
    await confirmCurrentPassword(deps, { appUuid: user.appUuid }, user, () => verifyAppUserPassword(deps, user.uuid, old), context, 'oldpassword');
  }
  await storeAppUserPasswordHash(deps.db, user.appUuid, user.uuid, hash, deps.now());
}
