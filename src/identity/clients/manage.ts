/**
 * Managing the OAuth clients registered for an application (docs/api.md#clients), with RFC 7591
 * metadata names; find.ts shows them to the endpoints in the shape of every client. The
 * secret of a confidential client is returned once, when it is created (or when a public client
 * becomes confidential), and stored only as its SHA-256 (schema-oauth.ts says why).
 */
import { randomBytes, createHash } from 'node:crypto';
import { and, asc, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { oauthClients, StoredClientMetadata } from '../../db/schema.js';
import type { Deps } from '../../deps.js';
import { type Tx, schemaOf } from '../../db/open.js';
import { IllegalArgument, InvalidClientMetadata, InvalidRedirectUri, NotFound } from '../../errors.js';
import type { Application } from '../../management/applications.js';
import { DEVICE_CODE_GRANT, TOKEN_EXCHANGE, type AuthMethod } from './find.js';
import { ASYMMETRIC_ALGS, checkClientJwks, HMAC_ALGS } from './client-keys.js';
import { revokeTokenFamily } from '../tokens/revocations.js';
import { isScope, SCOPES } from '../scopes.js';
import { canonicalResponseType, RESPONSE_TYPES } from '../authorize/response-types.js';
import { checkSector, SUBJECT_TYPES, verifySectorIdentifier } from './sector-identifiers.js';
import { first } from '../../db/run.js';

export type OAuthClientRow = typeof oauthClients.$inferSelect;

const AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'client_secret_jwt', 'private_key_jwt', 'none'] as const;
// `implicit` is registered for the authorize endpoint's token and id_token responses (RFC 7591 2.1).
const GRANT_TYPES = ['authorization_code', 'implicit', 'refresh_token', 'password', 'client_credentials', TOKEN_EXCHANGE, DEVICE_CODE_GRANT];
const IDP_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

const list = (field: string) =>
  z
    .array(z.string({ error: `${field} must be a list of strings` }), { error: `${field} must be a list of strings` })
    .max(100, `${field} may hold at most 100 entries`);
const flag = (field: string) => z.boolean({ error: `${field} must be true or false` });

/** RFC 7591 2 client metadata as sent; unknown members are ignored (RFC 7591 2). */
export const ClientMetadataInput = z.object({
  client_id: z.string().optional(),
  client_name: z.string({ error: 'client_name must be a string' }).trim().max(200, 'client_name must be at most 200 characters').optional(),
  redirect_uris: list('redirect_uris').optional(),
  post_logout_redirect_uris: list('post_logout_redirect_uris').optional(),
  grant_types: list('grant_types').optional(),
  response_types: list('response_types').optional(),
  scope: z.string({ error: 'scope must be a space-separated string' }).optional(),
  token_endpoint_auth_method: z.enum(AUTH_METHODS, { error: `token_endpoint_auth_method must be one of ${AUTH_METHODS.join(', ')}` }).optional(),
  require_pkce: flag('require_pkce').optional(),
  require_consent: flag('require_consent').optional(),
  allow_plain_pkce: flag('allow_plain_pkce').optional(),
  identity_providers: list('identity_providers').optional(),
  token_endpoint_auth_signing_alg: z.string({ error: 'token_endpoint_auth_signing_alg must be a string' }).optional(),
  require_pushed_authorization_requests: flag('require_pushed_authorization_requests').optional(),
  dpop_bound_access_tokens: flag('dpop_bound_access_tokens').optional(),
  require_signed_request_object: flag('require_signed_request_object').optional(),
  // Checked in normalizeClientMetadata, with a message that names the key or the URL at fault.
  jwks: z.unknown().optional(),
  jwks_uri: z.string({ error: 'jwks_uri must be a string' }).optional(),
  request_object_signing_alg: z.string({ error: 'request_object_signing_alg must be a string' }).optional(),
  subject_type: z.enum(SUBJECT_TYPES, { error: `subject_type must be one of ${SUBJECT_TYPES.join(', ')}` }).optional(),
  sector_identifier_uri: z.string({ error: 'sector_identifier_uri must be a string' }).optional(),
  backchannel_logout_uri: z.string({ error: 'backchannel_logout_uri must be a string' }).optional(),
  backchannel_logout_session_required: flag('backchannel_logout_session_required').optional(),
  frontchannel_logout_uri: z.string({ error: 'frontchannel_logout_uri must be a string' }).optional(),
  frontchannel_logout_session_required: flag('frontchannel_logout_session_required').optional(),
});
export type ClientMetadataInput = z.infer<typeof ClientMetadataInput>;

