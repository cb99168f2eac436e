/**
 * OpenID Connect ID tokens (OIDC Core 2), signed with the active `id_token` key (RS256 by
 * default, the algorithm every relying party supports). From the token endpoint `at_hash` is left
 * out (optional there, OIDC Core 3.1.3.6); the authorize endpoint passes the access token and code
 * it issues alongside, which front-channel ID tokens must bind (`at_hash`, `c_hash`, 3.3.2.11).
 */
import { createHash } from 'node:crypto';
import { signTokenOnThreadPool } from '../keys/token-signing-on-thread-pool.js';
import type { SigningAlg } from '../../config.js';
import type { Deps } from '../../deps.js';
import { issuerOf } from '../issuer.js';
import { ID_TOKEN_SCOPE_CLAIMS, userClaims, type UserPrincipal } from './user-claims.js';
import { acrOf } from '../factors/second-factor.js';
import { subjectFor } from './subjects.js';

export interface IdTokenRequest {
  principal: UserPrincipal;
  clientId: string;
  scope: readonly string[];
  /** When the user authenticated, seconds since the epoch. */
  authTime: number;
  nonce?: string | null;
  /** Authentication methods (RFC 8176), e.g. `pwd`. */
  amr?: readonly string[];
  /** The access token issued with this ID token from the authorize endpoint (→ `at_hash`). */
  accessToken?: string;
  /** The code issued with this ID token from the authorize endpoint (→ `c_hash`). */
  code?: string;
  /**
   * No access token comes with this ID token (response_type `id_token`): it carries every claim
   * of its scopes, else only ID_TOKEN_SCOPE_CLAIMS (OIDC Core 5.4).
   */
  alone?: boolean;
  /** Claims the `claims` parameter asked the ID token for (OIDC Core 5.5), whatever the scope. */
  requested?: readonly string[];
  /** The client's pairwise sector (subjects.ts), for a `sub` of its own. */
  sector?: string;
}

/**
 * OIDC Core 3.3.2.11: the left half of the hash of the value, base64url; the hash is the one of
 * the signing algorithm (SHA-256 for RS256, ES256, PS256; SHA-512 for EdDSA with Ed25519).
 */
export function tokenHash(alg: SigningAlg, value: string): string {
  const digest = createHash(alg === 'EdDSA' ? 'sha512' : 'sha256')
    .update(value, 'ascii')
    .digest();
  return digest.subarray(0, digest.length / 2).toString('base64url');
}

export async function signIdToken(deps: Deps, request: IdTokenRequest): Promise<string> {
  const key = await deps.keys.signingKey('id_token');
  const iat = Math.floor(deps.now() / 1000);
  const { sub, ...claims } = await userClaims(deps, request.principal, request.scope, {
    subject: subjectFor(deps, request.principal.userUuid, request.sector),
    scopeClaims: request.alone ? undefined : ID_TOKEN_SCOPE_CLAIMS,
    requested: request.requested,
  });
  const payload = {
    ...claims,
    iss: issuerOf(deps),
    sub,
    aud: request.clientId,
    iat,
    exp: iat + deps.config.idTokenTtl,
    auth_time: request.authTime,
    ...(request.nonce && { nonce: request.nonce }),
    ...(request.amr && { amr: request.amr }),
    ...(acrOf(request.amr) && { acr: acrOf(request.amr) }),
    ...(request.accessToken && { at_hash: tokenHash(key.alg, request.accessToken) }),
    ...(request.code && { c_hash: tokenHash(key.alg, request.code) }),
  };
  return await signTokenOnThreadPool(key.alg, key.privateKey, { kid: key.kid, typ: 'JWT' }, payload);
}
