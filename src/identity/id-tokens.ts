/**
 * OpenID Connect ID tokens (OIDC Core 2), signed with the active `id_token` key (RS256 by
 * default, the algorithm every relying party supports). `at_hash` is left out: it is optional
 * when the ID token comes from the token endpoint (OIDC Core 3.1.3.6).
 */
import { signCompactJws } from './jws.js';
import type { Deps } from '../deps.js';
import { issuerOf } from './access-tokens.js';
import { userClaims, type UserPrincipal } from './user-claims.js';

export interface IdTokenRequest {
  principal: UserPrincipal;
  clientId: string;
  scope: readonly string[];
  /** When the user authenticated, seconds since the epoch. */
  authTime: number;
  nonce?: string | null;
  /** Authentication methods (RFC 8176), e.g. `pwd`. */
  amr?: readonly string[];
}

export async function signIdToken(deps: Deps, request: IdTokenRequest): Promise<string> {
  const key = await deps.keys.signingKey('id_token');
  const iat = Math.floor(deps.now() / 1000);
  const { sub, ...claims } = userClaims(deps, request.principal, request.scope);
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
  };
  return signCompactJws(key.alg, key.privateKey, { kid: key.kid, typ: 'JWT' }, payload);
}
