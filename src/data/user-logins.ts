/**
 * The sign-in names of app users (table app_user_logins): username and email share one
 * case-insensitive namespace per application, so a username can never equal another user's
 * email (docs/api.md#entities: users are unique by username and by email).
 */
import { and, eq } from 'drizzle-orm';

import { DuplicateUniqueProperty } from '../errors.js';
import { type Tx, schemaOf } from '../db/open.js';
import { first } from '../db/run.js';

export interface UserLogins {
  username: string;
  email?: string;
}

/** The user (uuid) who signs in with `login`, a username or an email, in any case. */
export async function findUserUuidByLogin(tx: Tx, appUuid: string, login: string): Promise<string | undefined> {
  const { appUserLogins } = schemaOf(tx);
  return (
    await first(
      tx
        .select({ userUuid: appUserLogins.userUuid })
        .from(appUserLogins)
        .where(and(eq(appUserLogins.appUuid, appUuid), eq(appUserLogins.loginKey, login.toLowerCase()))),
    )
  )?.userUuid;
}

/**
 * Makes `logins` the sign-in names of the user. @throws AppError
 * `duplicate_unique_property_exists` (400) naming the field when another user holds one.
 */
export async function writeUserLogins(tx: Tx, appUuid: string, userUuid: string, logins: UserLogins): Promise<void> {
  const { appUserLogins } = schemaOf(tx);
  const keys: { kind: 'username' | 'email'; value: string }[] = [{ kind: 'username', value: logins.username }];
  if (logins.email !== undefined) keys.push({ kind: 'email', value: logins.email });
  for (const { kind, value } of keys) {
    const holder = await findUserUuidByLogin(tx, appUuid, value);
    if (holder !== undefined && holder !== userUuid) {
      throw DuplicateUniqueProperty(`${kind} '${value}' is already taken by another user`, { fields: { [kind]: 'already taken' } });
    }
  }
  await tx.delete(appUserLogins).where(eq(appUserLogins.userUuid, userUuid));
  for (const { kind, value } of keys) {
    await tx.insert(appUserLogins).values({ appUuid, loginKey: value.toLowerCase(), kind, userUuid }).onConflictDoNothing();
  }
}
