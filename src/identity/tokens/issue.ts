/**
 * Building the token response (RFC 6749 5.1): the access token always, a refresh token when the
 * token family holds `offline_access` and the client may refresh, an ID token when `openid` was granted
 * to a user.
 */
import type { Deps } from '../../deps.js';
import { signAccessToken, type TokenPrincipal } from './access-tokens.js';
import { signIdToken } from './id-tokens.js';
import { bindTokenFamily, insertRefreshToken, type TokenFamily } from '../sessions/token-families.js';
import { isUserPrincipal } from './user-claims.js';
import { isPublicClient, type Client } from '../clients/find.js';
import type { Scope } from '../scopes.js';
import type { IssuedFacts } from './audit.js';
import { acrOf } from '../factors/second-factor.js';
import type { RequestedClaims } from '../../db/schema.js';

export interface TokenResponse {
  access_token: string;
  /** `DPoP` for a token bound to a DPoP key (RFC 9449 5). */
  token_type: 'Bearer' | 'DPoP';
  expires_in: number;
  scope: string;
  refresh_token?: string;
  id_token?: string;
  /** RFC 8693 2.2.1. */
  issued_token_type?: string;
}

export interface Issued {
  response: TokenResponse;
  facts: IssuedFacts;
}

export interface IssueRequest {
  client: Client;
  principal: TokenPrincipal;
  scope: readonly Scope[];
  /** The token family the tokens belong to (user sign-ins); revoking it revokes them. */
  family?: TokenFamily;
  /** A token family's id to carry without a refresh token (token exchange keeps its subject's). */
  familyId?: string;
  nonce?: string | null;
  /** How the user authenticated (RFC 8176), when no token family says it. */
  amr?: readonly string[];
  ttl?: number;
  claims?: Record<string, unknown>;
  /** The thumbprint of the DPoP key to bind the tokens to (RFC 9449 5, 6.1). */
  jkt?: string;
}

/**
 * What a user's tokens say about the sign-in behind them (RFC 9068 2.2.1, OIDC Core 2): when it
 * was (`auth_time`), how (`amr`, RFC 8176) and how strong that is (`acr`,
 * docs/api.md#second-factors). A token family keeps them, so refreshed tokens say the same.
 */
/**
 * The claims the `claims` parameter asked the UserInfo endpoint for (OIDC Core 5.5), carried by
 * the access token that endpoint is called with (userinfo.ts).
 */
export const USERINFO_CLAIMS = 'userinfo_claims';

export function requestedUserinfoClaims(claims: RequestedClaims | null | undefined): Record<string, unknown> {
  return claims && claims.userinfo.length > 0 ? { [USERINFO_CLAIMS]: claims.userinfo } : {};
}

export function authenticationClaims(authTime: number | undefined, amr: readonly string[] | null | undefined): Record<string, unknown> {
  const acr = acrOf(amr);
  return { ...(authTime !== undefined && { auth_time: authTime }), ...(amr && { amr }), ...(acr && { acr }) };
}

export async function issueTokens(deps: Deps, request: IssueRequest): Promise<Issued> {
  const { client, principal, scope, family } = request;
  const amr = family?.amr ?? request.amr;
  const access = await signAccessToken(deps, {
    principal,
    clientId: client.clientId,
    scope,
    familyId: family?.id ?? request.familyId,
    ttl: request.ttl,
    sector: client.pairwiseSector,
    claims: {
      ...(isUserPrincipal(principal) && authenticationClaims(family?.authTime, amr)),
      ...requestedUserinfoClaims(family?.claims),
      ...request.claims,
      ...(request.jkt !== undefined && { cnf: { jkt: request.jkt } }),
    },
  });
  const tokenType = request.jkt === undefined ? 'Bearer' : 'DPoP';
  const response: TokenResponse = { access_token: access.token, token_type: tokenType, expires_in: access.expiresIn, scope: scope.join(' ') };
  if (family && family.scope.split(' ').includes('offline_access') && client.grantTypes.includes('refresh_token')) {
    // RFC 9449 5: a public client's refresh tokens are bound to its DPoP key, the first it used.
    if (request.jkt !== undefined && isPublicClient(client) && family.dpopJkt === null) await bindTokenFamily(deps, family.id, request.jkt);
    response.refresh_token = (await insertRefreshToken(deps.db, deps.now(), deps.config.refreshTokenTtl, family)).token;
  }
  if (scope.includes('openid') && isUserPrincipal(principal)) {
    response.id_token = await signIdToken(deps, {
      principal,
      clientId: client.clientId,
      scope,
      authTime: family?.authTime ?? Math.floor(deps.now() / 1000),
      nonce: request.nonce,
      amr: amr ?? undefined,
      requested: family?.claims?.id_token,
      sector: client.pairwiseSector,
    });
  }
  return {
    response,
    facts: {
      client_id: client.clientId,
      subject: isUserPrincipal(principal) ? principal.userUuid : principal.clientId,
      subject_kind: principal.kind,
      scope: response.scope,
      jti: access.jti,
      refresh_token_issued: response.refresh_token !== undefined,
      id_token_issued: response.id_token !== undefined,
    },
  };
}
