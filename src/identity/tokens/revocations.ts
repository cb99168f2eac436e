/**
 * Revoked access tokens and token families. Access tokens are self-contained JWTs, so revoking
 * one (RFC 7009) or its whole family (refresh-token reuse, a replayed code) leaves a row keyed
 * `jti:<id>` or `gid:<family id>`; verification looks both up in one primary-key query. Rows are
 * dropped once every token they could match has expired.
 */
import { eq, lt, sql } from 'drizzle-orm';

import { preparedFor } from '../../db/prepared.js';
import { remembered, type Tx, schemaOf } from '../../db/open.js';
import { greater } from '../../db/sql.js';
import type { Deps } from '../../deps.js';
import { prepare } from '../../db/run.js';

const revocationLookup = preparedFor((db) => {
  const { tokenRevocations } = schemaOf(db);
  return prepare(
    db
      .select({ key: tokenRevocations.key })
      .from(tokenRevocations)
      .where(sql`${tokenRevocations.key} in (${sql.placeholder('jti')}, ${sql.placeholder('gid')})`),
  );
});

/** One indexed lookup: is this token, or the token family it belongs to, revoked? */
export async function isAccessTokenRevoked(deps: Deps, jti: string, familyId: string | undefined): Promise<boolean> {
  const { tokenRevocations } = schemaOf(deps.db);
  const keys = { jti: `jti:${jti}`, gid: familyId ? `gid:${familyId}` : `jti:${jti}` };
  return remembered(deps.db, `revoked:${keys.jti}:${keys.gid}`, [tokenRevocations], async () => (await revocationLookup(deps.db).get(keys)) !== undefined);
}

async function insertRevocation(tx: Tx, key: string, now: number, expiresAt: number): Promise<void> {
  const { tokenRevocations } = schemaOf(tx);
  await tx.delete(tokenRevocations).where(lt(tokenRevocations.expiresAt, now));
  await tx
    .insert(tokenRevocations)
    .values({ key, created: now, expiresAt })
    .onConflictDoUpdate({ target: tokenRevocations.key, set: { expiresAt: greater(tx, tokenRevocations.expiresAt, expiresAt) } });
}

/** Revokes one access token until its own expiry (ms). */
export async function revokeAccessToken(deps: Deps, jti: string, expiresAt: number): Promise<void> {
  const now = deps.now();
  if (expiresAt > now) await insertRevocation(deps.db, `jti:${jti}`, now, expiresAt);
}

/**
 * Ends a token family: its refresh tokens stop working, and so does every access token issued under it
 * (none outlives one access-token lifetime from now).
 */
export async function revokeTokenFamily(deps: Deps, familyId: string): Promise<void> {
  const now = deps.now();
  await deps.db.transaction(async (tx) => {
    const { refreshTokens, tokenFamilies } = schemaOf(tx);
    await tx.update(tokenFamilies).set({ revokedAt: now }).where(eq(tokenFamilies.id, familyId));
    await tx.update(refreshTokens).set({ status: 'revoked' }).where(eq(refreshTokens.familyId, familyId));
    await insertRevocation(tx, `gid:${familyId}`, now, now + deps.config.accessTokenTtl * 1000);
  });
}
