/**
 * Signing in through an application's external OpenID provider (`acr_values=idp:NAME`,
 * docs/api.md#authorize-endpoint): this server is the relying party, with openid-client doing the
 * protocol — discovery from the provider's issuer, the authorization code flow with PKCE (S256),
 * state and nonce, and ID token validation. The returning account is linked to an app user by
 * `iss` + `sub`; the first visit creates that user.
 */
import { createHash } from 'node:crypto';
import { and, eq, lt } from 'drizzle-orm';
import type * as oidc from 'openid-client';

import type { Deps } from '../../deps.js';
import { type Tx, schemaOf } from '../../db/open.js';
import { InvalidRequest } from '../../errors.js';
import { findEntityByName, insertEntity } from '../../db/entity-store.js';
import { issuerOf } from '../issuer.js';
import { findAppUserByLogin } from '../sign-in/authenticate.js';
import type { AuthorizeRequest } from '../authorize/authorize-request.js';
import { findIdentityProviderByName, findIdentityProviderByUuid, type IdentityProviderRow } from './identity-providers.js';
import type { NewSession } from '../sessions/sessions.js';
import type { FirstStep } from '../authorize/authorize.js';
import { isSecondFactorRequired } from '../factors/second-factor-required.js';
import { listActiveFactors } from '../factors/factors.js';
import { changes, first } from '../../db/run.js';

export const FEDERATION_CALLBACK_PATH = '/connect/federation/callback';
/** How long the user may take at the external provider (ms). */
const REQUEST_TTL = 10 * 60 * 1000;

/** openid-client is imported on the first federated sign-in, not at start (start-up time). */
function loadOpenidClient(): Promise<typeof oidc> {
  return import('openid-client');
}

function hashState(state: string): string {
  return createHash('sha256').update(state).digest('base64url');
}

/** Discovery from the provider's issuer; plain http is accepted only for loopback issuers (tests, development). */
async function discover(provider: IdentityProviderRow): Promise<oidc.Configuration> {
  const oidc = await loadOpenidClient();
  const issuer = new URL(provider.issuer);
  const auth = provider.clientSecret ? oidc.ClientSecretBasic(provider.clientSecret) : oidc.None();
  return oidc.discovery(issuer, provider.clientId, undefined, auth, issuer.protocol === 'http:' ? { execute: [oidc.allowInsecureRequests] } : undefined);
}

async function findProviderForRequest(deps: Deps, request: AuthorizeRequest): Promise<IdentityProviderRow> {
  const name = request.acr.idp;
  const row = name === undefined || request.client.appUuid === null ? undefined : await findIdentityProviderByName(deps, request.client.appUuid, name);
  if (!row) throw InvalidRequest(`identity provider '${name}' is not configured for this application`);
  return row;
}

/** The provider's authorization URL for this request; what is needed to finish it is stored. */
export async function startFederation(deps: Deps, request: AuthorizeRequest): Promise<URL> {
  const provider = await findProviderForRequest(deps, request);
  const config = await discover(provider);
  const oidc = await loadOpenidClient();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const codeVerifier = oidc.randomPKCECodeVerifier();
  const now = deps.now();
  await deps.db.transaction(async (tx) => {
    const { federationRequests } = schemaOf(tx);
    await tx.delete(federationRequests).where(lt(federationRequests.expiresAt, now));
    await tx.insert(federationRequests).values({
      stateHash: hashState(state),
      providerUuid: provider.uuid,
      codeVerifier,
      nonce,
      resume: request.query,
      created: now,
      expiresAt: now + REQUEST_TTL,
    });
  });
  return oidc.buildAuthorizationUrl(config, {
    redirect_uri: `${issuerOf(deps)}${FEDERATION_CALLBACK_PATH}`,
    scope: provider.scope,
    response_type: 'code',
    state,
    nonce,
    code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    ...(request.uiLocales !== undefined && { ui_locales: request.uiLocales }),
    ...(request.loginHint !== undefined && { login_hint: request.loginHint }),
  });
}

/** The stored request a callback's `state` belongs to, used up by this call. */
export async function takeFederationRequest(deps: Deps, state: string | undefined) {
  if (!state) return undefined;
  const stateHash = hashState(state);
  // Read and delete in one transaction, and only the caller whose delete removed the row has it:
  // two callbacks with the same state cannot both use it.
  const row = await deps.db.transaction(async (tx) => {
    const { federationRequests } = schemaOf(tx);
    const found = await first(tx.select().from(federationRequests).where(eq(federationRequests.stateHash, stateHash)));
    if (!found) return undefined;
    const deleted = changes(await tx.delete(federationRequests).where(eq(federationRequests.stateHash, stateHash)));
    return deleted > 0 ? found : undefined;
  });
  if (!row) return undefined;
  return row.expiresAt > deps.now() ? row : undefined;
}

