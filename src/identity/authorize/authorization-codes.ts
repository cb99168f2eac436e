/**
 * Authorization codes (RFC 6749 4.1): minted by the authorize endpoint with
 * `createAuthorizationCode`, exchanged once at the token endpoint (grants/authorization-code.ts).
 * Only the code's SHA-256 is stored.
 */
import { eq } from 'drizzle-orm';
import type { authorizationCodes, RequestedClaims } from '../../db/schema.js';
import type { Deps } from '../../deps.js';
import { hashToken, newOpaqueToken } from '../sessions/token-families.js';
import type { TokenPrincipal } from '../tokens/access-tokens.js';
import { first } from '../../db/run.js';
import { schemaOf } from '../../db/open.js';

export type AuthorizationCodeRow = typeof authorizationCodes.$inferSelect;

export interface NewAuthorizationCode {
  clientId: string;
  /** The signed-in user the code speaks for. */
  principal: TokenPrincipal;
  /** Exactly as sent to /connect/authorize; the exchange must repeat it (RFC 6749 4.1.3). */
  redirectUri: string;
  /** The scopes consented to. */
  scope: readonly string[];
  codeChallenge?: string | null;
  codeChallengeMethod?: 'S256' | 'plain' | null;
  nonce?: string | null;
  /** When the user authenticated, seconds since the epoch (OIDC `auth_time`). */
  authTime: number;
  /** How the user authenticated (RFC 8176), for the tokens the code is exchanged for. */
  amr?: readonly string[];
  /** The single claims the `claims` parameter asked for (OIDC Core 5.5). */
  claims?: RequestedClaims;
  /** The browser session that issued the code (OIDC `sid`). */
  sid?: string;
  /** The resources the request named (RFC 8707), which the exchange may narrow. */
  resources?: readonly string[];
  /** RFC 9449 10: the thumbprint of the DPoP key the exchange must prove. */
  dpopJkt?: string;
}

/** Stores a new one-time code living `codeTtl` seconds; returns the code itself. */
export async function createAuthorizationCode(deps: Deps, input: NewAuthorizationCode): Promise<string> {
  const { authorizationCodes } = schemaOf(deps.db);
  const code = newOpaqueToken();
  const now = deps.now();
  await deps.db.insert(authorizationCodes).values({
    codeHash: hashToken(code),
    clientId: input.clientId,
    principal: input.principal,
    redirectUri: input.redirectUri,
    scope: input.scope.join(' '),
    codeChallenge: input.codeChallenge ?? null,
    codeChallengeMethod: input.codeChallenge ? (input.codeChallengeMethod ?? 'plain') : null,
    nonce: input.nonce ?? null,
    authTime: input.authTime,
    amr: input.amr ? [...input.amr] : null,
    claims: input.claims && (input.claims.userinfo.length > 0 || input.claims.id_token.length > 0) ? input.claims : null,
    sid: input.sid ?? null,
    resources: input.resources?.length ? [...input.resources] : null,
    dpopJkt: input.dpopJkt ?? null,
    created: now,
    expiresAt: now + deps.config.codeTtl * 1000,
  });
  return code;
}

export async function findAuthorizationCode(deps: Deps, code: string): Promise<AuthorizationCodeRow | undefined> {
  const { authorizationCodes } = schemaOf(deps.db);
  return await first(
    deps.db
      .select()
      .from(authorizationCodes)
      .where(eq(authorizationCodes.codeHash, hashToken(code))),
  );
}