export function invalidMetadata(field: string, message: string) {
  return InvalidClientMetadata(message, { fields: { [field]: message } });
}

/**
 * Who registers a client, and so what it may register: an application's administrators
 * (`admin`), or a program at /connect/register (`registration`), whose plain-http redirect
 * URIs may only come back to the loopback address (RFC 8252 7.3, 8.3).
 */
export type MetadataPolicy = 'admin' | 'registration';

const LOOPBACK_HOSTS = ['127.0.0.1', '[::1]', 'localhost'];

/**
 * Redirect URIs are absolute, without fragment (RFC 6749 3.1.2), and http(s) or a native app's
 * private-use scheme in reverse-domain form (RFC 8252 7.1): never javascript:, data: or file:.
 */
function checkRedirectUris(field: string, uris: readonly string[], policy: MetadataPolicy): string[] {
  for (const uri of uris) {
    let url: URL;
    try {
      url = new URL(uri);
    } catch {
      throw InvalidRedirectUri(`${field}: '${uri}' is not an absolute URI`, { fields: { [field]: 'not an absolute URI' } });
    }
    if (uri.includes('#')) throw InvalidRedirectUri(`${field}: '${uri}' must not have a fragment`, { fields: { [field]: 'must not have a fragment' } });
    if (!/^https?:$/.test(url.protocol) && !/^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+:$/.test(url.protocol)) {
      throw InvalidRedirectUri(`${field}: '${uri}' must use http, https or a reverse-domain private scheme`, { fields: { [field]: 'unsupported scheme' } });
    }
    if (policy === 'registration' && url.protocol === 'http:' && !LOOPBACK_HOSTS.includes(url.hostname)) {
      throw InvalidRedirectUri(`${field}: '${uri}' must use https; plain http only to the loopback address (127.0.0.1, [::1], localhost)`, {
        fields: { [field]: 'https required' },
      });
    }
  }
  return [...new Set(uris)];
}

/** A response type's words in canonical order ("token id_token" is "id_token token"). */
function registeredResponseType(value: string): string {
  const canonical = canonicalResponseType(value);
  if (!canonical) throw invalidMetadata('response_types', `response type '${value}' is not supported; use ${RESPONSE_TYPES.join(', ')}`);
  return canonical.responseType;
}

/**
 * A URL the server will fetch (`jwks_uri`, `sector_identifier_uri`): https, without credentials
 * or fragment. An application's administrators may also name plain http on the loopback address
 * (development and tests); a program at /connect/register may not, so that it cannot make the
 * server probe its own host.
 */
function checkFetchedUri(field: string, uri: string, policy: MetadataPolicy): string {
  let url: URL | undefined;
  try {
    url = new URL(uri);
  } catch {
    url = undefined;
  }
  const local = policy === 'admin' && url?.protocol === 'http:' && LOOPBACK_HOSTS.includes(url.hostname);
  if (!url || (url.protocol !== 'https:' && !local) || url.hash || url.username || url.password || uri.length > 2000) {
    const http = policy === 'admin' ? ' (http only on the loopback address)' : '';
    throw invalidMetadata(field, `${field} must be an https URL without fragment or credentials${http}`);
  }
  return url.href;
}

/**
 * The keys a client signs with (docs/api.md#client-keys): `jwks` or `jwks_uri`, never both
 * (RFC 7591 2); private_key_jwt needs one of them.
 */
function clientKeysOf(input: ClientMetadataInput, method: AuthMethod, policy: MetadataPolicy): Pick<StoredClientMetadata, 'jwks' | 'jwks_uri'> {
  if (input.jwks !== undefined && input.jwks_uri !== undefined) throw invalidMetadata('jwks', 'jwks and jwks_uri must not both be given (RFC 7591 2)');
  if (method === 'private_key_jwt' && input.jwks === undefined && input.jwks_uri === undefined) {
    throw invalidMetadata('jwks', 'token_endpoint_auth_method private_key_jwt needs the public keys: register jwks or jwks_uri');
  }
  if (input.jwks !== undefined) return { jwks: checkClientJwks(input.jwks) };
  if (input.jwks_uri !== undefined) return { jwks_uri: checkFetchedUri('jwks_uri', input.jwks_uri, policy) };
  return {};
}

/**
 * A logout URI (Back-Channel Logout 1.0 2.2, Front-Channel Logout 1.0 2): absolute http(s),
 * without fragment or credentials; it may carry a query, which the front-channel `iss` and `sid`
 * are added to. A program at /connect/register gets plain http only on the loopback address, as
 * for redirect URIs, so that it cannot make the server post to hosts inside its network over
 * http.
 */
