/**
 * RFC 9068 JWT access tokens: signed with the active access-token key, verified against the
 * published keys, and turned back into the Principal they were issued to. The principal's state
 * is re-read on every request (a disabled admin or a deleted app user loses access at once).
 */
import { decodeProtectedHeader, jwtVerify, errors as joseErrors } from 'jose';
import { signTokenOnThreadPool } from '../keys/token-signing-on-thread-pool.js';
import { randomUUID } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { preparedFor } from '../../db/prepared.js';
import { remembered, rememberedRow, schemaOf } from '../../db/open.js';

import type { Deps } from '../../deps.js';
import type { Principal } from '../../principal.js';
import { ExpiredToken, Unauthorized } from '../../errors.js';
import { isAccessTokenRevoked } from './revocations.js';
import { findClient } from '../clients/find.js';
import { issuerOf } from '../issuer.js';
import { SEALED_USER_CLAIM, sealUserId, subjectFor, unsealUserId } from './subjects.js';
import { prepare } from '../../db/run.js';

export type TokenPrincipal = Exclude<Principal, { kind: 'guest' }>;

export interface AccessTokenRequest {
  principal: TokenPrincipal;
  clientId: string;
  scope: readonly string[];
  /** The token family this token belongs to (its `gid`), so revoking the family revokes it. */
  familyId?: string;
  /** Lifetime in seconds; the configured access-token lifetime by default. */
  ttl?: number;
  /** Extra claims (e.g. RFC 8693 `act`). */
  claims?: Record<string, unknown>;
  /** The client's pairwise sector (subjects.ts): a user's `sub` is then the sector's own. */
  sector?: string;
  /** The resources it is for (RFC 8707), its `aud`; this server (the issuer) when none. */
  resources?: readonly string[];
}

export interface IssuedAccessToken {
  token: string;
  expiresIn: number;
  jti: string;
  expiresAt: number;
}

/** The claims a verified token carries, for introspection and userinfo. */
export interface AccessTokenClaims {
  iss: string;
  sub: string;
  aud: string | string[];
  client_id: string;
  scope: string;
  iat: number;
  exp: number;
  jti: string;
  idp_kind: TokenPrincipal['kind'];
  org?: string;
  app?: string;
  gid?: string;
  [claim: string]: unknown;
}

/**
 * `sub` (RFC 9068 2.2): the user, as the client sees them (OIDC Core 8), or the client acting for
 * itself. A pairwise `sub` comes with the user's id sealed, for principalOfClaims.
 */
function subjectClaimsOf(deps: Deps, principal: TokenPrincipal, sector: string | undefined): Record<string, string> {
  switch (principal.kind) {
    case 'sysadmin':
    case 'admin':
    case 'app-user':
      if (sector === undefined) return { sub: principal.userUuid };
      return { sub: subjectFor(deps, principal.userUuid, sector), [SEALED_USER_CLAIM]: sealUserId(deps, principal.userUuid) };
    case 'organization':
    case 'application':
      return { sub: principal.clientId };
  }
}

export async function signAccessToken(deps: Deps, request: AccessTokenRequest): Promise<IssuedAccessToken> {
  const { principal } = request;
  const key = await deps.keys.signingKey('access_token');
  const ttl = request.ttl ?? deps.config.accessTokenTtl;
  const iat = Math.floor(deps.now() / 1000);
  // randomUUID draws from a cached entropy pool: 122 random bits without a system call per token.
  const jti = randomUUID();
  const claims: Record<string, unknown> = {
    ...request.claims,
    client_id: request.clientId,
    scope: request.scope.join(' '),
    idp_kind: principal.kind === 'sysadmin' ? 'admin' : principal.kind,
    ...('orgUuid' in principal && { org: principal.orgUuid }),
    ...('appUuid' in principal && { app: principal.appUuid }),
    ...('username' in principal && { preferred_username: principal.username }),
    ...(request.familyId && { gid: request.familyId }),
  };
  const issuer = issuerOf(deps);
  const aud = request.resources?.length ? (request.resources.length === 1 ? request.resources[0] : [...request.resources]) : issuer;
  const payload = { ...claims, iss: issuer, ...subjectClaimsOf(deps, principal, request.sector), aud, iat, exp: iat + ttl, jti };
  const token = await signTokenOnThreadPool(key.alg, key.privateKey, { kid: key.kid, typ: 'at+jwt' }, payload);
  return { token, expiresIn: ttl, jti, expiresAt: (iat + ttl) * 1000 };
}

