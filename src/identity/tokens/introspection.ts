/**
 * Token introspection (RFC 7662) and revocation (RFC 7009) for authenticated clients.
 * Introspection is for confidential clients (resource servers), and shows a token only to a
 * client of the same application or organization, or the one it was issued to (RFC 7662 4:
 * no scanning of other tenants' tokens); anything else is `{active: false}`. Revoking a refresh
 * token ends its token family; revoking an access token ends that token.
 */
import { eq } from 'drizzle-orm';

import type { Deps } from '../../deps.js';
import { IllegalArgument, InvalidRequest, UnauthorizedClient, isAppError } from '../../errors.js';
import { principalOfClaims, verifyAccessTokenClaims, type AccessTokenClaims } from './access-tokens.js';
import { clientAuthenticationFailed, isPublicClient, type Client } from '../clients/find.js';
import { findTokenFamily, findRefreshToken, type TokenFamily, type RefreshTokenRow } from '../sessions/token-families.js';
import { revokeAccessToken, revokeTokenFamily } from './revocations.js';
import { isUserPrincipal } from './user-claims.js';
import { authenticationClaims } from './issue.js';
import { subjectFor } from './subjects.js';
import { issuerOf } from '../issuer.js';
import { signTokenOnThreadPool } from '../keys/token-signing-on-thread-pool.js';
import { first } from '../../db/run.js';
import { schemaOf } from '../../db/open.js';

type Hint = 'access_token' | 'refresh_token';

async function accessTokenClaims(deps: Deps, token: string): Promise<AccessTokenClaims | null> {
  try {
    const claims = await verifyAccessTokenClaims(deps, token, 'any');
    return (await principalOfClaims(deps, claims)) ? claims : null;
  } catch (error) {
    if (isAppError(error)) return null;
    throw error;
  }
}

async function liveRefreshToken(deps: Deps, token: string): Promise<{ row: RefreshTokenRow; family: TokenFamily } | null> {
  const row = await findRefreshToken(deps, token);
  const family = row && (await findTokenFamily(deps, row.familyId));
  if (!row || !family || row.status !== 'active' || family.revokedAt !== null || row.expiresAt <= deps.now()) return null;
  return { row, family };
}

async function orgOfApp(deps: Deps, appUuid: string | undefined): Promise<string | undefined> {
  const { applications } = schemaOf(deps.db);
  if (!appUuid) return undefined;
  return (await first(deps.db.select({ orgUuid: applications.orgUuid }).from(applications).where(eq(applications.uuid, appUuid))))?.orgUuid;
}

async function isVisibleTo(deps: Deps, client: Client, claims: AccessTokenClaims): Promise<boolean> {
  if (claims.client_id === client.clientId) return true;
  if (client.appUuid) return claims.app === client.appUuid;
  if (client.kind === 'organization') return claims.org === client.orgUuid || (await orgOfApp(deps, claims.app)) === client.orgUuid;
  return false;
}

function tokenTypeHint(params: Readonly<Record<string, string>>): Hint | undefined {
  // RFC 7009 2.1 / RFC 7662 2.1: an unknown hint is ignored, the token is looked up everywhere.
  return params.token_type_hint === 'access_token' || params.token_type_hint === 'refresh_token' ? params.token_type_hint : undefined;
}

