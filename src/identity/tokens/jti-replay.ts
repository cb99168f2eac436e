/**
 * Single-use JWT IDs: a client assertion (RFC 7523 3, item 7) or a DPoP proof (RFC 9449 11.1) may
 * be presented once. The first claim of a `jti` for a purpose wins until the JWT that carried it
 * expires; every instance sees the same claims, since they are rows in the database. Keys are the
 * SHA-256 of purpose and `jti`, so a long or odd `jti` costs one fixed-size row. Housekeeping
 * forgets expired claims (docs/operations.md#housekeeping).
 */
import { createHash } from 'node:crypto';
import { lt, sql } from 'drizzle-orm';

import { type Tx, schemaOf } from '../../db/open.js';
import type { Deps } from '../../deps.js';
import { changes } from '../../db/run.js';

/**
 * What a `jti` is unique within, such as `client_assertion:<client_id>` or `dpop:<jkt>`: the same
 * `jti` under two purposes is two claims.
 */
export type JtiPurpose = string;

function keyOf(purpose: JtiPurpose, jti: string): string {
  return createHash('sha256').update(purpose).update('\0').update(jti).digest('base64url');
}

/**
 * Claims `jti` for `purpose` until `expiresAt` (ms since the epoch): true the first time, false
 * when it was claimed before and that claim has not expired (a replay). An expired claim is taken
 * over, so a row housekeeping has not yet pruned refuses nothing it should not.
 */
export async function claimJti(deps: Pick<Deps, 'db' | 'now'>, purpose: JtiPurpose, jti: string, expiresAt: number): Promise<boolean> {
  const { jtiReplay } = schemaOf(deps.db);
  const now = deps.now();
  const result = await deps.db
    .insert(jtiReplay)
    .values({ key: keyOf(purpose, jti), expiresAt })
    .onConflictDoUpdate({ target: jtiReplay.key, set: { expiresAt }, setWhere: sql`${jtiReplay.expiresAt} <= ${now}` });
  return changes(result) === 1;
}

/** Forgets the claims expired as of `now` (ms); returns how many. */
export async function pruneJtiClaims(tx: Tx, now: number): Promise<number> {
  const { jtiReplay } = schemaOf(tx);
  return changes(await tx.delete(jtiReplay).where(lt(jtiReplay.expiresAt, now)));
}