function checkLogoutUri(field: string, uri: string | undefined, policy: MetadataPolicy): string | undefined {
  if (uri === undefined) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(uri);
  } catch {
    url = undefined;
  }
  const plainAllowed = policy === 'admin' || (url !== undefined && LOOPBACK_HOSTS.includes(url.hostname));
  if (!url || !(url.protocol === 'https:' || (url.protocol === 'http:' && plainAllowed)) || url.hash || url.username || url.password || uri.length > 2000) {
    const http = policy === 'admin' ? 'http or https' : 'https (plain http only to the loopback address)';
    throw invalidMetadata(field, `${field} must be an absolute ${http} URL without fragment or credentials`);
  }
  return url.href;
}

/** Back- and front-channel logout metadata; a `*_session_required` flag only beside its URI. */
function logoutMetadataOf(input: ClientMetadataInput, policy: MetadataPolicy): Partial<StoredClientMetadata> {
  const back = checkLogoutUri('backchannel_logout_uri', input.backchannel_logout_uri, policy);
  const front = checkLogoutUri('frontchannel_logout_uri', input.frontchannel_logout_uri, policy);
  return {
    ...(back !== undefined && { backchannel_logout_uri: back, backchannel_logout_session_required: input.backchannel_logout_session_required ?? false }),
    ...(front !== undefined && { frontchannel_logout_uri: front, frontchannel_logout_session_required: input.frontchannel_logout_session_required ?? false }),
  };
}

/** The algorithms a client may sign with, by where its key comes from: its public keys, its secret, or (request objects) none at all. */
function signingAlgs(keys: Pick<StoredClientMetadata, 'jwks' | 'jwks_uri'>, method: AuthMethod): readonly string[] {
  return [...(keys.jwks || keys.jwks_uri ? ASYMMETRIC_ALGS : []), ...(method === 'none' ? [] : HMAC_ALGS)];
}

/**
 * token_endpoint_auth_signing_alg (RFC 7591 2) belongs to the JWT methods, with an algorithm
 * of theirs; request_object_signing_alg (OIDC Dynamic Client Registration 2) is `none` or an
 * algorithm the client has a key for.
 */
function signingAlgsOf(input: ClientMetadataInput, method: AuthMethod, keys: Pick<StoredClientMetadata, 'jwks' | 'jwks_uri'>) {
  const authAlg = input.token_endpoint_auth_signing_alg;
  if (authAlg !== undefined) {
    const allowed = method === 'private_key_jwt' ? ASYMMETRIC_ALGS : method === 'client_secret_jwt' ? HMAC_ALGS : [];
    if (allowed.length === 0)
      throw invalidMetadata('token_endpoint_auth_signing_alg', 'token_endpoint_auth_signing_alg goes with private_key_jwt or client_secret_jwt');
    if (!(allowed as readonly string[]).includes(authAlg)) {
      throw invalidMetadata('token_endpoint_auth_signing_alg', `token_endpoint_auth_signing_alg for ${method} must be one of ${allowed.join(', ')}`);
    }
  }
  const requestAlg = input.request_object_signing_alg;
  if (requestAlg !== undefined) {
    const allowed = [...signingAlgs(keys, method), 'none'];
    if (!allowed.includes(requestAlg)) {
      throw invalidMetadata(
        'request_object_signing_alg',
        `request_object_signing_alg must be one of ${allowed.join(', ')}: asymmetric algorithms need jwks or jwks_uri, HMAC ones a confidential client`,
      );
    }
  }
  // RFC 9101 10.5: a client that must sign its request objects needs something to sign them with.
  if (input.require_signed_request_object === true && (requestAlg === 'none' || signingAlgs(keys, method).length === 0)) {
    throw invalidMetadata(
      'require_signed_request_object',
      'require_signed_request_object needs a signing key: jwks or jwks_uri, or a confidential client (HMAC), and a request_object_signing_alg other than none',
    );
  }
  return {
    ...(authAlg !== undefined && { token_endpoint_auth_signing_alg: authAlg }),
    ...(requestAlg !== undefined && { request_object_signing_alg: requestAlg }),
  };
}

/**
 * Input → the stored metadata, with the defaults and consistency rules of docs/api.md#clients;
 * a sector identifier document is fetched and checked.
 */
