/**
 * Finding a client: every kind of OAuth client seen through one shape, the built-in `admin-cli`
 * and `idp-console`,
 * organization and application credentials (they are OAuth clients too, docs/api.md#clients),
 * and the OAuth clients registered for an application (manage.ts registers them). The endpoints
 * that meet a client (token, authorize, end session, introspection, revocation) only ask
 * `findClient`.
 */
import { eq, sql } from 'drizzle-orm';
import { preparedFor } from '../../db/prepared.js';
import { remembered, schemaOf } from '../../db/open.js';
import type { oauthClients, StoredClientMetadata } from '../../db/schema.js';
import type { Deps } from '../../deps.js';
import { InvalidClient } from '../../errors.js';
import type { JWK } from 'jose';
import { SCOPES, type Scope } from '../scopes.js';
import { issuerOf } from '../issuer.js';
import { sectorOf } from './sector-identifiers.js';
import { prepare } from '../../db/run.js';

/** The built-in public client of admin tools (docs/api.md#clients). */
export const ADMIN_CLI = 'admin-cli';
/** The built-in public client of the admin console served at /console (docs/console.md). */
export const CONSOLE = 'idp-console';
/**
 * The built-in clients of the account page (docs/account.md): `idp-account` signs admin users in
 * for /management/account, `idp-account:{appUuid}` an application's users for its account page.
 */
export const ACCOUNT_CLIENT = 'idp-account';
export const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

export type AuthMethod = StoredClientMetadata['token_endpoint_auth_method'];

export interface Client {
  clientId: string;
  kind: 'admin-cli' | 'console' | 'account' | 'organization' | 'application' | 'oauth';
  /** The organization and application the client belongs to (none for the built-in clients). */
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
  /** Its public keys, registered or at a URL (client-keys.ts); neither for most clients. */
  jwks?: { keys: JWK[] };
  jwksUri?: string;
  /** The one algorithm its client assertions, and its request objects, may use, when it registered one. */
  authSigningAlg?: string;
  requestObjectSigningAlg?: string;
  /** RFC 9126 6: authorization requests only as pushed ones (/connect/par). */
  requirePushedRequests: boolean;
  /** RFC 9449 5.2: tokens only with a DPoP proof, so always DPoP-bound. */
  dpopBoundAccessTokens: boolean;
  /** RFC 9101 10.5: authorization requests only as signed request objects (by value or pushed). */
  requireSignedRequestObject: boolean;
  /** The sector of a client with pairwise subject identifiers (OIDC Core 8.1); undefined: its users' `sub` is their id. */
  pairwiseSector?: string;
  /** Where a sign-out is told (docs/api.md#logout), and whether the session id (`sid`) must be said. */
  backchannelLogout?: LogoutChannel;
  frontchannelLogout?: LogoutChannel;
}

export interface LogoutChannel {
  uri: string;
  sessionRequired: boolean;
}

// Their secret is kept as it is, so it can also key client_secret_jwt's HMAC (RFC 7523 2.2).
const CONFIDENTIAL: readonly AuthMethod[] = ['client_secret_basic', 'client_secret_post', 'client_secret_jwt'];

/** admin-cli: password, refresh, code (+PKCE, loopback redirect) and device grants for admin users. */
export const ADMIN_CLI_CLIENT: Client = {
  clientId: ADMIN_CLI,
  kind: 'admin-cli',
  orgUuid: null,
  appUuid: null,
  authMethods: ['none'],
  secret: null,
  grantTypes: ['password', 'refresh_token', 'authorization_code', DEVICE_CODE_GRANT],
  // An admin user's record has no address or phone number to give.
  scopes: SCOPES.filter((scope) => scope !== 'address' && scope !== 'phone'),
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
  requireSignedRequestObject: false,
};

/**
 * idp-console: admin users sign in through /connect/authorize with PKCE and come back to the
 * console; its addresses follow the issuer, so every installation has the client without storing
 * it. Absent under --no-console.
 */
function consoleClient(deps: Deps): Client | undefined {
  if (!deps.config.console) return undefined;
  const base = `${issuerOf(deps)}/console`;
  return {
    ...ADMIN_CLI_CLIENT,
    clientId: CONSOLE,
    kind: 'console',
    grantTypes: ['authorization_code', 'refresh_token'],
    redirectUris: [`${base}/callback`],
    postLogoutRedirectUris: [`${base}/signed-out`],
    clientName: 'idp admin console',
  };
}

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

