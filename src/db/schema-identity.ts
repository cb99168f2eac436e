/**
 * Identity tables: signing keys and app users' password hashes. Kept apart from entity
 * properties so no secret can leak through a data API read.
 */
import { sqliteTable, text, integer, index } from 'drizzle-orm/sqlite-core';

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
