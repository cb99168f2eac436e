/**
 * Account lifecycle (docs/api.md#account-lifecycle): the links mailed for activation and password
 * reset, and the captcha solutions already spent. Both are kept as SHA-256 hashes and checked in
 * the database, so a link or a solution works once across every instance sharing it.
 */
import { sqliteTable, text, integer, index } from 'drizzle-orm/sqlite-core';

/**
 * One mailed link. `subjectType`/`subjectUuid` name the account it acts on (`appUuid` for an app
 * user); `usedAt` is set by the one request that redeems it. A fresh link for the same purpose
 * and account replaces the ones before it.
 */
export const lifecycleTokens = sqliteTable(
  'lifecycle_tokens',
  {
    tokenHash: text('token_hash').primaryKey(),
    purpose: text('purpose', { enum: ['activate', 'resetpw'] }).notNull(),
    subjectType: text('subject_type', { enum: ['organization', 'admin_user', 'app_user'] }).notNull(),
    subjectUuid: text('subject_uuid').notNull(),
    appUuid: text('app_uuid'),
    created: integer('created').notNull(),
    expiresAt: integer('expires_at').notNull(),
    usedAt: integer('used_at'),
    /** The address the link was mailed to: redeeming it proves that address (verified_emails). */
    email: text('email'),
  },
  (t) => [index('lifecycle_tokens_subject').on(t.subjectUuid, t.purpose), index('lifecycle_tokens_expires').on(t.expiresAt)],
);

/**
 * The address a user proved theirs by following a link mailed to it (`email_verified`, OIDC Core
 * 5.1): one per account, the latest proved; it counts only while it is still the account's email.
 */
export const verifiedEmails = sqliteTable('verified_emails', {
  subjectUuid: text('subject_uuid').primaryKey(),
  /** Lower case. */
  email: text('email').notNull(),
  verifiedAt: integer('verified_at').notNull(),
});

/** Proof-of-work captcha solutions already accepted, kept until their challenge expires. */
export const captchaSolutions = sqliteTable(
  'captcha_solutions',
  {
    signatureHash: text('signature_hash').primaryKey(),
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [index('captcha_solutions_expires').on(t.expiresAt)],
);
