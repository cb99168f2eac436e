/**
 * Logout across applications (docs/api.md#logout): when browser sessions end — RP-initiated
 * logout, the account page, a deactivated account, a password reset — every client the
 * sessions signed in to is told. Clients with a `backchannel_logout_uri` get a logout token from
 * the durable queue (OIDC Back-Channel Logout 1.0, logout-worker.ts); clients with a
 * `frontchannel_logout_uri` get an iframe on the page the browser sees next (OIDC Front-Channel
 * Logout 1.0), which the caller renders.
 */
import { createHash } from 'node:crypto';
import { and, eq, inArray, isNull, notInArray } from 'drizzle-orm';

import { queueLogoutDeliveries, type LogoutNotice } from '../../db/logout-store.js';
import { jsonText } from '../../db/sql.js';
import type { Deps } from '../../deps.js';
import { findClient } from '../clients/find.js';
import { issuerOf } from '../issuer.js';
import { hashSessionId, type SessionRow } from './sessions.js';
import { schemaOf } from '../../db/open.js';

/**
 * The `sid` of a session (OIDC Front-Channel Logout 1.0 3): stable for as long as the session
 * lives, derived from the stored hash of its cookie's id, from which neither can be recovered.
 */
export function sidOf(session: Pick<SessionRow, 'idHash'>): string {
  return createHash('sha256').update(`sid:${session.idHash}`).digest('base64url');
}

/** Remembers that a session signed the user in to a client, to tell the client when it ends. */
export async function rememberSessionClient(deps: Deps, session: Pick<SessionRow, 'idHash'>, clientId: string): Promise<void> {
  const { sessionClients } = schemaOf(deps.db);
  await deps.db.insert(sessionClients).values({ sessionIdHash: session.idHash, clientId, created: deps.now() }).onConflictDoNothing();
}

/** A page to load in an iframe of the page the browser sees next (OIDC Front-Channel Logout 1.0 2). */
export interface FrontChannelLogout {
  clientId: string;
  /** What the page calls the client. */
  clientName: string;
  url: string;
}

/**
 * Tells the clients of `sessions` that they ended, and of `userUuid`'s token families begun
 * outside a browser session (password grant): back-channel logouts are queued in the caller's
 * transaction, front-channel ones returned. Runs before the sessions are deleted (their client
 * list goes with them).
 */
async function announceLogout(deps: Deps, sessions: readonly SessionRow[], userUuid?: string): Promise<FrontChannelLogout[]> {
  const { sessionClients, tokenFamilies } = schemaOf(deps.db);
  const notices: { clientId: string; sub: string; sid: string | null }[] = [];
  if (sessions.length > 0) {
    const rows = await deps.db
      .select()
      .from(sessionClients)
      .where(
        inArray(
          sessionClients.sessionIdHash,
          sessions.map((session) => session.idHash),
        ),
      );
    const byHash = new Map(sessions.map((session) => [session.idHash, session]));
    for (const row of rows) {
      const session = byHash.get(row.sessionIdHash)!;
      notices.push({ clientId: row.clientId, sub: session.principal.userUuid, sid: sidOf(session) });
    }
  }
  if (userUuid !== undefined) {
    const told = [...new Set(notices.map((notice) => notice.clientId))];
    const families = await deps.db
      .selectDistinct({ clientId: tokenFamilies.clientId })
      .from(tokenFamilies)
      .where(
        and(
          eq(jsonText(deps.db, tokenFamilies.principal, 'userUuid'), userUuid),
          isNull(tokenFamilies.revokedAt),
          told.length > 0 ? notInArray(tokenFamilies.clientId, told) : undefined,
        ),
      );
    for (const { clientId } of families) notices.push({ clientId, sub: userUuid, sid: null });
  }
  const back: LogoutNotice[] = [];
  const front: FrontChannelLogout[] = [];
  const issuer = issuerOf(deps);
  for (const notice of notices) {
    const client = await findClient(deps, notice.clientId);
    // A client that needs the session's id is told only of sessions (Back-Channel Logout 1.0 2.2).
    if (client?.backchannelLogout && (notice.sid !== null || !client.backchannelLogout.sessionRequired)) back.push(notice);
    if (client?.frontchannelLogout && notice.sid !== null) {
      const url = new URL(client.frontchannelLogout.uri);
      if (client.frontchannelLogout.sessionRequired) {
        url.searchParams.set('iss', issuer);
        url.searchParams.set('sid', notice.sid);
      }
      front.push({ clientId: client.clientId, clientName: client.clientName || client.clientId, url: url.href });
    }
  }
  await queueLogoutDeliveries(deps.db, back, deps.now());
  return front;
}

/**
 * Ends the session of a cookie's id, telling its clients; returns the front-channel logouts for
 * the page the browser sees next.
 */
export async function endSessionAndLogout(deps: Deps, id: string): Promise<FrontChannelLogout[]> {
  const { browserSessions } = schemaOf(deps.db);
  const where = eq(browserSessions.idHash, hashSessionId(id));
  return await deps.db.transaction(async () => {
    const sessions = await deps.db.select().from(browserSessions).where(where);
    const front = await announceLogout(deps, sessions);
    await deps.db.delete(browserSessions).where(where);
    return front;
  });
}

/** Ends one of a user's sessions by its stored key (the account page), telling its clients; false when it is not theirs. */
export async function endUserSessionAndLogout(deps: Deps, realm: string, userUuid: string, key: string): Promise<boolean> {
  const { browserSessions } = schemaOf(deps.db);
  const where = and(eq(browserSessions.idHash, key), eq(browserSessions.realm, realm), eq(jsonText(deps.db, browserSessions.principal, 'userUuid'), userUuid));
  return await deps.db.transaction(async () => {
    const sessions = await deps.db.select().from(browserSessions).where(where);
    await announceLogout(deps, sessions);
    await deps.db.delete(browserSessions).where(where);
    return sessions.length === 1;
  });
}

/**
 * Ends every session of a user, telling the clients of each and those the user signed in to
 * without a browser; returns how many sessions ended. Runs in the caller's transaction.
 */
export async function endUserSessionsAndLogout(deps: Deps, userUuid: string): Promise<number> {
  const { browserSessions } = schemaOf(deps.db);
  const where = eq(jsonText(deps.db, browserSessions.principal, 'userUuid'), userUuid);
  const sessions = await deps.db.select().from(browserSessions).where(where);
  await announceLogout(deps, sessions, userUuid);
  await deps.db.delete(browserSessions).where(where);
  return sessions.length;
}