export async function normalizeClientMetadata(input: ClientMetadataInput, policy: MetadataPolicy = 'admin'): Promise<StoredClientMetadata> {
  const method = input.token_endpoint_auth_method ?? 'client_secret_basic';
  const keys = clientKeysOf(input, method, policy);
  const isPublic = method === 'none';
  const grantTypes = [...new Set(input.grant_types ?? ['authorization_code'])];
  for (const grant of grantTypes) {
    if (!GRANT_TYPES.includes(grant)) throw invalidMetadata('grant_types', `grant type '${grant}' is not supported; use ${GRANT_TYPES.join(', ')}`);
    if (isPublic && (grant === 'client_credentials' || grant === TOKEN_EXCHANGE)) {
      throw invalidMetadata('grant_types', `a public client (token_endpoint_auth_method none) cannot use ${grant}`);
    }
  }
  const responseTypes = [...new Set((input.response_types ?? (grantTypes.includes('authorization_code') ? ['code'] : [])).map(registeredResponseType))];
  for (const type of responseTypes) {
    // RFC 7591 2.1: code needs the authorization_code grant, token and id_token the implicit one.
    if (type.includes('code') && !grantTypes.includes('authorization_code'))
      throw invalidMetadata('response_types', `response type '${type}' needs the authorization_code grant type`);
    if (/(^| )(id_token|token)/.test(type) && !grantTypes.includes('implicit'))
      throw invalidMetadata('response_types', `response type '${type}' needs the implicit grant type`);
  }
  const redirectUris = checkRedirectUris('redirect_uris', input.redirect_uris ?? [], policy);
  if (redirectUris.length === 0 && (grantTypes.includes('authorization_code') || grantTypes.includes('implicit'))) {
    throw InvalidRedirectUri('redirect_uris is required for the authorization_code and implicit grant types', { fields: { redirect_uris: 'required' } });
  }
  const scopes = (input.scope ?? SCOPES.join(' ')).split(' ').filter((scope) => scope !== '');
  for (const scope of scopes) if (!isScope(scope)) throw invalidMetadata('scope', `unknown scope '${scope}'; known scopes are ${SCOPES.join(', ')}`);
  const identityProviders = [...new Set(input.identity_providers ?? [])];
  for (const name of identityProviders) if (!IDP_NAME.test(name)) throw invalidMetadata('identity_providers', `'${name}' is not an identity provider name`);
  const subject = {
    redirect_uris: redirectUris,
    ...(input.subject_type !== undefined && { subject_type: input.subject_type }),
    ...(input.sector_identifier_uri !== undefined && { sector_identifier_uri: checkFetchedUri('sector_identifier_uri', input.sector_identifier_uri, policy) }),
  };
  checkSector(subject);
  await verifySectorIdentifier(subject);
  return {
    client_name: input.client_name ?? '',
    ...subject,
    post_logout_redirect_uris: checkRedirectUris('post_logout_redirect_uris', input.post_logout_redirect_uris ?? [], policy),
    grant_types: grantTypes,
    response_types: responseTypes,
    scope: SCOPES.filter((scope) => scopes.includes(scope)).join(' '),
    token_endpoint_auth_method: method,
    require_pkce: input.require_pkce ?? isPublic,
    require_consent: input.require_consent ?? true,
    allow_plain_pkce: input.allow_plain_pkce ?? false,
    identity_providers: identityProviders,
    ...keys,
    ...signingAlgsOf(input, method, keys),
    require_pushed_authorization_requests: input.require_pushed_authorization_requests ?? false,
    dpop_bound_access_tokens: input.dpop_bound_access_tokens ?? false,
    ...logoutMetadataOf(input, policy),
    require_signed_request_object: input.require_signed_request_object ?? false,
  };
}

function newSecret(): { secret: string; hash: string } {
  // 256 bits (RFC 6749 10.10); only the hash is kept.
  const secret = randomBytes(32).toString('base64url');
  return { secret, hash: createHash('sha256').update(secret).digest('base64url') };
}

export interface SavedClient {
  row: OAuthClientRow;
  /** Present only when a secret was just made: the one time it can be read. */
  secret?: string;
}

/**
 * Whether a client's secret is also an HMAC key (client_secret_jwt, HS256 request objects), so
 * that the secret itself must be kept, not only its hash (schema-oauth.ts).
 */
function usesSecretAsKey(metadata: StoredClientMetadata): boolean {
  return metadata.token_endpoint_auth_method === 'client_secret_jwt' || (metadata.request_object_signing_alg?.startsWith('HS') ?? false);
}

/** Whether a client has a secret: to authenticate with it, or as a key; a private_key_jwt client signs with its own keys. */
function hasSecret(metadata: StoredClientMetadata): boolean {
  return ['client_secret_basic', 'client_secret_post'].includes(metadata.token_endpoint_auth_method) || usesSecretAsKey(metadata);
}

