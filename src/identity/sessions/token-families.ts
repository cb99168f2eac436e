/**
 * Token families and their refresh tokens. A token family is what one sign-in of a user at a
 * client (password or authorization code) allowed that client: its scope, and every refresh and
 * access token issued under it, which carry its id (`gid`). It is born at the sign-in and ends
 * when it is revoked, which ends all its tokens at once. Refresh tokens rotate on every use
 * (RFC 9700 4.14.2) and slide: each new one lives the configured refresh lifetime again.
 */
import { createHash, randomBytes } from 'node:crypto';
import { and, eq, isNull, lt, notExists, or, sql } from 'drizzle-orm';
import type { tokenFamilies, refreshTokens, RequestedClaims } from '../../db/schema.js';
import type { Deps } from '../../deps.js';
import { type Tx, schemaOf } from '../../db/open.js';
import type { TokenPrincipal } from '../tokens/access-tokens.js';
import { changes, first } from '../../db/run.js';

export type TokenFamily = typeof tokenFamilies.$inferSelect;
export type RefreshTokenRow = typeof refreshTokens.$inferSelect;

/** Tokens and codes are stored by SHA-256: they are 256-bit random values, unguessable. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

export function newOpaqueToken(): string {
  return randomBytes(32).toString('base64url');
}

export function newTokenFamilyId(): string {
  return randomBytes(16).toString('base64url');
}

export interface NewTokenFamily {
  id?: string;
  clientId: string;
  principal: TokenPrincipal;
  scope: readonly string[];
  authTime: number;
  /** How the user authenticated (RFC 8176), said again by every token of the family. */
  amr?: readonly string[];
  /** The single claims the `claims` parameter asked for (OIDC Core 5.5). */
  claims?: RequestedClaims | null;
  /** The browser session of the sign-in (OIDC `sid`), when there was one. */
  sid?: string | null;
  /** The resources (RFC 8707) its access tokens may be for; none: this server's API. */
  resources?: readonly string[];
}

export async function insertTokenFamily(tx: Tx, now: number, family: NewTokenFamily): Promise<TokenFamily> {
  const { tokenFamilies } = schemaOf(tx);
  const row: TokenFamily = {
    id: family.id ?? newTokenFamilyId(),
    clientId: family.clientId,
    principal: family.principal,
    scope: family.scope.join(' '),
    authTime: family.authTime,
    amr: family.amr ? [...family.amr] : null,
    claims: family.claims ?? null,
    created: now,
    revokedAt: null,
    dpopJkt: null,
    sid: family.sid ?? null,
    resources: family.resources?.length ? [...family.resources] : null,
  };
  await tx.insert(tokenFamilies).values(row);
  return row;
}

export async function findTokenFamily(deps: Deps, id: string): Promise<TokenFamily | undefined> {
  const { tokenFamilies } = schemaOf(deps.db);
  return await first(deps.db.select().from(tokenFamilies).where(eq(tokenFamilies.id, id)));
}

/** Binds a token family's refresh tokens to a DPoP key (RFC 9449 5), unless it is bound already. */
export async function bindTokenFamily(deps: Deps, familyId: string, jkt: string): Promise<void> {
  const { tokenFamilies } = schemaOf(deps.db);
  await deps.db
    .update(tokenFamilies)
    .set({ dpopJkt: jkt })
    .where(and(eq(tokenFamilies.id, familyId), isNull(tokenFamilies.dpopJkt)));
}

/** A new refresh token of a token family; returns the token itself (only its hash is stored). */
export async function insertRefreshToken(tx: Tx, now: number, ttlSeconds: number, family: TokenFamily): Promise<{ token: string; expiresAt: number }> {
  const { refreshTokens } = schemaOf(tx);
  const token = newOpaqueToken();
  const expiresAt = now + ttlSeconds * 1000;
  await tx.insert(refreshTokens).values({ tokenHash: hashToken(token), familyId: family.id, status: 'active', scope: family.scope, created: now, expiresAt });
  return { token, expiresAt };
}

export async function findRefreshToken(deps: Deps, token: string): Promise<RefreshTokenRow | undefined> {
  const { refreshTokens } = schemaOf(deps.db);
  return await first(
    deps.db
      .select()
      .from(refreshTokens)
      .where(eq(refreshTokens.tokenHash, hashToken(token))),
  );
}

/**
 * Forgets what can no longer be used: refresh tokens revoked, or past their expiry once every
 * access token issued beside them has expired too (a revoked family's access tokens are refused by
 * its revocation row, revocations.ts), then token families with no refresh token left whose
 * last access token has expired, then authorization codes past their expiry that no live family
 * needs for replay detection (RFC 6749 4.1.2). `accessTtlMs` is the longest an access token lives.
 * An access token of a forgotten family stays verifiable until it expires: verification needs only
 * its signature and the revocation list, never the family's row.
 */
export async function pruneTokenFamilies(
  tx: Tx,
  now: number,
  accessTtlMs: number,
): Promise<{ refreshTokens: number; tokenFamilies: number; authorizationCodes: number }> {
  const { authorizationCodes, refreshTokens, tokenFamilies } = schemaOf(tx);
  const lastUseBefore = now - accessTtlMs;
  const refreshed = await tx
    .delete(refreshTokens)
    .where(or(eq(refreshTokens.status, 'revoked'), and(lt(refreshTokens.expiresAt, now), lt(refreshTokens.created, lastUseBefore))));
  const families = await tx.delete(tokenFamilies).where(
    and(
      lt(tokenFamilies.created, lastUseBefore),
      notExists(
        tx
          .select({ one: sql`1` })
          .from(refreshTokens)
          .where(eq(refreshTokens.familyId, tokenFamilies.id)),
      ),
    ),
  );
  const codes = await tx.delete(authorizationCodes).where(
    and(
      lt(authorizationCodes.expiresAt, now),
      or(
        isNull(authorizationCodes.familyId),
        notExists(
          tx
            .select({ one: sql`1` })
            .from(tokenFamilies)
            .where(eq(tokenFamilies.id, authorizationCodes.familyId)),
        ),
      ),
    ),
  );
  return { refreshTokens: changes(refreshed), tokenFamilies: changes(families), authorizationCodes: changes(codes) };
}
