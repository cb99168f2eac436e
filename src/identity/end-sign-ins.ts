/**
 * Ends everything a user is signed in with: every browser session (single sign-on) and every
 * grant, so its refresh tokens stop working and its access tokens are refused as revoked
 * (revocations.ts). Used when a password is reset by mail: whoever knew the old one is out.
 * Sessions and grants store the principal as JSON; both kinds of user carry `userUuid`.
 */
import { and, eq, isNull, sql } from 'drizzle-orm';
import { browserSessions, oauthGrants } from '../db/schema.js';
import type { Deps } from '../deps.js';
import { revokeGrant } from './revocations.js';

export function endAllSignIns(deps: Deps, userUuid: string): { sessions: number; grants: number } {
  const sessions = deps.db
    .delete(browserSessions)
    .where(sql`json_extract(${browserSessions.principal}, '$.userUuid') = ${userUuid}`)
    .run().changes;
  const grants = deps.db
    .select({ id: oauthGrants.id })
    .from(oauthGrants)
    .where(and(eq(sql`json_extract(${oauthGrants.principal}, '$.userUuid')`, userUuid), isNull(oauthGrants.revokedAt)))
    .all();
  for (const grant of grants) revokeGrant(deps, grant.id);
  return { sessions, grants: grants.length };
}