/** Stores a new client of `app` with its metadata; a confidential one gets its secret. */
export async function insertOAuthClient(tx: Tx, now: number, app: Pick<Application, 'uuid' | 'orgUuid'>, metadata: StoredClientMetadata): Promise<SavedClient> {
  const { oauthClients } = schemaOf(tx);
  const made = hasSecret(metadata) ? newSecret() : undefined;
  const row: OAuthClientRow = {
    clientId: randomBytes(16).toString('hex'),
    appUuid: app.uuid,
    orgUuid: app.orgUuid,
    secretHash: made?.hash ?? null,
    secret: made && usesSecretAsKey(metadata) ? made.secret : null,
    metadata,
    created: now,
    modified: now,
  };
  await tx.insert(oauthClients).values(row);
  return { row, secret: made?.secret };
}

export async function createOAuthClient(deps: Deps, app: Application, input: ClientMetadataInput): Promise<SavedClient> {
  if (input.client_id !== undefined) throw IllegalArgument('client_id is assigned by the server', { fields: { client_id: 'assigned by the server' } });
  return await insertOAuthClient(deps.db, deps.now(), app, await normalizeClientMetadata(input));
}

export async function listOAuthClients(deps: Deps, app: Application): Promise<OAuthClientRow[]> {
  const { oauthClients } = schemaOf(deps.db);
  return await deps.db.select().from(oauthClients).where(eq(oauthClients.appUuid, app.uuid)).orderBy(asc(oauthClients.created));
}

export async function findOAuthClient(deps: Deps, app: Application, clientId: string): Promise<OAuthClientRow> {
  const { oauthClients } = schemaOf(deps.db);
  const row = await first(
    deps.db
      .select()
      .from(oauthClients)
      .where(and(eq(oauthClients.appUuid, app.uuid), eq(oauthClients.clientId, clientId))),
  );
  if (!row) throw NotFound(`client '${clientId}' not found in application '${app.name}'`);
  return row;
}

/** PUT replaces the metadata (RFC 7592 2.2): omitted fields take their defaults again. */
export async function updateOAuthClient(deps: Deps, app: Application, clientId: string, input: ClientMetadataInput): Promise<SavedClient> {
  const existing = await findOAuthClient(deps, app, clientId);
  if (input.client_id !== undefined && input.client_id !== clientId)
    throw IllegalArgument('client_id cannot be changed', { fields: { client_id: 'cannot be changed' } });
  return await replaceClientMetadata(deps, existing, await normalizeClientMetadata(input));
}

/**
 * Stores a client's new metadata; a client that comes to need a secret gets one, and so does one
 * that starts to use its secret as a key while only its hash was kept. A client that no longer
 * needs one (public, private_key_jwt) loses it.
 */
export async function replaceClientMetadata(deps: Deps, existing: OAuthClientRow, metadata: StoredClientMetadata): Promise<SavedClient> {
  const { oauthClients } = schemaOf(deps.db);
  const secretless = !hasSecret(metadata);
  const keyed = usesSecretAsKey(metadata);
  const made = !secretless && (existing.secretHash === null || (keyed && existing.secret === null)) ? newSecret() : undefined;
  const secretHash = secretless ? null : (made?.hash ?? existing.secretHash);
  const secret = secretless || !keyed ? null : (made?.secret ?? existing.secret);
  const row: OAuthClientRow = { ...existing, metadata, secretHash, secret, modified: deps.now() };
  await deps.db.update(oauthClients).set({ metadata, secretHash, secret, modified: row.modified }).where(eq(oauthClients.clientId, existing.clientId));
  return { row, secret: made?.secret };
}

/** Deletes a client and revokes every token family it holds (its refresh and access tokens). */
export async function deleteOAuthClient(deps: Deps, app: Application, clientId: string): Promise<OAuthClientRow> {
  const existing = await findOAuthClient(deps, app, clientId);
  await removeOAuthClient(deps, clientId);
  return existing;
}

/** The deletion itself, for a client already found (by its application, or by its registration access token). */
export async function removeOAuthClient(deps: Deps, clientId: string): Promise<void> {
  // One transaction, as when this ran without pausing: no token family of the client escapes revocation.
  await deps.db.transaction(async (tx) => {
    const { oauthClients, tokenFamilies } = schemaOf(tx);
    const families = await tx.select({ id: tokenFamilies.id }).from(tokenFamilies).where(eq(tokenFamilies.clientId, clientId));
    for (const family of families) await revokeTokenFamily(deps, family.id);
    await tx.delete(oauthClients).where(eq(oauthClients.clientId, clientId));
  });
}
