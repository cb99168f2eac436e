/**
 * Remembered consent (per client and user): once a user allowed a client some scopes, asking for
 * those again does not show the consent page. Allowing more adds to what is remembered.
 */
import { and, eq } from 'drizzle-orm';
import { consents } from '../db/schema.js';
import type { Deps } from '../deps.js';

function findConsent(deps: Deps, clientId: string, userUuid: string) {
  return deps.db
    .select()
    .from(consents)
    .where(and(eq(consents.clientId, clientId), eq(consents.userUuid, userUuid)))
    .get();
}

/** The requested scopes the user has not yet allowed this client. */
export function scopesNotConsented(deps: Deps, clientId: string, userUuid: string, scope: readonly string[]): string[] {
  const granted = new Set((findConsent(deps, clientId, userUuid)?.scope ?? '').split(' '));
  return scope.filter((item) => !granted.has(item));
}

export function rememberConsent(deps: Deps, clientId: string, userUuid: string, scope: readonly string[]): void {
  const now = deps.now();
  const existing = findConsent(deps, clientId, userUuid);
  const merged = [...new Set([...(existing?.scope.split(' ') ?? []), ...scope])].filter((item) => item !== '').join(' ');
  deps.db
    .insert(consents)
    .values({ clientId, userUuid, scope: merged, created: now, modified: now })
    .onConflictDoUpdate({ target: [consents.clientId, consents.userUuid], set: { scope: merged, modified: now } })
    .run();
}
