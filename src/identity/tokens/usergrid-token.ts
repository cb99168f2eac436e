/**
 * Usergrid's token endpoints (docs/api.md#token-endpoints): `POST /management/token` and
 * `POST /{org}/{app}/token` with grant_type password or client_credentials, answering with the
 * same access tokens as /connect/token plus the `user`, `organization` or `application` the
 * token is for, as Usergrid did.
 */
import { z } from 'zod';
import type { Deps } from '../../deps.js';
import { Forbidden, InvalidGrant, UnsupportedGrantType } from '../../errors.js';
import { str } from '../../management/schemas.js';
import { getCredential } from '../../management/credentials.js';
import type { Application } from '../../management/applications.js';
import { authenticateAdmin, authenticateAppUser, authenticateClientCredentials, isWrongCredentials } from '../sign-in/authenticate.js';
import { signAccessToken, type IssuedAccessToken, type TokenPrincipal } from './access-tokens.js';
import type { AdminUser } from '../../management/admin-users.js';
import type { EntityRow } from '../../db/entity-store.js';
import { ADMIN_CLI } from '../clients/find.js';
import { withTokenAudit, type IssuedFacts } from './audit.js';
import { insertTokenFamily } from '../sessions/token-families.js';
import { authenticationClaims } from './issue.js';
import type { LoginContext } from '../sign-in/throttle.js';

export const UsergridTokenRequest = z.object({
  grant_type: str('grant_type'),
  username: z.string().optional(),
  password: z.string().optional(),
  /** The second factor of a user who has one (docs/api.md#second-factors). */
  otp: z.string().optional(),
  client_id: z.string().optional(),
  client_secret: z.string().optional(),
  /** The token's lifetime in milliseconds, as Usergrid took it; 0 or absent: the server's. */
  ttl: z.union([z.number().int().nonnegative(), z.string().regex(/^\d+$/)], { error: 'ttl must be a whole number of milliseconds, 0 or more' }).optional(),
});
export type UsergridTokenRequest = z.infer<typeof UsergridTokenRequest>;

/**
 * The access token's lifetime in seconds for Usergrid's `ttl` (milliseconds): at most the
 * server's access-token lifetime, which is also what 0 or no ttl gives; `expires_in` says which.
 */
function lifetimeOf(deps: Deps, input: UsergridTokenRequest): number {
  const longest = deps.config.accessTokenTtl;
  const ttl = Number(input.ttl ?? 0);
  return ttl === 0 ? longest : Math.min(longest, Math.ceil(ttl / 1000));
}

export { ADMIN_CLI };
/** Usergrid tokens are for the management and data API: the resource scope. */
const API_SCOPE = ['api'];

export type UsergridTokenResult = { issued: IssuedAccessToken; clientId: string } & (
  { admin: AdminUser } | { appUser: EntityRow } | { client: Exclude<TokenPrincipal, { kind: 'admin' | 'sysadmin' | 'app-user' }> }
);

function factsOf(result: UsergridTokenResult): IssuedFacts {
  const [subject, subject_kind] =
    'admin' in result ? [result.admin.uuid, 'admin'] : 'appUser' in result ? [result.appUser.uuid, 'app-user'] : [result.client.clientId, result.client.kind];
  return { client_id: result.clientId, subject, subject_kind, scope: API_SCOPE.join(' '), jti: result.issued.jti };
}

/**
 * Usergrid answered a wrong password and wrong client credentials alike at its token endpoints,
 * and its SDKs expect that answer: 400 `invalid_grant`, "invalid username or password"
 * (docs/api.md#usergrid-style). /connect/token keeps RFC 6749's distinction.
 */
async function asUsergridAnswers<T>(issue: () => Promise<T>): Promise<T> {
  try {
    return await issue();
  } catch (error) {
    if (isWrongCredentials(error)) throw InvalidGrant('invalid username or password');
    throw error;
  }
}

function audited(deps: Deps, endpoint: string, input: UsergridTokenRequest, context: LoginContext, issue: () => Promise<UsergridTokenResult>) {
  const audit = { endpoint, grant_type: input.grant_type, client_id: input.client_id, address: context.address };
  return withTokenAudit(deps, audit, () => asUsergridAnswers(issue), factsOf);
}

