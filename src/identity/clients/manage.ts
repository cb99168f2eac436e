/**
 * Managing the OAuth clients registered for an application (docs/api.md#clients), with RFC 7591
 * metadata names; find.ts shows them to the endpoints in the shape of every client. The
 * secret of a confidential client is returned once, when it is created (or when a public client
 * becomes confidential), and stored only as its SHA-256 (schema-oauth.ts says why).
 */
import { randomBytes, createHash } from 'node:crypto';
import { and, asc, eq } from 'drizzle-orm';
import { z } from 'zod';
import { oauthClients, tokenFamilies, type StoredClientMetadata } from '../../db/schema.js';
import type { Deps } from '../../deps.js';
import type { Tx } from '../../db/open.js';
import { IllegalArgument, InvalidClientMetadata, InvalidRedirectUri, NotFound } from '../../errors.js';
import type { Application } from '../../management/applications.js';
import { TOKEN_EXCHANGE } from './find.js';
import { revokeTokenFamily } from '../tokens/revocations.js';
import { isScope, SCOPES } from '../scopes.js';

export type OAuthClientRow = typeof oauthClients.$inferSelect;

const AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'none'] as const;
// `implicit` is registered for the authorize endpoint's token and id_token responses (RFC 7591 2.1).
const GRANT_TYPES = ['authorization_code', 'implicit', 'refresh_token', 'password', 'client_credentials', TOKEN_EXCHANGE];
const RESPONSE_TYPES = ['code', 'id_token', 'token', 'id_token token', 'code id_token', 'code id_token token'];
const RESPONSE_WORDS = ['code', 'id_token', 'token'];
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
  require_pushed_authorization_requests: flag('require_pushed_authorization_requests').optional(),
  dpop_bound_access_tokens: flag('dpop_bound_access_tokens').optional(),
  // Read only to refuse them with a reason: clients here authenticate by secret (normalizeClientMetadata).
  jwks: z.unknown().optional(),
  jwks_uri: z.unknown().optional(),
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
function canonicalResponseType(value: string): string {
  const words = value.split(' ').filter((word) => word !== '');
  const canonical = RESPONSE_WORDS.filter((word) => words.includes(word)).join(' ');
  if (words.some((word) => !RESPONSE_WORDS.includes(word)) || !RESPONSE_TYPES.includes(canonical)) {
    throw invalidMetadata('response_types', `response type '${value}' is not supported; use ${RESPONSE_TYPES.join(', ')}`);
  }
  return canonical;
}

/**
 * RFC 7591 2: `jwks` and `jwks_uri` never together. Neither is used here: clients authenticate
 * with a secret or as public clients, and request objects are not taken.
 */
function refuseClientKeys(input: ClientMetadataInput): void {
  if (input.jwks !== undefined && input.jwks_uri !== undefined) throw invalidMetadata('jwks', 'jwks and jwks_uri must not both be given (RFC 7591 2)');
  const field = input.jwks !== undefined ? 'jwks' : input.jwks_uri !== undefined ? 'jwks_uri' : undefined;
  if (field !== undefined) {
    throw invalidMetadata(
      field,
      `${field} is not supported: clients here authenticate with client_secret_basic, client_secret_post or none, and no request objects are taken`,
    );
  }
}