/** How many verified tokens an instance remembers (about 1 KB each); beyond this the oldest go. */
const VERIFIED_TOKENS_KEPT = 5_000;

/**
 * Tokens whose signature, issuer, type and algorithm were checked, by their exact
 * text: those checks give the same answer for the same text every time, and a client sends the
 * same token on request after request, so the signature (WebCrypto, the largest cost of a data
 * request) is verified once per token. What can change is still checked on every use: that the
 * key is still published, expiry, and revocation.
 */
const verifiedTokens = new WeakMap<Deps, Map<string, { kid: string; claims: Readonly<AccessTokenClaims> }>>();

function verifiedTokensOf(deps: Deps) {
  let verified = verifiedTokens.get(deps);
  if (!verified) verifiedTokens.set(deps, (verified = new Map()));
  return verified;
}

/** The claims of a token verified before, if its key is still published and it has not expired. */
async function previouslyVerified(deps: Deps, token: string): Promise<AccessTokenClaims | null> {
  const verified = verifiedTokensOf(deps);
  const known = verified.get(token);
  if (!known) return null;
  // As jose decides expiry: expired once `exp` is not after the current second.
  if (known.claims.exp > Math.floor(deps.now() / 1000) && (await deps.keys.verificationKey(known.kid))) return known.claims;
  verified.delete(token);
  return null;
}

function rememberVerified(deps: Deps, token: string, kid: string, claims: AccessTokenClaims): void {
  const verified = verifiedTokensOf(deps);
  if (verified.size >= VERIFIED_TOKENS_KEPT) verified.delete(verified.keys().next().value ?? '');
  verified.set(token, { kid, claims: Object.freeze(claims) });
}

/**
 * Whose tokens a check takes: `issuer`, those for this server's own API and userinfo (`aud`
 * holds the issuer); `any`, every token this server issued, whatever resource it is for
 * (introspection and revocation, RFC 8707 and RFC 7662 speak for every resource server).
 */
export type AudienceCheck = 'issuer' | 'any';

