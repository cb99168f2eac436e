/**
 * What /connect/authorize sends back: the code, tokens and state of a successful request, or
 * `error`, `error_description` and `state` of a failed one (RFC 6749 4.1.2, 4.1.2.1, 4.2.2; OIDC
 * Core 3.2.2.5, 3.3.2.5), always with `iss` (RFC 9207) so the client knows who answered.
 */
import type { Deps } from '../../deps.js';
import { AccessDenied, type AppError } from '../../errors.js';
import { signAccessToken } from '../tokens/access-tokens.js';
import { issuerOf } from '../issuer.js';
import { createAuthorizationCode } from './authorization-codes.js';
import { signIdToken } from '../tokens/id-tokens.js';
import type { AuthorizeRequest, RedirectTarget } from './authorize-request.js';
import { amrOf, type SessionRow } from '../sessions/sessions.js';
import { rememberSessionClient, sidOf } from '../sessions/logout.js';
import { authenticationClaims, requestedUserinfoClaims } from '../tokens/issue.js';
import { approveDeviceAuthorization, denyDeviceAuthorization } from './device-authorizations.js';

export interface AuthorizationResponse {
  target: RedirectTarget;
  params: Record<string, string>;
}

function withStateAndIssuer(deps: Deps, target: RedirectTarget, params: Record<string, string>): AuthorizationResponse {
  return { target, params: { ...params, ...(target.state !== undefined && { state: target.state }), iss: issuerOf(deps) } };
}

export function errorResponse(deps: Deps, target: RedirectTarget, error: AppError): AuthorizationResponse {
  return withStateAndIssuer(deps, target, { error: error.error, error_description: error.message });
}

/** The user refused: `access_denied` for the client, or for the device's next poll (RFC 8628 3.5). */
export async function denyAuthorization(deps: Deps, request: AuthorizeRequest, description: string): Promise<AuthorizationResponse> {
  if (request.device !== undefined) await denyDeviceAuthorization(deps, request.device);
  return errorResponse(deps, request, AccessDenied(description));
}

/**
 * Issues what the response type asks for, for the signed-in user of `session`; a device
 * authorization is marked allowed instead, for the device to collect its tokens.
 */
export async function issueAuthorizationResponse(deps: Deps, request: AuthorizeRequest, session: SessionRow): Promise<AuthorizationResponse> {
  if (request.device !== undefined) {
    await approveDeviceAuthorization(deps, request.device, session);
    return withStateAndIssuer(deps, request, {});
  }
  const { client, parts, scope } = request;
  const principal = session.principal;
  const authTime = Math.floor(session.authTime / 1000);
  const amr = amrOf(session);
  const sid = sidOf(session);
  // The client is told when this session ends (docs/api.md#logout).
  await rememberSessionClient(deps, session, client.clientId);
  const params: Record<string, string> = {};
  if (parts.has('code')) {
    params.code = await createAuthorizationCode(deps, {
      clientId: client.clientId,
      principal,
      redirectUri: request.redirectUri,
      scope,
      codeChallenge: request.codeChallenge,
      codeChallengeMethod: request.codeChallengeMethod,
      nonce: request.nonce,
      authTime,
      amr,
      claims: request.claims,
      sid,
      resources: request.resources,
      dpopJkt: request.dpopJkt,
    });
  }
  if (parts.has('token')) {
    const claims = { ...authenticationClaims(authTime, amr), ...requestedUserinfoClaims(request.claims) };
    const issued = await signAccessToken(deps, {
      principal,
      clientId: client.clientId,
      scope,
      claims,
      sector: client.pairwiseSector,
      resources: request.resources,
    });
    Object.assign(params, { access_token: issued.token, token_type: 'Bearer', expires_in: String(issued.expiresIn), scope: scope.join(' ') });
  }
  if (parts.has('id_token')) {
    // OIDC Core 3.3.2.11: at_hash and c_hash bind the front-channel token and code to this ID token.
    params.id_token = await signIdToken(deps, {
      principal,
      clientId: client.clientId,
      scope,
      authTime,
      nonce: request.nonce,
      amr,
      accessToken: params.access_token,
      code: params.code,
      alone: request.responseType === 'id_token',
      requested: request.claims.id_token,
      sector: client.pairwiseSector,
      sid,
    });
  }
  return withStateAndIssuer(deps, request, params);
}
