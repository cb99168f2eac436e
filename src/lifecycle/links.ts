/**
 * Mailed links: signed, expiring, single-use tokens for activation and password reset.
 *
 * A token is `random.mac`: 256 random bits and an HMAC binding them to the purpose and the
 * account, so a token altered, invented, or moved to another account's URL fails before the
 * database is asked. The database keeps only its SHA-256 with the expiry and `usedAt`; redeeming
 * sets `usedAt` with a conditional update, so of two instances racing with the same link exactly
 * one wins.
 */
import { and, eq, isNull, lt } from 'drizzle-orm';
import type { lifecycleTokens } from '../db/schema.js';
import type { Deps } from '../deps.js';
import { type Tx, schemaOf } from '../db/open.js';
import { InvalidLink, LinkAlreadyUsed, LinkExpired } from '../errors.js';
import { hashToken } from '../identity/sessions/token-families.js';
import { macOf, randomToken, safeEqual } from '../identity/keys/secrets.js';
import { changes, first } from '../db/run.js';

export type LinkPurpose = 'activate' | 'resetpw';

/** The account a link acts on. */
export type Subject = { type: 'organization'; uuid: string } | { type: 'admin_user'; uuid: string } | { type: 'app_user'; uuid: string; appUuid: string };

/** A person's account: an admin user or an app user. */
export type UserSubject = Extract<Subject, { type: 'admin_user' | 'app_user' }>;

export type LinkRow = typeof lifecycleTokens.$inferSelect;

function macOfLink(deps: Deps, purpose: LinkPurpose, subject: Subject, random: string): string {
  return macOf(deps, 'link', `${purpose}:${subject.type}:${subject.uuid}:${random}`);
}

function ttlOf(deps: Deps, purpose: LinkPurpose): number {
  return (purpose === 'activate' ? deps.config.activationTtl : deps.config.resetTtl) * 1000;
}

/**
 * A new link token, to be mailed to `email`; earlier unused links of the same purpose for the
 * account stop working.
 */
export async function issueLinkToken(tx: Tx, deps: Deps, purpose: LinkPurpose, subject: Subject, email: string): Promise<string> {
  const { lifecycleTokens } = schemaOf(tx);
  const now = deps.now();
  const random = randomToken();
  const token = `${random}.${macOfLink(deps, purpose, subject, random)}`;
  // Expired rows are swept here, so the table holds only links that could still be used.
  await tx.delete(lifecycleTokens).where(lt(lifecycleTokens.expiresAt, now));
  await tx
    .delete(lifecycleTokens)
    .where(and(eq(lifecycleTokens.subjectUuid, subject.uuid), eq(lifecycleTokens.purpose, purpose), isNull(lifecycleTokens.usedAt)));
  await tx.insert(lifecycleTokens).values({
    tokenHash: hashToken(token),
    purpose,
    subjectType: subject.type,
    subjectUuid: subject.uuid,
    appUuid: subject.type === 'app_user' ? subject.appUuid : null,
    created: now,
    expiresAt: now + ttlOf(deps, purpose),
    usedAt: null,
    email,
  });
  return token;
}

/** The stored link of a token that is genuine, meant for this purpose and account, unused and unexpired. */
export async function checkLinkToken(tx: Tx, deps: Deps, purpose: LinkPurpose, subject: Subject, token: string): Promise<LinkRow> {
  const { lifecycleTokens } = schemaOf(tx);
  const dot = token.indexOf('.');
  const random = token.slice(0, dot);
  if (dot <= 0 || !safeEqual(token.slice(dot + 1), macOfLink(deps, purpose, subject, random))) {
    throw InvalidLink('this link is not valid for this account; ask for a new one', { fields: { token: 'not valid' } });
  }
  const row = await first(
    tx
      .select()
      .from(lifecycleTokens)
      .where(eq(lifecycleTokens.tokenHash, hashToken(token))),
  );
  if (!row || row.expiresAt <= deps.now()) {
    // A genuine token whose row is gone expired and was swept, or was replaced by a newer link.
    throw LinkExpired('this link has expired or was replaced by a newer one; ask for a new one', { fields: { token: 'expired' } });
  }
  if (row.usedAt !== null) throw LinkAlreadyUsed('this link was already used; ask for a new one', { fields: { token: 'already used' } });
  return row;
}

/**
 * Checks the token and spends it; throws if another request spent it first. A user who followed
 * it proved the address it was mailed to: that address becomes their verified email (`email_verified`).
 */
export async function redeemLinkToken(tx: Tx, deps: Deps, purpose: LinkPurpose, subject: Subject, token: string): Promise<void> {
  const { lifecycleTokens, verifiedEmails } = schemaOf(tx);
  const row = await checkLinkToken(tx, deps, purpose, subject, token);
  const spent = await tx
    .update(lifecycleTokens)
    .set({ usedAt: deps.now() })
    .where(and(eq(lifecycleTokens.tokenHash, row.tokenHash), isNull(lifecycleTokens.usedAt)));
  if (changes(spent) !== 1) throw LinkAlreadyUsed('this link was already used; ask for a new one', { fields: { token: 'already used' } });
  if (row.email === null || subject.type === 'organization') return;
  const verified = { email: row.email.toLowerCase(), verifiedAt: deps.now() };
  await tx
    .insert(verifiedEmails)
    .values({ subjectUuid: subject.uuid, ...verified })
    .onConflictDoUpdate({ target: verifiedEmails.subjectUuid, set: verified });
}
