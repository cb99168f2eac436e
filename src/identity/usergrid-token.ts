/**
 * Usergrid's token endpoints (CONTRACT.md section 2): `POST /management/token` and
 * `POST /{org}/{app}/token` with grant_type password or client_credentials, answering with the
 * same access tokens as /connect/token plus the `user`, `organization` or `application` the
 * token is for, as Usergrid did.
 */
import { z } from 'zod';
import type { Deps } from '../deps.js';
import { Forbidden, InvalidGrant, UnsupportedGrantType } from '../errors.js';
import { str } from '../management/schemas.js';
import { getCredential } from '../management/credentials.js';
import type { Application } from '../management/applications.js';
import { authenticateAdmin, authenticateAppUser, authenticateClientCredentials } from './authenticate.js';
import { signAccessToken, type IssuedAccessToken, type TokenPrincipal } from './access-tokens.js';
import type { AdminUser } from '../management/admin-users.js';
import type { EntityRow } from '../data/store.js';

export const UsergridTokenRequest = z.object({
  grant_type: str('grant_type'),
  username: z.string().optional(),
  password: z.string().optional(),
  client_id: z.string().optional(),
  client_secret: z.string().optional(),
});
export type UsergridTokenRequest = z.infer<typeof UsergridTokenRequest>;

/** The built-in public client of admin tools (CONTRACT.md section 2). */
export const ADMIN_CLI = 'admin-cli';
/** Usergrid tokens are for the management and data API: the resource scope. */
const API_SCOPE = ['api'];

export type UsergridTokenResult =
  | { issued: IssuedAccessToken; admin: AdminUser }
  | { issued: IssuedAccessToken; appUser: EntityRow }
  | { issued: IssuedAccessToken; client: Exclude<TokenPrincipal, { kind: 'admin' | 'sysadmin' | 'app-user' }> };

function required(input: UsergridTokenRequest, ...fields: ('username' | 'password' | 'client_id' | 'client_secret')[]): string[] {
  const missing = fields.filter((field) => !input[field]);
  if (missing.length > 0) throw InvalidGrant(`${missing.join(' and ')} required for grant_type ${input.grant_type}`);
  return fields.map((field) => input[field]!);
}

export async function issueManagementToken(deps: Deps, input: UsergridTokenRequest): Promise<UsergridTokenResult> {
  if (input.grant_type === 'password') {
    const [username, password] = required(input, 'username', 'password');
    const admin = await authenticateAdmin(deps, username, password);
    const principal: TokenPrincipal = { kind: admin.sysadmin ? 'sysadmin' : 'admin', userUuid: admin.uuid, username: admin.username };
    return { issued: await signAccessToken(deps, { principal, clientId: ADMIN_CLI, scope: API_SCOPE }), admin };
  }
  if (input.grant_type === 'client_credentials') {
    const [clientId, clientSecret] = required(input, 'client_id', 'client_secret');
    const client = await authenticateClientCredentials(deps, clientId, clientSecret);
    if (client.kind !== 'organization' && client.kind !== 'application') throw InvalidGrant('unexpected client');
    return { issued: await signAccessToken(deps, { principal: client, clientId, scope: API_SCOPE }), client };
  }
  throw UnsupportedGrantType(`grant_type '${input.grant_type}' is not supported here; use password or client_credentials`);
}

export async function issueApplicationToken(deps: Deps, app: Application, input: UsergridTokenRequest): Promise<UsergridTokenResult> {
  if (input.grant_type === 'password') {
    const [username, password] = required(input, 'username', 'password');
    const user = await authenticateAppUser(deps, app.uuid, username, password);
    const credential = await getCredential(deps, 'application', app.uuid);
    const principal: TokenPrincipal = { kind: 'app-user', appUuid: app.uuid, userUuid: user.uuid, username: user.name ?? '' };
    return { issued: await signAccessToken(deps, { principal, clientId: credential.clientId, scope: API_SCOPE }), appUser: user };
  }
  if (input.grant_type === 'client_credentials') {
    const [clientId, clientSecret] = required(input, 'client_id', 'client_secret');
    const client = await authenticateClientCredentials(deps, clientId, clientSecret);
    if (client.kind !== 'application' || client.appUuid !== app.uuid) throw Forbidden('these credentials are not for this application');
    return { issued: await signAccessToken(deps, { principal: client, clientId, scope: API_SCOPE }), client };
  }
  throw UnsupportedGrantType(`grant_type '${input.grant_type}' is not supported here; use password or client_credentials`);
}
