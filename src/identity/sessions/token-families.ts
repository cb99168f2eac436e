/**
 * Grants and their refresh tokens. A grant is born when a user signs in through a client
 * (password or authorization code) and ends when it is revoked; refresh tokens rotate on every
 * use (RFC 9700 4.14.2) and slide: each new one lives the configured refresh lifetime again.
 */
import { createHash, randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { oauthGrants, refreshTokens } from '../../db/schema.js';
import type { Deps } from '../../deps.js';
import type { Tx } from '../../db/open.js';
import type { TokenPrincipal } from '../tokens/access-tokens.js';

export type Grant = typeof oauthGrants.$inferSelect;
export type RefreshTokenRow = typeof refreshTokens.$inferSelect;

/** Tokens and codes are stored by SHA-256: they are 256-bit random values, unguessable. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

export function newOpaqueToken(): string {
  return randomBytes(32).toString('base64url');
}

export function newGrantId(): string {
  return randomBytes(16).toString('base64url');
}

export interface NewGrant {
  id?: string;
  clientId: string;
  principal: TokenPrincipal;
  scope: readonly string[];
  authTime: number;
}

export async function insertGrant(tx: Tx, now: number, grant: NewGrant): Promise<Grant> {
  const row: Grant = {
    id: grant.id ?? newGrantId(),
    clientId: grant.clientId,
    principal: grant.principal,
    scope: grant.scope.join(' '),
    authTime: grant.authTime,
    created: now,
    revokedAt: null,
  };
  await tx.insert(oauthGrants).values(row).run();
  return row;
}

export async function findGrant(deps: Deps, id: string): Promise<Grant | undefined> {
  return await deps.db.select().from(oauthGrants).where(eq(oauthGrants.id, id)).get();
}

/** A new refresh token of a grant; returns the token itself (only its hash is stored). */
export async function insertRefreshToken(tx: Tx, now: number, ttlSeconds: number, grant: Grant): Promise<{ token: string; expiresAt: number }> {
  const token = newOpaqueToken();
  const expiresAt = now + ttlSeconds * 1000;
  await tx.insert(refreshTokens).values({ tokenHash: hashToken(token), grantId: grant.id, status: 'active', scope: grant.scope, created: now, expiresAt }).run();
  return { token, expiresAt };
}

export async function findRefreshToken(deps: Deps, token: string): Promise<RefreshTokenRow | undefined> {
  return await deps.db.select().from(refreshTokens).where(eq(refreshTokens.tokenHash, hashToken(token))).get();
}
