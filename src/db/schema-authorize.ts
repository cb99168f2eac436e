/**
 * State of the browser side of OpenID Connect: sign-in sessions (shared by every instance, so
 * single sign-on works behind a load balancer), remembered consents, the external OpenID
 * providers of applications and the users who arrived through them, and the secret that signs
 * cookies and page forms. Session ids and federation states are stored only as SHA-256 hashes.
 */
import { sql } from 'drizzle-orm';
import { sqliteTable, text, integer, index, primaryKey, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { applications } from './schema-core.js';
import type { Principal } from '../principal.js';

type UserPrincipal = Extract<Principal, { kind: 'admin' | 'sysadmin' | 'app-user' }>;

/**
 * One signed-in browser. `realm` is `admin` for admin users (the admin-cli client) or the uuid of
 * the application whose users sign in. `authTime` (ms) is when the user last proved who they are:
 * `max_age` and `auth_time` are measured from it.
 */
export const browserSessions = sqliteTable(
  'browser_sessions',
  {
    idHash: text('id_hash').primaryKey(),
    realm: text('realm').notNull(),
    principal: text('principal', { mode: 'json' }).$type<UserPrincipal>().notNull(),
    /**
     * How the user authenticated (RFC 8176 `amr`), space-separated: `pwd`, or `fed` through an
     * external provider, followed by `otp mfa` after a second factor.
     */
    amr: text('amr').notNull(),
    /** The external provider's name when amr is `fed`. */
    provider: text('provider'),
    /** The browser's User-Agent and address when the session started: what the account page shows to tell sessions apart. */
    userAgent: text('user_agent'),
    address: text('address'),
    authTime: integer('auth_time').notNull(),
    created: integer('created').notNull(),
    lastSeen: integer('last_seen').notNull(),
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [index('browser_sessions_expires').on(t.expiresAt)],
);

/**
 * The clients a browser session answered at the authorize endpoint: those told when the session
 * ends (OIDC Back-Channel and Front-Channel Logout 1.0, docs/api.md#logout). The rows go with
 * their session.
 */
export const sessionClients = sqliteTable(
  'session_clients',
  {
    sessionIdHash: text('session_id_hash')
      .notNull()
      .references(() => browserSessions.idHash, { onDelete: 'cascade' }),
    clientId: text('client_id').notNull(),
    created: integer('created').notNull(),
  },
  (t) => [primaryKey({ columns: [t.sessionIdHash, t.clientId] })],
);

export const LOGOUT_DELIVERY_STATES = ['queued', 'leased', 'sent', 'failed'] as const;

/**
 * The back-channel logout queue (OIDC Back-Channel Logout 1.0 2.5): one row per client to tell
 * that a user (`sub`) or one session of theirs (`sid`) signed out. A row is `queued` until a
 * worker leases it (`leased`, with `lease_until`); a lease that runs out goes back to `queued`;
 * `sent` and `failed` are final. The logout token is signed at each attempt, so a retry never
 * posts an expired one.
 */
export const logoutDeliveries = sqliteTable(
  'logout_deliveries',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    clientId: text('client_id').notNull(),
    sub: text('sub'),
    sid: text('sid'),
    state: text('state', { enum: LOGOUT_DELIVERY_STATES }).notNull(),
    attempts: integer('attempts').notNull().default(0),
    dueAt: integer('due_at').notNull(),
    leaseUntil: integer('lease_until'),
    /** Why the last failed attempt failed, for operators (an HTTP status or a network error). */
    error: text('error'),
    created: integer('created').notNull(),
    finished: integer('finished'),
  },
  (t) => [
    index('logout_deliveries_due')
      .on(t.dueAt)
      .where(sql`state = 'queued'`),
    index('logout_deliveries_lease')
      .on(t.leaseUntil)
      .where(sql`state = 'leased'`),
  ],
);

/** Scopes a user allowed a client once, so the consent page is not shown again for them. */
export const consents = sqliteTable(
  'consents',
  {
    clientId: text('client_id').notNull(),
    userUuid: text('user_uuid').notNull(),
    scope: text('scope').notNull(),
    created: integer('created').notNull(),
    modified: integer('modified').notNull(),
  },
  (t) => [primaryKey({ columns: [t.clientId, t.userUuid] }), index('consents_user').on(t.userUuid)],
);

/**
 * External OpenID providers of an application (docs/api.md#authorize-endpoint), chosen with
 * `acr_values=idp:NAME`. The client secret is needed in clear to authenticate at the provider's
 * token endpoint; it is never returned by the API.
 */
export const identityProviders = sqliteTable(
  'identity_providers',
  {
    uuid: text('uuid').primaryKey(),
    appUuid: text('app_uuid')
      .notNull()
      .references(() => applications.uuid, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    nameKey: text('name_key').notNull(),
    issuer: text('issuer').notNull(),
    clientId: text('client_id').notNull(),
    clientSecret: text('client_secret'),
    scope: text('scope').notNull(),
    created: integer('created').notNull(),
    modified: integer('modified').notNull(),
  },
  (t) => [uniqueIndex('identity_providers_app_name').on(t.appUuid, t.nameKey)],
);

/** Which app user an external account (`iss` + `sub`) is. */
export const federatedIdentities = sqliteTable(
  'federated_identities',
  {
    appUuid: text('app_uuid')
      .notNull()
      .references(() => applications.uuid, { onDelete: 'cascade' }),
    issuer: text('issuer').notNull(),
    subject: text('subject').notNull(),
    userUuid: text('user_uuid').notNull(),
    created: integer('created').notNull(),
  },
  (t) => [primaryKey({ columns: [t.appUuid, t.issuer, t.subject] }), index('federated_identities_user').on(t.userUuid)],
);

/**
 * A sign-in sent to an external provider and not yet back: the PKCE verifier and nonce of that
 * request, and the authorize request to resume afterwards. Found by the hash of `state`.
 */
export const federationRequests = sqliteTable(
  'federation_requests',
  {
    stateHash: text('state_hash').primaryKey(),
    providerUuid: text('provider_uuid')
      .notNull()
      .references(() => identityProviders.uuid, { onDelete: 'cascade' }),
    codeVerifier: text('code_verifier').notNull(),
    nonce: text('nonce').notNull(),
    /** The query string of the authorize request that sent the user away. */
    resume: text('resume').notNull(),
    created: integer('created').notNull(),
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [index('federation_requests_expires').on(t.expiresAt)],
);

/** Random secrets generated once and shared by every instance (the cookie and form HMAC key). */
export const serverSecrets = sqliteTable('server_secrets', {
  name: text('name').primaryKey(),
  value: text('value').notNull(),
  created: integer('created').notNull(),
});

/**
 * Authorization requests pushed to /connect/par (RFC 9126), waiting for the browser to bring their
 * `request_uri` to /connect/authorize: found by the SHA-256 of that URI, used once, gone after
 * `expiresAt`. `params` is the request's parameters as a query string, validated when pushed.
 */
export const pushedAuthorizationRequests = sqliteTable(
  'pushed_authorization_requests',
  {
    requestUriHash: text('request_uri_hash').primaryKey(),
    clientId: text('client_id').notNull(),
    params: text('params').notNull(),
    created: integer('created').notNull(),
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [index('pushed_authorization_requests_expires').on(t.expiresAt)],
);