/** Input → the stored metadata, with the defaults and consistency rules of docs/api.md#clients. */
export function normalizeClientMetadata(input: ClientMetadataInput, policy: MetadataPolicy = 'admin'): StoredClientMetadata {
  refuseClientKeys(input);
  const method = input.token_endpoint_auth_method ?? 'client_secret_basic';
  const isPublic = method === 'none';
  const grantTypes = [...new Set(input.grant_types ?? ['authorization_code'])];
  for (const grant of grantTypes) {
    if (!GRANT_TYPES.includes(grant)) throw invalidMetadata('grant_types', `grant type '${grant}' is not supported; use ${GRANT_TYPES.join(', ')}`);
    if (isPublic && (grant === 'client_credentials' || grant === TOKEN_EXCHANGE)) {
      throw invalidMetadata('grant_types', `a public client (token_endpoint_auth_method none) cannot use ${grant}`);
    }
  }
  const responseTypes = [...new Set((input.response_types ?? (grantTypes.includes('authorization_code') ? ['code'] : [])).map(canonicalResponseType))];
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
  return {
    client_name: input.client_name ?? '',
    redirect_uris: redirectUris,
    post_logout_redirect_uris: checkRedirectUris('post_logout_redirect_uris', input.post_logout_redirect_uris ?? [], policy),
    grant_types: grantTypes,
    response_types: responseTypes,
    scope: SCOPES.filter((scope) => scopes.includes(scope)).join(' '),
    token_endpoint_auth_method: method,
    require_pkce: input.require_pkce ?? isPublic,
    require_consent: input.require_consent ?? true,
    allow_plain_pkce: input.allow_plain_pkce ?? false,
    identity_providers: identityProviders,
    require_pushed_authorization_requests: input.require_pushed_authorization_requests ?? false,
    dpop_bound_access_tokens: input.dpop_bound_access_tokens ?? false,
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

/** Stores a new client of `app` with its metadata; a confidential one gets its secret. */
export async function insertOAuthClient(tx: Tx, now: number, app: Pick<Application, 'uuid' | 'orgUuid'>, metadata: StoredClientMetadata): Promise<SavedClient> {
  const made = metadata.token_endpoint_auth_method === 'none' ? undefined : newSecret();
  const row: OAuthClientRow = {
    clientId: randomBytes(16).toString('hex'),
    appUuid: app.uuid,
    orgUuid: app.orgUuid,
    secretHash: made?.hash ?? null,
    metadata,
    created: now,
    modified: now,
  };
  await tx.insert(oauthClients).values(row).run();
  return { row, secret: made?.secret };
}

export async function createOAuthClient(deps: Deps, app: Application, input: ClientMetadataInput): Promise<SavedClient> {
  if (input.client_id !== undefined) throw IllegalArgument('client_id is assigned by the server', { fields: { client_id: 'assigned by the server' } });
  return await insertOAuthClient(deps.db, deps.now(), app, normalizeClientMetadata(input));
}

export async function listOAuthClients(deps: Deps, app: Application): Promise<OAuthClientRow[]> {
  return await deps.db.select().from(oauthClients).where(eq(oauthClients.appUuid, app.uuid)).orderBy(asc(oauthClients.created)).all();
}

export async function findOAuthClient(deps: Deps, app: Application, clientId: string): Promise<OAuthClientRow> {
  const row = await deps.db
    .select()
    .from(oauthClients)
    .where(and(eq(oauthClients.appUuid, app.uuid), eq(oauthClients.clientId, clientId)))
    .get();
  if (!row) throw NotFound(`client '${clientId}' not found in application '${app.name}'`);
  return row;
}

/** PUT replaces the metadata (RFC 7592 2.2): omitted fields take their defaults again. */
export async function updateOAuthClient(deps: Deps, app: Application, clientId: string, input: ClientMetadataInput): Promise<SavedClient> {
  const existing = await findOAuthClient(deps, app, clientId);
  if (input.client_id !== undefined && input.client_id !== clientId)
    throw IllegalArgument('client_id cannot be changed', { fields: { client_id: 'cannot be changed' } });
  return await replaceClientMetadata(deps, existing, normalizeClientMetadata(input));
}

/** Stores a client's new metadata; a public client that becomes confidential gets its secret. */
export async function replaceClientMetadata(deps: Deps, existing: OAuthClientRow, metadata: StoredClientMetadata): Promise<SavedClient> {
  const becomesPublic = metadata.token_endpoint_auth_method === 'none';
  const made = !becomesPublic && existing.secretHash === null ? newSecret() : undefined;
  const secretHash = becomesPublic ? null : (made?.hash ?? existing.secretHash);
  const row: OAuthClientRow = { ...existing, metadata, secretHash, modified: deps.now() };
  await deps.db.update(oauthClients).set({ metadata, secretHash, modified: row.modified }).where(eq(oauthClients.clientId, existing.clientId)).run();
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
    const families = await tx.select({ id: tokenFamilies.id }).from(tokenFamilies).where(eq(tokenFamilies.clientId, clientId)).all();
    for (const family of families) await revokeTokenFamily(deps, family.id);
    await tx.delete(oauthClients).where(eq(oauthClients.clientId, clientId)).run();
  });
}
