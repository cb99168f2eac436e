/**
 * The UserInfo endpoint (OIDC Core 5.3): the claims of the user an access token speaks for, when
 * that token was granted `openid`; a DPoP-bound one with its proof (RFC 9449 7). Errors follow RFC 6750 3.1 (`invalid_token` 401,
 * `insufficient_scope` 403, each with its `WWW-Authenticate: Bearer` challenge).
 */
import type { Deps } from '../../deps.js';
import { InsufficientScope, InvalidToken, isAppError } from '../../errors.js';
import { principalOfClaims } from './access-tokens.js';
import { verifyPresentedToken, type DpopRequest, type PresentedToken } from './dpop.js';
import { isUserPrincipal, userClaims } from './user-claims.js';
import { USERINFO_CLAIMS } from './issue.js';

export async function findUserinfo(deps: Deps, presented: PresentedToken | undefined, request: DpopRequest): Promise<Record<string, unknown>> {
  if (!presented) throw InvalidToken('an access token is required', { headers: { 'WWW-Authenticate': 'Bearer realm="idp"' } });
  let claims;
  try {
    claims = await verifyPresentedToken(deps, presented, request);
  } catch (error) {
    if (!isAppError(error)) throw error;
    // A DPoP refusal keeps its DPoP challenge (RFC 9449 7.1).
    const challenge = error.headers['WWW-Authenticate']?.startsWith('DPoP ')
      ? error.headers
      : { 'WWW-Authenticate': `Bearer realm="idp", error="invalid_token", error_description="${error.message}"` };
    throw InvalidToken(error.message, { headers: challenge });
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
  const requested = claims[USERINFO_CLAIMS];
  // The token's `sub` is the user as its client sees them, pairwise or not (OIDC Core 5.3.2: as in the ID token).
  return userClaims(deps, principal, scope, {
    subject: claims.sub,
    requested: Array.isArray(requested) ? requested.filter((name) => typeof name === 'string') : [],
  });
}
