/**
 * Ends everything a user is signed in with: every browser session (single sign-on) and every
 * grant, so its refresh tokens stop working and its access tokens are refused as revoked
 * (tokens/revocations.ts). Used when a password is reset by mail: whoever knew the old one is out.
 * Sessions and grants store the principal as JSON; both kinds of user carry `userUuid`.
 */
import { and, eq, isNull } from 'drizzle-orm';
import { jsonText } from '../../db/sql.js';
import { changes } from '../../db/changes.js';
import { browserSessions, oauthGrants } from '../../db/schema.js';
import type { Deps } from '../../deps.js';
import { revokeGrant } from '../tokens/revocations.js';

export async function endAllSignIns(deps: Deps, userUuid: string): Promise<{ sessions: number; grants: number }> {
  // One transaction, as when this ran without pausing: nothing signs in halfway through.
  return await deps.db.transaction(async (tx) => {
    const sessions = changes(
      await tx
        .delete(browserSessions)
        .where(eq(jsonText(tx, browserSessions.principal, 'userUuid'), userUuid))
        .run(),
    );
    const grants = await tx
      .select({ id: oauthGrants.id })
      .from(oauthGrants)
      .where(and(eq(jsonText(tx, oauthGrants.principal, 'userUuid'), userUuid), isNull(oauthGrants.revokedAt)))
      .all();
    for (const grant of grants) await revokeGrant(deps, grant.id);
    return { sessions, grants: grants.length };
  });
}
