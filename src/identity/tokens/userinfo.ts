/**
 * The UserInfo endpoint (OIDC Core 5.3): the claims of the user an access token speaks for, when
 * that token was granted `openid`. Errors follow RFC 6750 3.1 (`invalid_token` 401,
 * `insufficient_scope` 403, each with its `WWW-Authenticate: Bearer` challenge).
 */
import type { Deps } from '../../deps.js';
import { InsufficientScope, InvalidToken, isAppError } from '../../errors.js';
import { principalOfClaims, verifyAccessTokenClaims } from './access-tokens.js';
import { isUserPrincipal, userClaims } from './user-claims.js';

export async function findUserinfo(deps: Deps, token: string | undefined): Promise<Record<string, unknown>> {
  if (!token) throw InvalidToken('an access token is required', { headers: { 'WWW-Authenticate': 'Bearer realm="idp"' } });
  let claims;
  try {
    claims = await verifyAccessTokenClaims(deps, token);
  } catch (error) {
    if (!isAppError(error)) throw error;
    throw InvalidToken(error.message, { headers: { 'WWW-Authenticate': `Bearer realm="idp", error="invalid_token", error_description="${error.message}"` } });
  }
  const scope = claims.scope.split(' ');
  if (!scope.includes('openid')) {
    throw InsufficientScope('the access token was not granted the openid scope', {
      headers: { 'WWW-Authenticate': 'Bearer realm="idp", error="insufficient_scope", scope="openid"' },
    });
  }
  const principal = await principalOfClaims(deps, claims);
  if (!principal || !isUserPrincipal(principal)) {
    throw InvalidToken('the user of this access token no longer exists or is disabled', {
      headers: { 'WWW-Authenticate': 'Bearer realm="idp", error="invalid_token"' },
    });
  }
  return userClaims(deps, principal, scope);
}
