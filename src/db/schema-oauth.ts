/**
 * OAuth 2.0 / OpenID Connect state: the clients of applications, token families (one sign-in of
 * one principal at one client, the family its refresh tokens and access tokens belong to), refresh
 * tokens, authorization codes, revocations and password-guessing counters. Tokens and codes are
 * stored only as SHA-256 hashes: a copy of the database does not hold a usable token.
 */
import { sqliteTable, text, integer, index, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { applications } from './schema-core.js';
import type { JWK } from 'jose';
import type { Principal } from '../principal.js';

/** Claim names the `claims` request parameter asked for each target (identity/authorize/claims-request.ts). */
export interface RequestedClaims {
  userinfo: string[];
  id_token: string[];
}

type TokenPrincipal = Exclude<Principal, { kind: 'guest' }>;

/** RFC 7591 client metadata as stored (docs/api.md#clients). */
export interface StoredClientMetadata {
  client_name: string;
  redirect_uris: string[];
  post_logout_redirect_uris: string[];
  grant_types: string[];
  response_types: string[];
  scope: string;
  token_endpoint_auth_method: 'client_secret_basic' | 'client_secret_post' | 'client_secret_jwt' | 'private_key_jwt' | 'none';
  /** The one algorithm its client assertions may use (RFC 7591 2); absent: any the method allows. */
  token_endpoint_auth_signing_alg?: string;
  /** Its public keys (RFC 7517 5), or where to fetch them; never both (RFC 7591 2). */
  jwks?: { keys: JWK[] };
  jwks_uri?: string;
  /** The one algorithm its request objects may use (OIDC Dynamic Client Registration 2); absent: any signed one. */
  request_object_signing_alg?: string;
  require_pkce: boolean;
  require_consent: boolean;
  allow_plain_pkce: boolean;
  identity_providers: string[];
  /** RFC 9126 6: the authorize endpoint takes this client's requests only through /connect/par. Absent in rows stored before it existed. */
  require_pushed_authorization_requests?: boolean;
  /** RFC 9449 5.2: token requests of this client must carry a DPoP proof. Absent in rows stored before it existed. */
  dpop_bound_access_tokens?: boolean;
  /** OIDC Core 8: `pairwise` gives this client's users a `sub` of its sector's own; absent or `public`: the user's id. */
  subject_type?: 'public' | 'pairwise';
  /** OIDC Dynamic Client Registration 5: whose host is the pairwise sector, and which lists the client's redirect URIs. */
  sector_identifier_uri?: string;
  /** OIDC Back-Channel Logout 1.0 2.2: where logout tokens are posted, and whether they must carry `sid`. */
  backchannel_logout_uri?: string;
  backchannel_logout_session_required?: boolean;
  /** OIDC Front-Channel Logout 1.0 2: the page the logout page frames, and whether it gets `iss` and `sid`. */
  frontchannel_logout_uri?: string;
  frontchannel_logout_session_required?: boolean;
  /** RFC 9101 10.5: authorization requests of this client only as signed request objects. Absent in rows stored before it existed. */
  require_signed_request_object?: boolean;
}

/**
 * OAuth clients of an application. The secret of a confidential client is shown once, at
 * creation, and kept only as a SHA-256 hash: it is 256 random bits, so a fast hash is as safe as a
 * slow one, and checking it costs microseconds on the token endpoint's hot path. A client that
 * uses its secret as an HMAC key (client_secret_jwt, HS256 request objects) needs the secret
 * itself: for those alone it is kept in `secret` too, as the signing keys and TOTP secrets are.
 */
export const oauthClients = sqliteTable(
  'oauth_clients',
  {
    clientId: text('client_id').primaryKey(),
    appUuid: text('app_uuid')
      .notNull()
      .references(() => applications.uuid, { onDelete: 'cascade' }),
    orgUuid: text('org_uuid').notNull(),
    secretHash: text('secret_hash'),
    secret: text('secret'),
    metadata: text('metadata', { mode: 'json' }).$type<StoredClientMetadata>().notNull(),
    created: integer('created').notNull(),
    modified: integer('modified').notNull(),
  },
  (t) => [index('oauth_clients_app').on(t.appUuid, t.created)],
);

/**
 * Clients registered at /connect/register (RFC 7591), with the hash of the registration access
 * token that reads, replaces and deletes them there (RFC 7592). `anonymous`: registered without an
 * initial access token (open registration), so its metadata keeps that route's limits
 * (docs/api.md#dynamic-client-registration).
 */
export const clientRegistrations = sqliteTable('client_registrations', {
  clientId: text('client_id')
    .primaryKey()
    .references(() => oauthClients.clientId, { onDelete: 'cascade' }),
  tokenHash: text('token_hash').notNull(),
  anonymous: integer('anonymous', { mode: 'boolean' }).notNull(),
  created: integer('created').notNull(),
});

/**
 * Initial access tokens an application's administrators mint for /connect/register (RFC 7591 3):
 * each good for `count` registrations until `expiresAt`, found by the SHA-256 of the token; a row
 * goes when its last use is spent.
 */
export const initialAccessTokens = sqliteTable(
  'initial_access_tokens',
  {
    id: text('id').primaryKey(),
    appUuid: text('app_uuid')
      .notNull()
      .references(() => applications.uuid, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull(),
    count: integer('count').notNull(),
    remaining: integer('remaining').notNull(),
    created: integer('created').notNull(),
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [uniqueIndex('initial_access_tokens_hash').on(t.tokenHash), index('initial_access_tokens_app').on(t.appUuid, t.created)],
);

/**
 * A token family: what one principal allowed one client (scope), born from a password or code
 * exchange. Refresh tokens and access tokens carry its id (`gid`); revoking it ends them all.
 */
export const tokenFamilies = sqliteTable(
  // The table and its columns keep the names they were created with: token families, once "grants".
  'oauth_grants',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id').notNull(),
    principal: text('principal', { mode: 'json' }).$type<TokenPrincipal>().notNull(),
    scope: text('scope').notNull(),
    /** When the user authenticated (seconds, OIDC `auth_time`). */
    authTime: integer('auth_time').notNull(),
    /** How the user authenticated (RFC 8176 `amr`), kept so that refreshed tokens say it too. */
    amr: text('amr', { mode: 'json' }).$type<string[]>(),
    /** The single claims the `claims` parameter asked for (OIDC Core 5.5), given again on refresh. */
    claims: text('claims', { mode: 'json' }).$type<RequestedClaims>(),
    created: integer('created').notNull(),
    revokedAt: integer('revoked_at'),
    /**
     * The JWK SHA-256 thumbprint of the DPoP key a public client's refresh tokens are bound to
     * (RFC 9449 5): refreshing needs a proof of that key.
     */
    dpopJkt: text('dpop_jkt'),
    /** The browser session the sign-in happened in (OIDC `sid`), said again by refreshed ID tokens. */
    sid: text('sid'),
    /**
     * The resources (RFC 8707) the family's access tokens may be for: those of the authorization
     * request, or of the first token request; a refresh may narrow them, never widen. Null: this
     * server's own API only.
     */
    resources: text('resources', { mode: 'json' }).$type<string[]>(),
  },
  (t) => [index('oauth_grants_client').on(t.clientId)],
);

/** Refresh tokens by hash. `rotated` ones were used once; presenting one again revokes the token family. */
export const refreshTokens = sqliteTable(
  'refresh_tokens',
  {
    tokenHash: text('token_hash').primaryKey(),
    familyId: text('grant_id')
      .notNull()
      .references(() => tokenFamilies.id, { onDelete: 'cascade' }),
    status: text('status', { enum: ['active', 'rotated', 'revoked'] }).notNull(),
    scope: text('scope').notNull(),
    created: integer('created').notNull(),
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [index('refresh_tokens_grant').on(t.familyId)],
);

/**
 * Authorization codes minted by /connect/authorize and exchanged once at /connect/token. A code
 * presented a second time revokes the token family its first exchange created (`familyId`), RFC 6749 4.1.2.
 */
export const authorizationCodes = sqliteTable('authorization_codes', {
  codeHash: text('code_hash').primaryKey(),
  clientId: text('client_id').notNull(),
  principal: text('principal', { mode: 'json' }).$type<TokenPrincipal>().notNull(),
  redirectUri: text('redirect_uri').notNull(),
  scope: text('scope').notNull(),
  codeChallenge: text('code_challenge'),
  codeChallengeMethod: text('code_challenge_method', { enum: ['S256', 'plain'] }),
  nonce: text('nonce'),
  authTime: integer('auth_time').notNull(),
  /** How the user authenticated (RFC 8176 `amr`), handed to the token family the code starts. */
  amr: text('amr', { mode: 'json' }).$type<string[]>(),
  /** The single claims the `claims` parameter asked for (OIDC Core 5.5), for the tokens of the exchange. */
  claims: text('claims', { mode: 'json' }).$type<RequestedClaims>(),
  created: integer('created').notNull(),
  expiresAt: integer('expires_at').notNull(),
  consumedAt: integer('consumed_at'),
  familyId: text('grant_id'),
  /** The browser session that issued the code (OIDC `sid`), for the ID tokens of the exchange. */
  sid: text('sid'),
  /** The resources (RFC 8707) the authorization request named, which the exchange may narrow. */
  resources: text('resources', { mode: 'json' }).$type<string[]>(),
  /** RFC 9449 10: the thumbprint of the DPoP key the exchange must prove (`dpop_jkt`). */
  dpopJkt: text('dpop_jkt'),
});

/**
 * Device authorizations (RFC 8628): started at /connect/deviceauthorization, approved or denied
 * by a user at /device, then exchanged once at /connect/token. The device code and the user code
 * are stored only as SHA-256 hashes; `id` names the authorization in the verification pages'
 * sealed forms. `interval` is the polling interval the device was told, raised by `slow_down`.
 */
export const deviceAuthorizations = sqliteTable(
  'device_authorizations',
  {
    id: text('id').primaryKey(),
    deviceCodeHash: text('device_code_hash').notNull(),
    userCodeHash: text('user_code_hash').notNull(),
    clientId: text('client_id').notNull(),
    scope: text('scope').notNull(),
    status: text('status', { enum: ['pending', 'approved', 'denied', 'consumed'] }).notNull(),
    /** The user who approved, how and when they authenticated (seconds, OIDC `auth_time`). */
    principal: text('principal', { mode: 'json' }).$type<TokenPrincipal>(),
    authTime: integer('auth_time'),
    amr: text('amr', { mode: 'json' }).$type<string[]>(),
    /** The resources (RFC 8707) the device authorization request named, which the token request may narrow. */
    resources: text('resources', { mode: 'json' }).$type<string[]>(),
    /** Seconds the device must wait between polls, and when it last polled (ms). */
    interval: integer('interval').notNull(),
    lastPolledAt: integer('last_polled_at'),
    created: integer('created').notNull(),
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [
    uniqueIndex('device_authorizations_device_code').on(t.deviceCodeHash),
    uniqueIndex('device_authorizations_user_code').on(t.userCodeHash),
    index('device_authorizations_expires').on(t.expiresAt),
  ],
);

/**
 * Revoked access tokens, by `jti:<id>` or by `gid:<token family id>`: verifying a token is one primary
 * key lookup for both. A row lives until the last token it could match has expired.
 */
export const tokenRevocations = sqliteTable(
  'token_revocations',
  {
    key: text('key').primaryKey(),
    created: integer('created').notNull(),
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [index('token_revocations_expires').on(t.expiresAt)],
);

/**
 * Failed password attempts per account (`account:<realm>:<login>`) and per client address
 * (`address:<ip>`), in the database so every instance sees the same counts.
 */
export const loginThrottle = sqliteTable('login_throttle', {
  key: text('key').primaryKey(),
  failures: integer('failures').notNull(),
  blockedUntil: integer('blocked_until').notNull(),
  lastFailure: integer('last_failure').notNull(),
});

/**
 * JWT IDs seen once (client assertions, RFC 7523 3; DPoP proofs, RFC 9449 11.1), by the SHA-256
 * of their purpose and `jti`, until the JWT that carried them expires: a JWT presented again is a
 * replay. In the database, so every instance sees the same ones.
 */
export const jtiReplay = sqliteTable(
  'jti_replay',
  {
    key: text('key').primaryKey(),
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [index('jti_replay_expires').on(t.expiresAt)],
);
