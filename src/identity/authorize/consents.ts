/**
 * Remembered consent (per client and user): once a user allowed a client some scopes, asking for
 * those again does not show the consent page. Allowing more adds to what is remembered; the user
 * may revoke it on the account page, which also ends what the client holds for them.
 */
import { and, desc, eq } from 'drizzle-orm';
import { revokeAllTokens } from '../sessions/end-sign-ins.js';
import type { consents } from '../../db/schema.js';
import type { Deps } from '../../deps.js';
import { type Tx, schemaOf } from '../../db/open.js';
import { changes, first } from '../../db/run.js';

async function findConsent(tx: Tx, clientId: string, userUuid: string) {
  const { consents } = schemaOf(tx);
  return await first(
    tx
      .select()
      .from(consents)
      .where(and(eq(consents.clientId, clientId), eq(consents.userUuid, userUuid))),
  );
}

/** The requested scopes the user has not yet allowed this client. */
export async function scopesNotConsented(deps: Deps, clientId: string, userUuid: string, scope: readonly string[]): Promise<string[]> {
  const granted = new Set(((await findConsent(deps.db, clientId, userUuid))?.scope ?? '').split(' '));
  return scope.filter((item) => !granted.has(item));
}

export async function rememberConsent(deps: Deps, clientId: string, userUuid: string, scope: readonly string[]): Promise<void> {
  const now = deps.now();
  // Read, merge and write in one transaction: two consents given at once both stay remembered.
  await deps.db.transaction(async (tx) => {
    const { consents } = schemaOf(tx);
    const existing = await findConsent(tx, clientId, userUuid);
    const merged = [...new Set([...(existing?.scope.split(' ') ?? []), ...scope])].filter((item) => item !== '').join(' ');
    await tx
      .insert(consents)
      .values({ clientId, userUuid, scope: merged, created: now, modified: now })
      .onConflictDoUpdate({ target: [consents.clientId, consents.userUuid], set: { scope: merged, modified: now } });
  });
}

export type Consent = typeof consents.$inferSelect;

/** The clients a user allowed, the most recent first. */
export async function listConsents(deps: Deps, userUuid: string): Promise<Consent[]> {
  const { consents } = schemaOf(deps.db);
  return await deps.db.select().from(consents).where(eq(consents.userUuid, userUuid)).orderBy(desc(consents.modified));
}

/**
 * Forgets a consent and revokes the user's tokens of that client (their refresh tokens stop
 * working at once): the client must ask again. False when there was no such consent.
 */
export async function revokeConsent(deps: Deps, clientId: string, userUuid: string): Promise<boolean> {
  const { consents } = schemaOf(deps.db);
  const removed = await deps.db.delete(consents).where(and(eq(consents.clientId, clientId), eq(consents.userUuid, userUuid)));
  if (changes(removed) === 0) return false;
  await revokeAllTokens(deps, userUuid, clientId);
  return true;
}