export async function introspectToken(deps: Deps, client: Client, params: Readonly<Record<string, string>>): Promise<Record<string, unknown>> {
  if (isPublicClient(client)) throw clientAuthenticationFailed('introspection is for confidential clients');
  const token = params.token;
  if (!token) throw InvalidRequest('token is required');
  const lookups = {
    access_token: async () => {
      const claims = await accessTokenClaims(deps, token);
      if (!claims || !(await isVisibleTo(deps, client, claims))) return null;
      const { iss, sub, aud, client_id, scope, iat, exp, jti, preferred_username, auth_time, amr, acr, cnf } = claims;
      return {
        active: true,
        // RFC 9449 6.2: a DPoP-bound token says so, and to which key.
        token_type: cnf === undefined ? 'Bearer' : 'DPoP',
        ...(cnf !== undefined && { cnf }),
        iss,
        sub,
        aud,
        client_id,
        scope,
        iat,
        exp,
        jti,
        ...(preferred_username !== undefined && { username: preferred_username }),
        // How the user signed in (docs/api.md#second-factors), as the token says.
        ...(auth_time !== undefined && { auth_time }),
        ...(amr !== undefined && { amr }),
        ...(acr !== undefined && { acr }),
      };
    },
    refresh_token: async () => {
      const live = await liveRefreshToken(deps, token);
      if (!live || live.family.clientId !== client.clientId) return null;
      const principal = live.family.principal;
      return {
        active: true,
        token_type: 'refresh_token',
        client_id: live.family.clientId,
        scope: live.row.scope,
        sub: isUserPrincipal(principal) ? subjectFor(deps, principal.userUuid, client.pairwiseSector) : principal.clientId,
        ...(isUserPrincipal(principal) && { username: principal.username }),
        ...(isUserPrincipal(principal) && authenticationClaims(live.family.authTime, live.family.amr)),
        iat: Math.floor(live.row.created / 1000),
        exp: Math.floor(live.row.expiresAt / 1000),
      };
    },
  };
  const order: Hint[] = tokenTypeHint(params) === 'refresh_token' ? ['refresh_token', 'access_token'] : ['access_token', 'refresh_token'];
  for (const kind of order) {
    const answer = await lookups[kind]();
    if (answer) return answer;
  }
  return { active: false };
}

/** RFC 9701 4: the media type a client asks for, and is answered with, for a signed introspection response. */
export const INTROSPECTION_JWT = 'application/token-introspection+jwt';

/**
 * The introspection answer as a signed JWT (RFC 9701 5): for the client that asked (`aud`), from
 * this server (`iss`), with the answer itself in `token_introspection`. Signed with the ID token
 * key, whose algorithm discovery names in `introspection_signing_alg_values_supported`.
 */
export async function signIntrospectionResponse(deps: Deps, client: Client, answer: Record<string, unknown>): Promise<string> {
  const key = await deps.keys.signingKey('id_token');
  const payload = { iss: issuerOf(deps), aud: client.clientId, iat: Math.floor(deps.now() / 1000), token_introspection: answer };
  return signTokenOnThreadPool(key.alg, key.privateKey, { kid: key.kid, typ: 'token-introspection+jwt' }, payload);
}

export async function revokeToken(deps: Deps, client: Client, params: Readonly<Record<string, string>>): Promise<void> {
  const token = params.token;
  if (!token) throw InvalidRequest('token is required');
  const revokers = {
    access_token: async () => {
      const claims = await accessTokenClaims(deps, token);
      if (!claims) return false;
      if (claims.client_id !== client.clientId) throw UnauthorizedClient('the token was not issued to this client');
      await revokeAccessToken(deps, claims.jti, claims.exp * 1000);
      return true;
    },
    refresh_token: async () => {
      const row = await findRefreshToken(deps, token);
      const family = row && (await findTokenFamily(deps, row.familyId));
      if (!family) return false;
      if (family.clientId !== client.clientId) throw UnauthorizedClient('the token was not issued to this client');
      await revokeTokenFamily(deps, family.id);
      return true;
    },
  };
  const order: Hint[] = tokenTypeHint(params) === 'access_token' ? ['access_token', 'refresh_token'] : ['refresh_token', 'access_token'];
  for (const kind of order) {
    if (await revokers[kind]()) return;
  }
  // RFC 7009 2.2: an unknown or already invalid token is not an error.
}

/**
 * Usergrid's revoketoken: revokes one access token of an app user. A token that no longer works
 * (expired, revoked, not a token) has nothing left to revoke, as RFC 7009 2.2 says; a live token
 * of anyone else is refused.
 * @throws AppError `illegal_argument` (400).
 */
export async function revokeAppUserToken(deps: Deps, user: { appUuid: string; uuid: string }, token: string): Promise<void> {
  const claims = await accessTokenClaims(deps, token);
  if (claims === null) return;
  const principal = await principalOfClaims(deps, claims);
  if (principal?.kind !== 'app-user' || principal.appUuid !== user.appUuid || principal.userUuid !== user.uuid) {
    throw IllegalArgument("the token is not one of this user's", { fields: { token: "not this user's" } });
  }
  await revokeAccessToken(deps, claims.jti, claims.exp * 1000);
}
