/**
 * Initial access tokens (RFC 7591 3): what an application's administrators hand to a developer so
 * that a program may register one client, or `count` clients, at /connect/register before the
 * token expires (Keycloak's "initial access tokens", with its `expiration` and `count`). The
 * token is shown once, when minted, and kept only as its SHA-256; a token whose last use is spent
 * is deleted (docs/api.md#dynamic-client-registration).
 */
import { and, asc, eq, gt, lte, sql } from 'drizzle-orm';
import type { initialAccessTokens } from '../../db/schema.js';
import { type Tx, schemaOf } from '../../db/open.js';
import type { Deps } from '../../deps.js';
import { InvalidToken, NotFound } from '../../errors.js';
import { newUuid } from '../../ids.js';
import type { Application } from '../../management/applications.js';
import { hashToken, newOpaqueToken } from '../sessions/token-families.js';
import { first } from '../../db/run.js';

export type InitialAccessTokenRow = typeof initialAccessTokens.$inferSelect;

export interface MintedInitialAccessToken {
  row: InitialAccessTokenRow;
  /** Present only when just minted: the one time it can be read. */
  token?: string;
}

/** What an administrator asks for: seconds until the token expires, and how many registrations it allows. */
export interface InitialAccessTokenRequest {
  expiration?: number;
  count?: number;
}

// Keycloak's defaults: one registration, within a day.
const DEFAULT_EXPIRATION_SECONDS = 86_400;
const DEFAULT_COUNT = 1;

/** RFC 6750 3: a Bearer token refused, with the scheme to use. */
export function invalidBearer(description: string) {
  return InvalidToken(description, { headers: { 'WWW-Authenticate': `Bearer error="invalid_token"` } });
}

export async function mintInitialAccessToken(deps: Deps, app: Application, request: InitialAccessTokenRequest): Promise<MintedInitialAccessToken> {
  const now = deps.now();
  const token = newOpaqueToken();
  const count = request.count ?? DEFAULT_COUNT;
  const row: InitialAccessTokenRow = {
    id: newUuid(),
    appUuid: app.uuid,
    tokenHash: hashToken(token),
    count,
    remaining: count,
    created: now,
    expiresAt: now + (request.expiration ?? DEFAULT_EXPIRATION_SECONDS) * 1000,
  };
  await deps.db.transaction(async (tx) => {
    const { initialAccessTokens } = schemaOf(tx);
    // The application's expired tokens go as a new one comes: they can no longer be used.
    await tx.delete(initialAccessTokens).where(and(eq(initialAccessTokens.appUuid, app.uuid), lte(initialAccessTokens.expiresAt, now)));
    await tx.insert(initialAccessTokens).values(row);
  });
  return { row, token };
}

export async function listInitialAccessTokens(deps: Deps, app: Application): Promise<MintedInitialAccessToken[]> {
  const { initialAccessTokens } = schemaOf(deps.db);
  const rows = await deps.db.select().from(initialAccessTokens).where(eq(initialAccessTokens.appUuid, app.uuid)).orderBy(asc(initialAccessTokens.created));
  return rows.map((row) => ({ row }));
}

export async function revokeInitialAccessToken(deps: Deps, app: Application, id: string): Promise<MintedInitialAccessToken> {
  const { initialAccessTokens } = schemaOf(deps.db);
  const where = and(eq(initialAccessTokens.appUuid, app.uuid), eq(initialAccessTokens.id, id));
  const row = await first(deps.db.select().from(initialAccessTokens).where(where));
  if (!row) throw NotFound(`initial access token '${id}' not found in application '${app.name}'`);
  await deps.db.delete(initialAccessTokens).where(where);
  return { row };
}

/** The live token a bearer value is, if it is one: not expired, with a use left. */
export async function findInitialAccessToken(deps: Deps, token: string): Promise<InitialAccessTokenRow | undefined> {
  const { initialAccessTokens } = schemaOf(deps.db);
  return await first(
    deps.db
      .select()
      .from(initialAccessTokens)
      .where(and(eq(initialAccessTokens.tokenHash, hashToken(token)), gt(initialAccessTokens.remaining, 0), gt(initialAccessTokens.expiresAt, deps.now()))),
  );
}

/**
 * Spends one use of the token, in the registration's transaction: one statement decides, so two
 * registrations at once cannot both spend a token's last use.
 */
export async function spendInitialAccessToken(tx: Tx, id: string, now: number): Promise<void> {
  const { initialAccessTokens } = schemaOf(tx);
  const spent = await tx
    .update(initialAccessTokens)
    .set({ remaining: sql`${initialAccessTokens.remaining} - 1` })
    .where(and(eq(initialAccessTokens.id, id), gt(initialAccessTokens.remaining, 0), gt(initialAccessTokens.expiresAt, now)))
    .returning({ remaining: initialAccessTokens.remaining });
  if (spent.length === 0) throw invalidBearer('the initial access token has been used up or has expired');
  if (spent[0].remaining <= 0) await tx.delete(initialAccessTokens).where(eq(initialAccessTokens.id, id));
}
