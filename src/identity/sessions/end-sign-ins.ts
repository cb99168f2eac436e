/**
 * Ends everything a user is signed in with: every browser session (single sign-on) and every
 * token family, so its refresh tokens stop working and its access tokens are refused as revoked
 * (tokens/revocations.ts). Used when a password is reset by mail: whoever knew the old one is out.
 * Sessions and token families store the principal as JSON; both kinds of user carry `userUuid`.
 * `revokeAllTokens` ends the token families alone (Usergrid's revoketokens).
 */
import { and, eq, isNull } from 'drizzle-orm';
import { jsonText } from '../../db/sql.js';

import type { Deps } from '../../deps.js';
import { revokeTokenFamily } from '../tokens/revocations.js';
import { endUserSessionsAndLogout } from './logout.js';
import { schemaOf } from '../../db/open.js';

/**
 * Revokes every token family of the user still live (of one client, when `clientId` is given):
 * their refresh and access tokens stop working at once.
 */
export async function revokeAllTokens(deps: Deps, userUuid: string, clientId?: string): Promise<number> {
  return await deps.db.transaction(async (tx) => {
    const { tokenFamilies } = schemaOf(tx);
    const families = await tx
      .select({ id: tokenFamilies.id })
      .from(tokenFamilies)
      .where(
        and(
          eq(jsonText(tx, tokenFamilies.principal, 'userUuid'), userUuid),
          isNull(tokenFamilies.revokedAt),
          clientId === undefined ? undefined : eq(tokenFamilies.clientId, clientId),
        ),
      );
    for (const family of families) await revokeTokenFamily(deps, family.id);
    return families.length;
  });
}

/**
 * Ends every session and token family of the user; the clients they signed in to are told
 * (docs/api.md#logout) before the families are revoked.
 */
export async function endAllSignIns(deps: Deps, userUuid: string): Promise<{ sessions: number; families: number }> {
  // One transaction, as when this ran without pausing: nothing signs in halfway through.
  return await deps.db.transaction(async () => {
    const sessions = await endUserSessionsAndLogout(deps, userUuid);
    return { sessions, families: await revokeAllTokens(deps, userUuid) };
  });
}
