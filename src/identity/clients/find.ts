/**
 * Finding a client: every kind of OAuth client seen through one shape, the built-in `admin-cli`,
 * organization and application credentials (they are OAuth clients too, docs/api.md#clients),
 * and the OAuth clients registered for an application (manage.ts registers them). The endpoints
 * that meet a client (token, authorize, end session, introspection, revocation) only ask
 * `findClient`.
 */
import { eq, sql } from 'drizzle-orm';
import { preparedFor } from '../../db/prepared.js';
import { remembered } from '../../db/open.js';
import { applications, credentials, oauthClients, type StoredClientMetadata } from '../../db/schema.js';
import type { Deps } from '../../deps.js';
import { SCOPES, type Scope } from '../scopes.js';

/** The built-in public client of admin tools (docs/api.md#clients). */
export const ADMIN_CLI = 'admin-cli';
export const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';

export type AuthMethod = StoredClientMetadata['token_endpoint_auth_method'];

export interface Client {
  clientId: string;
  kind: 'admin-cli' | 'organization' | 'application' | 'oauth';
  /** The organization and application the client belongs to (none for admin-cli). */
  orgUuid: string | null;
  appUuid: string | null;
  /** How the client may authenticate at the token, introspection and revocation endpoints. */
  authMethods: readonly AuthMethod[];
  /** The secret to compare against: kept as is (credentials) or as a SHA-256 hash (OAuth clients). */
  secret: { plain: string } | { sha256: string } | null;
  grantTypes: readonly string[];
  scopes: readonly Scope[];
  redirectUris: readonly string[];
  postLogoutRedirectUris: readonly string[];
  responseTypes: readonly string[];
  requirePkce: boolean;
  allowPlainPkce: boolean;
  requireConsent: boolean;
  identityProviders: readonly string[];
  clientName: string;
  /** RFC 9126 6: authorization requests only as pushed ones (/connect/par). */
  requirePushedRequests: boolean;
  /** RFC 9449 5.2: tokens only with a DPoP proof, so always DPoP-bound. */
  dpopBoundAccessTokens: boolean;
}

const CONFIDENTIAL: readonly AuthMethod[] = ['client_secret_basic', 'client_secret_post'];

/** admin-cli: password, refresh and code (+PKCE, loopback redirect) grants for admin users. */
export const ADMIN_CLI_CLIENT: Client = {
  clientId: ADMIN_CLI,
  kind: 'admin-cli',
  orgUuid: null,
  appUuid: null,
  authMethods: ['none'],
  secret: null,
  grantTypes: ['password', 'refresh_token', 'authorization_code'],
  scopes: SCOPES,
  redirectUris: [],
  postLogoutRedirectUris: [],
  responseTypes: ['code'],
  requirePkce: true,
  allowPlainPkce: false,
  requireConsent: false,
  identityProviders: [],
  clientName: 'idp command-line interface',
  requirePushedRequests: false,
  dpopBoundAccessTokens: false,
};

function credentialClient(clientId: string, secret: string, org: string, app: string | null): Client {
  return {
    ...ADMIN_CLI_CLIENT,
    clientId,
    kind: app ? 'application' : 'organization',
    orgUuid: org,
    appUuid: app,
    authMethods: CONFIDENTIAL,
    secret: { plain: secret },
    // Organization credentials act as an org admin: API tokens only. Application credentials are
    // also the application's confidential client for its users' password sign-in.
    grantTypes: app ? ['client_credentials', 'password', 'refresh_token', TOKEN_EXCHANGE] : ['client_credentials', TOKEN_EXCHANGE],
    scopes: app ? SCOPES : ['api'],
    responseTypes: [],
    requirePkce: false,
    clientName: app ? 'application credentials' : 'organization credentials',
  };
}

export function clientOfRow(row: typeof oauthClients.$inferSelect): Client {
  const meta = row.metadata;
  return {
    clientId: row.clientId,
    kind: 'oauth',
    orgUuid: row.orgUuid,
    appUuid: row.appUuid,
    authMethods: [meta.token_endpoint_auth_method],
    secret: row.secretHash ? { sha256: row.secretHash } : null,
    grantTypes: meta.grant_types,
    scopes: SCOPES.filter((scope) => meta.scope.split(' ').includes(scope)),
    redirectUris: meta.redirect_uris,
    postLogoutRedirectUris: meta.post_logout_redirect_uris,
    responseTypes: meta.response_types,
    requirePkce: meta.require_pkce,
    allowPlainPkce: meta.allow_plain_pkce,
    requireConsent: meta.require_consent,
    identityProviders: meta.identity_providers,
    clientName: meta.client_name,
    requirePushedRequests: meta.require_pushed_authorization_requests ?? false,
    dpopBoundAccessTokens: meta.dpop_bound_access_tokens ?? false,
  };
}

export function isPublicClient(client: Client): boolean {
  return client.authMethods.includes('none');
}

const lookups = preparedFor((db) => ({
  credential: db
    .select({ secret: credentials.clientSecret, ownerType: credentials.ownerType, ownerUuid: credentials.ownerUuid, appOrg: applications.orgUuid })
    .from(credentials)
    .leftJoin(applications, eq(applications.uuid, credentials.ownerUuid))
    .where(eq(credentials.clientId, sql.placeholder('id')))
    .prepare(),
  oauthClient: db
    .select()
    .from(oauthClients)
    .where(eq(oauthClients.clientId, sql.placeholder('id')))
    .prepare(),
}));

export async function findClient(deps: Deps, clientId: string): Promise<Client | undefined> {
  if (clientId === ADMIN_CLI) return ADMIN_CLI_CLIENT;
  return remembered(deps.db, `client:${clientId}`, [credentials, applications, oauthClients], async () => {
    const statements = lookups(deps.db);
    const credential = await statements.credential.get({ id: clientId });
    if (credential) {
      if (credential.ownerType === 'organization') return credentialClient(clientId, credential.secret, credential.ownerUuid, null);
      return credential.appOrg ? credentialClient(clientId, credential.secret, credential.appOrg, credential.ownerUuid) : undefined;
    }
    const row = await statements.oauthClient.get({ id: clientId });
    return row ? clientOfRow(row) : undefined;
  });
}

/**
 * Exact string match against the registered redirect URIs (RFC 6749 3.1.2.3, RFC 9700 4.1.3);
 * admin-cli accepts any port on the loopback address, as native apps need (RFC 8252 7.3).
 */
export function isRedirectUriAllowed(client: Client, uri: string): boolean {
  if (client.redirectUris.includes(uri)) return true;
  if (client.kind !== 'admin-cli') return false;
  return /^http:\/\/(127\.0\.0\.1|\[::1\]):\d{1,5}\/[^#]*$/.test(uri);
}

/**
 * The scopes a client may have with a grant type: a client acting for itself (client_credentials, token
 * exchange) gets only the resource scope, since identity scopes describe an end user; refresh
 * tokens (`offline_access`) only for clients allowed the refresh_token grant.
 */
export function scopesFor(client: Client, grantType: string): Scope[] {
  if (grantType === 'client_credentials' || grantType === TOKEN_EXCHANGE) return client.scopes.filter((scope) => scope === 'api');
  return client.scopes.filter((scope) => scope !== 'offline_access' || client.grantTypes.includes('refresh_token'));
}
