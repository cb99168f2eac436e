/**
 * RFC 8693 token exchange: a confidential client trades an access token it holds (the subject
 * token) for a new access token of its own that speaks for the same principal, with `act`
 * naming the client (4.1), a scope no wider than the subject's, and a lifetime no longer than
 * the subject's. The new token stays in the subject's grant, so revoking that grant ends both.
 * Clients of an application may only exchange tokens of that application; organization
 * clients those of their organization.
 */
import { eq } from 'drizzle-orm';

import type { Deps } from '../../deps.js';
import { InvalidRequest, InvalidTarget, isAppError } from '../../errors.js';
import { principalOfClaims, verifyAccessTokenClaims, type AccessTokenClaims, type TokenPrincipal } from '../tokens/access-tokens.js';
import { issuerOf } from '../issuer.js';
import { scopesFor, TOKEN_EXCHANGE, type Client } from '../clients/find.js';
import { issueTokens } from '../tokens/issue.js';
import { parseScope, resolveScope, type Scope } from '../scopes.js';
import { requireParam, type GrantHandler } from './types.js';
import { first } from '../../db/run.js';
import { schemaOf } from '../../db/open.js';

export const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
// Our access tokens are JWTs, so they may also be presented under the JWT type (RFC 8693 3).
const SUBJECT_TYPES = [ACCESS_TOKEN_TYPE, 'urn:ietf:params:oauth:token-type:jwt'];

async function verifySubject(deps: Deps, token: string): Promise<{ claims: AccessTokenClaims; principal: TokenPrincipal }> {
  try {
    const claims = await verifyAccessTokenClaims(deps, token);
    const principal = await principalOfClaims(deps, claims);
    if (principal) return { claims, principal };
  } catch (error) {
    if (!isAppError(error)) throw error;
  }
  // RFC 8693 2.2.2: an invalid subject_token is invalid_request.
  throw InvalidRequest('subject_token is not a valid access token of this server');
}

function appOfPrincipal(principal: TokenPrincipal): string | null {
  return principal.kind === 'app-user' || principal.kind === 'application' ? principal.appUuid : null;
}

async function mayActFor(deps: Deps, client: Client, principal: TokenPrincipal): Promise<boolean> {
  const { applications } = schemaOf(deps.db);
  if (client.appUuid) return appOfPrincipal(principal) === client.appUuid;
  if (principal.kind === 'organization') return principal.orgUuid === client.orgUuid;
  const appUuid = appOfPrincipal(principal);
  if (!appUuid) return false;
  return (await first(deps.db.select({ orgUuid: applications.orgUuid }).from(applications).where(eq(applications.uuid, appUuid))))?.orgUuid === client.orgUuid;
}

export const tokenExchangeGrant: GrantHandler = {
  grantType: TOKEN_EXCHANGE,
  parameters: ['subject_token', 'subject_token_type', 'actor_token', 'requested_token_type', 'audience', 'scope'],
  async handle(deps, { client, params, jkt, resources }) {
    const subjectToken = requireParam(params, 'subject_token');
    const subjectType = requireParam(params, 'subject_token_type');
    if (!SUBJECT_TYPES.includes(subjectType)) throw InvalidRequest(`subject_token_type must be ${ACCESS_TOKEN_TYPE}`);
    if (params.requested_token_type !== undefined && params.requested_token_type !== ACCESS_TOKEN_TYPE) {
      throw InvalidRequest(`requested_token_type may only be ${ACCESS_TOKEN_TYPE}`);
    }
    if (params.actor_token !== undefined) throw InvalidRequest('actor_token is not supported: the authenticated client is the actor');
    for (const target of [params.audience, ...resources]) {
      if (target !== undefined && target !== issuerOf(deps)) throw InvalidTarget(`this server issues tokens only for ${issuerOf(deps)}`);
    }
    const { claims, principal } = await verifySubject(deps, subjectToken);
    if (!(await mayActFor(deps, client, principal))) throw InvalidRequest('this client may not act for the subject of that token');
    const subjectScope = claims.scope.split(' ');
    const allowed = scopesFor(client, TOKEN_EXCHANGE).filter((scope) => subjectScope.includes(scope));
    const scope: Scope[] = resolveScope(parseScope(params.scope), allowed, 'the subject token and this client');
    const remaining = claims.exp - Math.floor(deps.now() / 1000);
    const previousActor = claims.act;
    const issued = await issueTokens(deps, {
      client,
      principal,
      scope,
      familyId: claims.gid,
      jkt,
      ttl: Math.min(deps.config.accessTokenTtl, remaining),
      claims: { act: { sub: client.clientId, ...(previousActor !== undefined && { act: previousActor }) } },
    });
    return { ...issued, response: { ...issued.response, issued_token_type: ACCESS_TOKEN_TYPE } };
  },
};