/** Verifies signature, issuer, audience (as `audience` says), type, expiry and revocation; returns the claims. */
export async function verifyAccessTokenClaims(deps: Deps, token: string, audience: AudienceCheck = 'issuer'): Promise<AccessTokenClaims> {
  const claims = (await previouslyVerified(deps, token)) ?? (await verifySignedClaims(deps, token));
  // Checked on every use, not once with the signature: the verified tokens are shared by both checks.
  if (audience === 'issuer' && ![claims.aud].flat().includes(issuerOf(deps))) {
    throw Unauthorized('the access token is for another resource (aud), not for this server', {
      headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' },
    });
  }
  if (typeof claims.jti !== 'string' || (await isAccessTokenRevoked(deps, claims.jti, typeof claims.gid === 'string' ? claims.gid : undefined))) {
    throw Unauthorized('the access token has been revoked', { headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' } });
  }
  return claims;
}

/** The full check of a token not seen before (or whose key or lifetime ran out since). */
async function verifySignedClaims(deps: Deps, token: string): Promise<AccessTokenClaims> {
  let kid: string | undefined;
  try {
    kid = decodeProtectedHeader(token).kid;
  } catch {
    throw Unauthorized('the access token is malformed', { headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' } });
  }
  const verification = kid ? await deps.keys.verificationKey(kid) : null;
  if (!kid || !verification)
    throw Unauthorized('the access token was not issued by this server', { headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' } });
  let claims: AccessTokenClaims;
  try {
    const { payload } = await jwtVerify(token, verification.key, {
      issuer: issuerOf(deps),
      typ: 'at+jwt',
      algorithms: [verification.alg],
      currentDate: new Date(deps.now()),
    });
    claims = payload as AccessTokenClaims;
  } catch (error) {
    if (error instanceof joseErrors.JWTExpired) {
      throw ExpiredToken('the access token has expired', { headers: { 'WWW-Authenticate': 'Bearer error="invalid_token", error_description="expired"' } });
    }
    throw Unauthorized('the access token is not valid', { headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' } });
  }
  rememberVerified(deps, token, kid, claims);
  return claims;
}

const principalBy = preparedFor((db) => {
  const { adminUsers, entities } = schemaOf(db);
  return {
    admin: prepare(
      db
        .select({ uuid: adminUsers.uuid, username: adminUsers.username, disabled: adminUsers.disabled, sysadmin: adminUsers.sysadmin })
        .from(adminUsers)
        .where(eq(adminUsers.uuid, sql.placeholder('user'))),
    ),
    appUser: prepare(
      db
        .select({ uuid: entities.uuid, name: entities.name, properties: entities.properties })
        .from(entities)
        .where(and(eq(entities.uuid, sql.placeholder('user')), eq(entities.appUuid, sql.placeholder('app')), eq(entities.collection, 'users'))),
    ),
  };
});

/**
 * A principal as it is now: users are re-read (a disabled admin or a deleted app user loses
 * access at once); null when it may no longer act.
 */
export async function currentPrincipal(deps: Deps, principal: TokenPrincipal): Promise<TokenPrincipal | null> {
  const { adminUsers, entities } = schemaOf(deps.db);
  switch (principal.kind) {
    case 'admin':
    case 'sysadmin': {
      const user = await remembered(deps.db, `admin:${principal.userUuid}`, [adminUsers], () => principalBy(deps.db).admin.get({ user: principal.userUuid }));
      if (!user || user.disabled) return null;
      return { kind: user.sysadmin ? 'sysadmin' : 'admin', userUuid: user.uuid, username: user.username };
    }
    case 'app-user': {
      const user = await rememberedRow(deps.db, `app-user:${principal.appUuid}:${principal.userUuid}`, [entities], () =>
        principalBy(deps.db).appUser.get({ user: principal.userUuid, app: principal.appUuid }),
      );
      if (!user || user.properties.disabled === true) return null;
      return { kind: 'app-user', appUuid: principal.appUuid, userUuid: user.uuid, username: user.name ?? '' };
    }
    case 'organization':
    case 'application': {
      // The client is the principal: once it is deleted (docs/api.md#clients), its tokens stop working.
      const client = await findClient(deps, principal.clientId);
      const appUuid = principal.kind === 'application' ? principal.appUuid : null;
      return client?.orgUuid === principal.orgUuid && client.appUuid === appUuid ? principal : null;
    }
  }
}

/** The id of the user a token speaks for: its `sub`, or with a pairwise `sub` the id sealed beside it. */
function userIdOf(deps: Deps, claims: AccessTokenClaims): string | undefined {
  return claims[SEALED_USER_CLAIM] === undefined ? claims.sub : unsealUserId(deps, claims[SEALED_USER_CLAIM]);
}

/** The principal a token speaks for, as it is now; null when that principal no longer may act. */
export async function principalOfClaims(deps: Deps, claims: AccessTokenClaims): Promise<TokenPrincipal | null> {
  const userUuid = userIdOf(deps, claims);
  switch (claims.idp_kind) {
    case 'admin':
    case 'sysadmin':
      return userUuid === undefined ? null : currentPrincipal(deps, { kind: 'admin', userUuid, username: '' });
    case 'app-user':
      return claims.app && userUuid !== undefined ? currentPrincipal(deps, { kind: 'app-user', appUuid: claims.app, userUuid, username: '' }) : null;
    case 'organization':
      return claims.org ? currentPrincipal(deps, { kind: 'organization', orgUuid: claims.org, clientId: claims.client_id }) : null;
    case 'application':
      return claims.org && claims.app
        ? currentPrincipal(deps, { kind: 'application', orgUuid: claims.org, appUuid: claims.app, clientId: claims.client_id })
        : null;
    default:
      return null;
  }
}

/** The principal a token speaks for, and its claims. @throws 401 when it does not verify or its principal may no longer act. */
export async function verifyAccessToken(deps: Deps, token: string): Promise<{ principal: TokenPrincipal; claims: AccessTokenClaims }> {
  const claims = await verifyAccessTokenClaims(deps, token);
  return { principal: await actingPrincipalOf(deps, claims), claims };
}

/** principalOfClaims, for a token that must still act. @throws 401 when its principal no longer may. */
export async function actingPrincipalOf(deps: Deps, claims: AccessTokenClaims): Promise<TokenPrincipal> {
  const principal = await principalOfClaims(deps, claims);
  if (!principal) throw Unauthorized('the account behind this token no longer exists or is disabled');
  return principal;
}

/**
 * When the user behind a token last proved who they are, seconds since the epoch: its
 * `auth_time`, or for a token without one (issued before tokens carried it) its `iat`.
 */
export function signedInAtOf(claims: AccessTokenClaims): number {
  return typeof claims.auth_time === 'number' ? claims.auth_time : claims.iat;
}
