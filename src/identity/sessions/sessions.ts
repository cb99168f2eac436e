/**
 * Sign-in sessions of browsers (single sign-on). The browser holds a random id in a signed
 * cookie; the database holds its SHA-256 and who signed in, so every instance sees every session
 * and logging out ends it everywhere. Sessions slide: each use extends them by `sessionTtl`.
 */
import { createHash } from 'node:crypto';
import { and, desc, eq, gt, lt } from 'drizzle-orm';
import type { browserSessions } from '../../db/schema.js';
import { jsonText } from '../../db/sql.js';
import type { Deps } from '../../deps.js';
import { randomToken } from '../keys/secrets.js';
import type { UserPrincipal } from '../tokens/user-claims.js';
import { first } from '../../db/run.js';
import { schemaOf } from '../../db/open.js';

export type SessionRow = typeof browserSessions.$inferSelect;

export interface NewSession {
  /** `admin`, or the uuid of the application whose user signed in. */
  realm: string;
  principal: UserPrincipal;
  /** How the user authenticated (RFC 8176): `pwd`, `fed`, and `otp` `mfa` after a second factor. */
  amr: readonly string[];
  provider?: string;
}

/** The browser a session started in, as the account page shows it: its User-Agent and address. */
export interface SessionDevice {
  userAgent?: string;
  address?: string;
}

export function hashSessionId(id: string): string {
  return createHash('sha256').update(id).digest('base64url');
}

/** Starts a session (replacing `previousId`'s, so a sign-in never keeps an old id: session fixation). */
export async function createSession(
  deps: Deps,
  input: NewSession,
  previousId?: string,
  device: SessionDevice = {},
): Promise<{ id: string; session: SessionRow }> {
  const id = randomToken();
  const now = deps.now();
  const session: SessionRow = {
    idHash: hashSessionId(id),
    realm: input.realm,
    principal: input.principal,
    amr: input.amr.join(' '),
    provider: input.provider ?? null,
    // Bounded: a header is the client's to make as long as it likes.
    userAgent: device.userAgent?.slice(0, 512) ?? null,
    address: device.address ?? null,
    authTime: now,
    created: now,
    lastSeen: now,
    expiresAt: now + deps.config.sessionTtl * 1000,
  };
  await deps.db.transaction(async (tx) => {
    const { browserSessions } = schemaOf(tx);
    if (previousId) await tx.delete(browserSessions).where(eq(browserSessions.idHash, hashSessionId(previousId)));
    // Expired sessions are swept when new ones start, so the table does not grow without bound.
    await tx.delete(browserSessions).where(lt(browserSessions.expiresAt, now));
    await tx.insert(browserSessions).values(session);
  });
  return { id, session };
}

/** The live session of a cookie's id, extended by this use; undefined when unknown or expired. */
export async function findSession(deps: Deps, id: string): Promise<SessionRow | undefined> {
  const { browserSessions } = schemaOf(deps.db);
  const idHash = hashSessionId(id);
  const session = await first(deps.db.select().from(browserSessions).where(eq(browserSessions.idHash, idHash)));
  const now = deps.now();
  if (!session || session.expiresAt <= now) return undefined;
  const expiresAt = now + deps.config.sessionTtl * 1000;
  await deps.db.update(browserSessions).set({ lastSeen: now, expiresAt }).where(eq(browserSessions.idHash, idHash));
  return { ...session, lastSeen: now, expiresAt };
}

/** How the session's user authenticated (RFC 8176 `amr`), kept space-separated as scopes are. */
export function amrOf(session: SessionRow): string[] {
  return session.amr.split(' ');
}

/** A user's live sessions in one realm, the most recently used first (the account page's list). */
export async function listUserSessions(deps: Deps, realm: string, userUuid: string): Promise<SessionRow[]> {
  const { browserSessions } = schemaOf(deps.db);
  return await deps.db
    .select()
    .from(browserSessions)
    .where(
      and(eq(browserSessions.realm, realm), eq(jsonText(deps.db, browserSessions.principal, 'userUuid'), userUuid), gt(browserSessions.expiresAt, deps.now())),
    )
    .orderBy(desc(browserSessions.lastSeen));
}