function required(input: UsergridTokenRequest, ...fields: ('username' | 'password' | 'client_id' | 'client_secret')[]): string[] {
  const missing = fields.filter((field) => !input[field]);
  if (missing.length > 0) throw InvalidGrant(`${missing.join(' and ')} required for grant_type ${input.grant_type}`);
  return fields.map((field) => input[field]!);
}

/**
 * A user's password sign-in: a token family of its own, so that ending all of the user's
 * sign-ins (revoketokens, a password reset, deactivation) reaches this token too (revocations.ts).
 */
async function signInToken(deps: Deps, principal: TokenPrincipal, clientId: string, ttl: number, amr: readonly string[]) {
  const family = await insertTokenFamily(deps.db, deps.now(), { clientId, principal, scope: API_SCOPE, authTime: Math.floor(deps.now() / 1000), amr });
  const claims = authenticationClaims(family.authTime, amr);
  return await signAccessToken(deps, { principal, clientId, scope: API_SCOPE, familyId: family.id, ttl, claims });
}

export async function issueManagementToken(deps: Deps, input: UsergridTokenRequest, context: LoginContext): Promise<UsergridTokenResult> {
  return audited(deps, '/management/token', input, context, () => managementToken(deps, input, context));
}

async function managementToken(deps: Deps, input: UsergridTokenRequest, context: LoginContext): Promise<UsergridTokenResult> {
  const ttl = lifetimeOf(deps, input);
  if (input.grant_type === 'password') {
    const [username, password] = required(input, 'username', 'password');
    const { account: admin, amr } = await authenticateAdmin(deps, username, password, context, input.otp);
    const principal: TokenPrincipal = { kind: admin.sysadmin ? 'sysadmin' : 'admin', userUuid: admin.uuid, username: admin.username };
    return { issued: await signInToken(deps, principal, ADMIN_CLI, ttl, amr), clientId: ADMIN_CLI, admin };
  }
  if (input.grant_type === 'client_credentials') {
    const [clientId, clientSecret] = required(input, 'client_id', 'client_secret');
    const client = await authenticateClientCredentials(deps, clientId, clientSecret);
    if (client.kind !== 'organization' && client.kind !== 'application') throw InvalidGrant('unexpected client');
    return { issued: await signAccessToken(deps, { principal: client, clientId, scope: API_SCOPE, ttl }), clientId, client };
  }
  throw UnsupportedGrantType(`grant_type '${input.grant_type}' is not supported here; use password or client_credentials`);
}

export async function issueApplicationToken(deps: Deps, app: Application, input: UsergridTokenRequest, context: LoginContext): Promise<UsergridTokenResult> {
  return audited(deps, '/{org}/{app}/token', input, context, () => applicationToken(deps, app, input, context));
}

async function applicationToken(deps: Deps, app: Application, input: UsergridTokenRequest, context: LoginContext): Promise<UsergridTokenResult> {
  const ttl = lifetimeOf(deps, input);
  if (input.grant_type === 'password') {
    const [username, password] = required(input, 'username', 'password');
    const { account: user, amr } = await authenticateAppUser(deps, app.uuid, username, password, context, input.otp);
    const credential = await getCredential(deps, 'application', app.uuid);
    const principal: TokenPrincipal = { kind: 'app-user', appUuid: app.uuid, userUuid: user.uuid, username: user.name ?? '' };
    return { issued: await signInToken(deps, principal, credential.clientId, ttl, amr), clientId: credential.clientId, appUser: user };
  }
  if (input.grant_type === 'client_credentials') {
    const [clientId, clientSecret] = required(input, 'client_id', 'client_secret');
    const client = await authenticateClientCredentials(deps, clientId, clientSecret);
    if (client.kind !== 'application' || client.appUuid !== app.uuid) throw Forbidden('these credentials are not for this application');
    return { issued: await signAccessToken(deps, { principal: client, clientId, scope: API_SCOPE, ttl }), clientId, client };
  }
  throw UnsupportedGrantType(`grant_type '${input.grant_type}' is not supported here; use password or client_credentials`);
}
