/**
 * Identity tables: signing keys and app users' password hashes. Kept apart from entity
 * properties so no secret can leak through a data API read.
 */
import { sqliteTable, text, integer, index, primaryKey, uniqueIndex } from 'drizzle-orm/sqlite-core';

/**
 * JWT signing keys (JWK JSON). A key signs while `retiredAt` is null; after rotation it stays
 * published until `expiresAt`, when every token it signed has expired.
 */
export const signingKeys = sqliteTable(
  'signing_keys',
  {
    kid: text('kid').primaryKey(),
    alg: text('alg').notNull(),
    use: text('use', { enum: ['access_token', 'id_token'] }).notNull(),
    publicJwk: text('public_jwk', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    privateJwk: text('private_jwk', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    created: integer('created').notNull(),
    retiredAt: integer('retired_at'),
    expiresAt: integer('expires_at'),
  },
  (t) => [index('signing_keys_use').on(t.use, t.retiredAt)],
);

/** Password hashes of app users (entities of an application's `users` collection). */
export const appUserCredentials = sqliteTable('app_user_credentials', {
  userUuid: text('user_uuid').primaryKey(),
  appUuid: text('app_uuid').notNull(),
  passwordHash: text('password_hash').notNull(),
  modified: integer('modified').notNull(),
});

/** A registered passkey (WebAuthn credential) as verifyRegistrationResponse reports it. */
export interface StoredCredential {
  /** The credential id, base64url. */
  id: string;
  /** The COSE public key, base64url. */
  publicKey: string;
  counter: number;
  transports?: string[];
  /** A synced passkey (WebAuthn backup eligible, `multiDevice`): its sign-ins say RFC 8176 `swk`, not `hwk`. */
  multiDevice?: boolean;
}

/**
 * Second factors of admin users and app users (docs/api.md#second-factors), by the user's uuid
 * (admin users and app users never share one). A factor is `pending` from enrollment until its
 * first code (or the browser's registration) is verified, then `active`. TOTP keeps its secret
 * (base32, RFC 6238) and the last time step a code was accepted for, so that no code works twice;
 * a pending passkey keeps its registration challenge, an active one its credential, whose id is
 * also a column of its own: a passkey sign-in finds its user by it. `name` is the user's label
 * for it (the account page lists factors by it); `lastUsed` (ms) is when it last passed a sign-in.
 */
export const userFactors = sqliteTable(
  'user_factors',
  {
    id: text('id').primaryKey(),
    userUuid: text('user_uuid').notNull(),
    type: text('type', { enum: ['totp', 'webauthn'] }).notNull(),
    status: text('status', { enum: ['pending', 'active'] }).notNull(),
    secret: text('secret'),
    lastStep: integer('last_step'),
    challenge: text('challenge'),
    credential: text('credential', { mode: 'json' }).$type<StoredCredential>(),
    name: text('name'),
    credentialId: text('credential_id'),
    lastUsed: integer('last_used'),
    created: integer('created').notNull(),
    modified: integer('modified').notNull(),
  },
  (t) => [index('user_factors_user').on(t.userUuid), uniqueIndex('user_factors_credential').on(t.credentialId)],
);

/**
 * Passkey sign-in challenges already answered (SHA-256 of the challenge), kept until the
 * challenge expires, so that an assertion works once (docs/api.md#passkeys).
 */
export const passkeyChallenges = sqliteTable(
  'passkey_challenges',
  {
    challengeHash: text('challenge_hash').primaryKey(),
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [index('passkey_challenges_expires').on(t.expiresAt)],
);

/**
 * Recovery codes of a user with a second factor, by SHA-256 (they are random, so a fast hash is
 * as safe as a slow one): each is deleted when used, so it works once.
 */
export const recoveryCodes = sqliteTable(
  'recovery_codes',
  {
    userUuid: text('user_uuid').notNull(),
    codeHash: text('code_hash').notNull(),
    created: integer('created').notNull(),
  },
  (t) => [primaryKey({ columns: [t.userUuid, t.codeHash] })],
);