/**
 * The account page's client of a realm: public, no grant at the token endpoint, and only the
 * `none` response type (OAuth 2.0 Multiple Response Types 4): the authorize endpoint signs the
 * user in and comes back to the page, which reads the browser's session, and no code or token
 * is issued. `application` is undefined for the admin users' page.
 */
function accountClient(deps: Deps, application?: { orgUuid: string; uuid: string; name: string }): Client {
  const path = application ? `/${application.orgUuid}/${application.uuid}/account` : '/management/account';
  return {
    ...ADMIN_CLI_CLIENT,
    clientId: application ? `${ACCOUNT_CLIENT}:${application.uuid}` : ACCOUNT_CLIENT,
    kind: 'account',
    orgUuid: application?.orgUuid ?? null,
    appUuid: application?.uuid ?? null,
    grantTypes: [],
    scopes: ['openid'],
    redirectUris: [`${issuerOf(deps)}${path}`],
    responseTypes: ['none'],
    requirePkce: false,
    clientName: application ? application.name : 'idp',
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
    secret: row.secret ? { plain: row.secret } : row.secretHash ? { sha256: row.secretHash } : null,
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
    jwks: meta.jwks,
    jwksUri: meta.jwks_uri,
    authSigningAlg: meta.token_endpoint_auth_signing_alg,
    requestObjectSigningAlg: meta.request_object_signing_alg,
    requirePushedRequests: meta.require_pushed_authorization_requests ?? false,
    dpopBoundAccessTokens: meta.dpop_bound_access_tokens ?? false,
    pairwiseSector: sectorOf(meta),
    ...(meta.backchannel_logout_uri && {
      backchannelLogout: { uri: meta.backchannel_logout_uri, sessionRequired: meta.backchannel_logout_session_required ?? false },
    }),
    ...(meta.frontchannel_logout_uri && {
      frontchannelLogout: { uri: meta.frontchannel_logout_uri, sessionRequired: meta.frontchannel_logout_session_required ?? false },
    }),
    requireSignedRequestObject: meta.require_signed_request_object ?? false,
  };
}

/** invalid_client (RFC 6749 5.2): 401 naming the scheme to use (RFC 7235 2.1), HTTP Basic. */
export function clientAuthenticationFailed(description: string) {
  return InvalidClient(description, { headers: { 'WWW-Authenticate': 'Basic realm="idp", charset="UTF-8"' } });
}

export function isPublicClient(client: Client): boolean {
  return client.authMethods.includes('none');
}

const lookups = preparedFor((db) => {
  const { applications, credentials, oauthClients } = schemaOf(db);
  return {
    credential: prepare(
      db
        .select({ secret: credentials.clientSecret, ownerType: credentials.ownerType, ownerUuid: credentials.ownerUuid, appOrg: applications.orgUuid })
        .from(credentials)
        .leftJoin(applications, eq(applications.uuid, credentials.ownerUuid))
        .where(eq(credentials.clientId, sql.placeholder('id'))),
    ),
    oauthClient: prepare(
      db
        .select()
        .from(oauthClients)
        .where(eq(oauthClients.clientId, sql.placeholder('id'))),
    ),
    application: prepare(
      db
        .select({ uuid: applications.uuid, orgUuid: applications.orgUuid, name: applications.name })
        .from(applications)
        .where(eq(applications.uuid, sql.placeholder('uuid'))),
    ),
  };
});

export async function findClient(deps: Deps, clientId: string): Promise<Client | undefined> {
  const { applications, credentials, oauthClients } = schemaOf(deps.db);
  if (clientId === ADMIN_CLI) return ADMIN_CLI_CLIENT;
  if (clientId === CONSOLE) return consoleClient(deps);
  if (clientId === ACCOUNT_CLIENT) return accountClient(deps);
  if (clientId.startsWith(`${ACCOUNT_CLIENT}:`)) {
    const application = await lookups(deps.db).application.get({ uuid: clientId.slice(ACCOUNT_CLIENT.length + 1) });
    return application ? accountClient(deps, application) : undefined;
  }
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
