/** App users' password hashes, kept outside entity properties (schema-identity.ts). */
import { eq } from 'drizzle-orm';

import type { Deps } from '../../deps.js';
import { type Tx, schemaOf } from '../../db/open.js';
import { hashPassword, verifyPassword } from '../../passwords.js';
import { first } from '../../db/run.js';

/** Stores an already hashed password (hash outside the transaction: hashing is slow). */
export async function storeAppUserPasswordHash(tx: Tx, appUuid: string, userUuid: string, passwordHash: string, now: number): Promise<void> {
  const { appUserCredentials } = schemaOf(tx);
  await tx
    .insert(appUserCredentials)
    .values({ userUuid, appUuid, passwordHash, modified: now })
    .onConflictDoUpdate({ target: appUserCredentials.userUuid, set: { passwordHash, modified: now } });
}

export async function setAppUserPassword(deps: Deps, appUuid: string, userUuid: string, password: string): Promise<void> {
  const hash = await hashPassword(password);
  await storeAppUserPasswordHash(deps.db, appUuid, userUuid, hash, deps.now());
}

export async function verifyAppUserPassword(deps: Deps, userUuid: string, password: string): Promise<boolean> {
  const { appUserCredentials } = schemaOf(deps.db);
  const row = await first(deps.db.select().from(appUserCredentials).where(eq(appUserCredentials.userUuid, userUuid)));
  return verifyPassword(password, row?.passwordHash);
}

export async function deleteAppUserPassword(tx: Tx, userUuid: string): Promise<void> {
  const { appUserCredentials } = schemaOf(tx);
  await tx.delete(appUserCredentials).where(eq(appUserCredentials.userUuid, userUuid));
}