export type FederationRequest = NonNullable<Awaited<ReturnType<typeof takeFederationRequest>>>;

/** A username for a new user that no one in the application has yet. */
async function freeUsername(tx: Tx, appUuid: string, wanted: string, issuer: string, subject: string): Promise<string> {
  const base = wanted.replace(/[^\w.@+-]/g, '').slice(0, 48) || 'user';
  if (!(await findEntityByName(tx, appUuid, 'users', base))) return base;
  const suffix = createHash('sha256').update(`${issuer} ${subject}`).digest('hex').slice(0, 8);
  return `${base}-${suffix}`;
}

function textClaim(claims: oidc.IDToken, name: string): string | undefined {
  const value = claims[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The app user linked to an external account, created on its first sign-in. */
async function linkUser(deps: Deps, appUuid: string, claims: oidc.IDToken): Promise<{ uuid: string; username: string }> {
  return await deps.db.transaction(async (tx) => {
    const { entities, federatedIdentities } = schemaOf(tx);
    const link = await first(
      tx
        .select()
        .from(federatedIdentities)
        .where(and(eq(federatedIdentities.appUuid, appUuid), eq(federatedIdentities.issuer, claims.iss), eq(federatedIdentities.subject, claims.sub))),
    );
    const now = deps.now();
    if (link) {
      const user = await first(tx.select({ uuid: entities.uuid, name: entities.name }).from(entities).where(eq(entities.uuid, link.userUuid)));
      if (user) return { uuid: user.uuid, username: user.name ?? '' };
      // The linked user was deleted: the account starts over as a new user.
      await tx
        .delete(federatedIdentities)
        .where(and(eq(federatedIdentities.appUuid, appUuid), eq(federatedIdentities.issuer, claims.iss), eq(federatedIdentities.subject, claims.sub)));
    }
    const email = textClaim(claims, 'email');
    const username = await freeUsername(tx, appUuid, textClaim(claims, 'preferred_username') ?? email?.split('@')[0] ?? claims.sub, claims.iss, claims.sub);
    // An email already used by another user is not copied: emails are unique among app users,
    // and an external provider's say-so must not take over an existing account.
    const emailTaken = email !== undefined && (await findAppUserByLogin(deps, appUuid, email)) !== undefined;
    const user = await insertEntity(tx, {
      appUuid,
      collection: 'users',
      type: 'user',
      name: username,
      properties: {
        username,
        activated: true,
        ...(email !== undefined && !emailTaken && { email }),
        ...(textClaim(claims, 'picture') !== undefined && { picture: textClaim(claims, 'picture') }),
      },
      now,
    });
    await tx.insert(federatedIdentities).values({ appUuid, issuer: claims.iss, subject: claims.sub, userUuid: user.uuid, created: now });
    return { uuid: user.uuid, username };
  });
}

/**
 * What an external sign-in still needs when the application holds its users to a second factor
 * (second-factor-required.ts), as a brokered login asks for a configured OTP: the user's factor,
 * or, for a user without one, its enrollment. An application that does not leaves the provider's
 * sign-in as it is, whatever factors the user has.
 */
async function secondStepAfterProvider(deps: Deps, session: NewSession): Promise<FirstStep> {
  const { realm, principal } = session;
  if (!(await isSecondFactorRequired(deps.db, realm, principal.userUuid))) return { session, secondStepDue: false, enrollmentDue: false };
  const hasFactor = (await listActiveFactors(deps.db, principal.userUuid)).length > 0;
  return { session, secondStepDue: hasFactor, enrollmentDue: !hasFactor };
}

/**
 * Finishes the external sign-in at the callback: exchanges the code (PKCE), validates the ID token
 * (issuer, audience, nonce, signature), and returns the session to start for the linked user,
 * unless, as after a password, a second step is due first (secondStepAfterProvider).
 */
export async function finishFederation(deps: Deps, pending: FederationRequest, callbackUrl: URL): Promise<FirstStep> {
  const provider = await findIdentityProviderByUuid(deps, pending.providerUuid);
  if (!provider) throw InvalidRequest('the identity provider of this sign-in no longer exists');
  const config = await discover(provider);
  const oidc = await loadOpenidClient();
  const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
    pkceCodeVerifier: pending.codeVerifier,
    expectedNonce: pending.nonce,
    expectedState: callbackUrl.searchParams.get('state') ?? undefined,
    idTokenExpected: true,
  });
  const claims = tokens.claims();
  if (!claims) throw InvalidRequest('the identity provider returned no ID token');
  const user = await linkUser(deps, provider.appUuid, claims);
  return secondStepAfterProvider(deps, {
    realm: provider.appUuid,
    principal: { kind: 'app-user', appUuid: provider.appUuid, userUuid: user.uuid, username: user.username },
    amr: ['fed'],
    provider: provider.name,
  });
}
