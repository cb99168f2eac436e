/**
 * Dynamic client registration (RFC 7591) and its management (RFC 7592) at /connect/register
 * (docs/api.md#dynamic-client-registration). A program registers a client of the application
 * whose initial access token it presents: the application's own credentials token, or one its
 * administrators minted (initial-access-tokens.ts); or of an application that allows open
 * registration, which it names, with no token at all. The metadata is checked as the management
 * API checks it (manage.ts), with https redirect URIs. The answer carries a registration access
 * token, kept only as its SHA-256, which alone reads, replaces and deletes that client.
 */
import { eq } from 'drizzle-orm';
import type { StoredClientMetadata } from '../../db/schema.js';
import type { Deps } from '../../deps.js';
import { isAppError } from '../../errors.js';
import { allowsOpenClientRegistration, findApplicationByUuid, findApplicationIn, type Application } from '../../management/applications.js';
import { findOrganizationIn } from '../../management/organizations.js';
import { safeEqual } from '../keys/secrets.js';
import { hashToken, newOpaqueToken } from '../sessions/token-families.js';
import { verifyAccessToken } from '../tokens/access-tokens.js';
import { findClient, TOKEN_EXCHANGE } from './find.js';
import { findInitialAccessToken, invalidBearer, spendInitialAccessToken } from './initial-access-tokens.js';
import {
  insertOAuthClient,
  invalidMetadata,
  normalizeClientMetadata,
  removeOAuthClient,
  replaceClientMetadata,
  type ClientMetadataInput,
  type OAuthClientRow,
  type SavedClient,
} from './manage.js';
import { first } from '../../db/run.js';
import { schemaOf } from '../../db/open.js';

/** RFC 7591 2 metadata, with the application to join (open registration) and, on PUT, the secret (RFC 7592 2.2). */
export interface RegistrationInput extends ClientMetadataInput {
  application?: string;
  client_secret?: string;
}

/** Who may register, decided before the metadata is read: the application, and how it was reached. */
export interface RegistrationAccess {
  app: Application;
  /** Without an initial access token: open registration's limits hold (refuseBeyondOpenRegistration). */
  anonymous: boolean;
  /** The minted initial access token the registration spends a use of. */
  initialAccessTokenId?: string;
}

export interface RegisteredClient extends SavedClient {
  registrationAccessToken: string;
}

/** `org/app` (names or uuids) → that application; undefined when there is none. */
async function findNamedApplication(deps: Deps, name: string): Promise<Application | undefined> {
  const [orgId, appId, ...rest] = name.split('/');
  if (!orgId || !appId || rest.length > 0) return undefined;
  const org = await findOrganizationIn(deps.db, orgId);
  return org && (await findApplicationIn(deps.db, org, appId));
}

/** The application whose credentials token (client_credentials with …/apps/{app}/credentials) `token` is. */
async function applicationOfCredentialsToken(deps: Deps, token: string): Promise<Application> {
  let principal;
  try {
    ({ principal } = await verifyAccessToken(deps, token));
  } catch (error) {
    if (isAppError(error)) throw invalidBearer(`the initial access token is not valid: ${error.message}`);
    throw error;
  }
  const client = principal.kind === 'application' ? await findClient(deps, principal.clientId) : undefined;
  const app = client?.kind === 'application' && client.appUuid ? await findApplicationByUuid(deps, client.appUuid) : undefined;
  if (!app) {
    throw invalidBearer(
      "this token is no initial access token: use the application's credentials token (client_credentials) or one minted at …/apps/{app}/clients/initial-access-tokens",
    );
  }
  return app;
}

/** `application`, when sent, must name the application the client joins (or is in). */
async function refuseOtherApplication(deps: Deps, application: unknown, app: Application, description: string): Promise<void> {
  if (application === undefined) return;
  if (typeof application !== 'string' || (await findNamedApplication(deps, application))?.uuid !== app.uuid) throw invalidMetadata('application', description);
}

/**
 * Who may register (RFC 7591 3): a minted initial access token, the application's credentials
 * token, or no token for an application, named by `application`, that allows open registration.
 * Anything else is 401 invalid_token (RFC 6750 3.1), before the metadata is looked at.
 */
export async function resolveRegistrationAccess(deps: Deps, bearer: string | undefined, application: unknown): Promise<RegistrationAccess> {
  if (bearer === undefined) {
    const app = typeof application === 'string' ? await findNamedApplication(deps, application) : undefined;
    if (!app || !allowsOpenClientRegistration(app)) {
      throw invalidBearer('an initial access token is required: the application, named by `application` (org/app), does not allow open registration');
    }
    return { app, anonymous: true };
  }
  const minted = await findInitialAccessToken(deps, bearer);
  const app = minted ? await findApplicationByUuid(deps, minted.appUuid) : await applicationOfCredentialsToken(deps, bearer);
  if (!app) throw invalidBearer('the initial access token is not valid');
  await refuseOtherApplication(deps, application, app, "application names another application than the initial access token's");
  return { app, anonymous: false, initialAccessTokenId: minted?.id };
}

/**
 * What a client registered without a token may not have (Keycloak's anonymous registration
 * policies): grants that act as the application itself, and sign-ins without the user's consent.
 */
function refuseBeyondOpenRegistration(metadata: StoredClientMetadata): void {
  for (const grant of ['client_credentials', TOKEN_EXCHANGE]) {
    if (metadata.grant_types.includes(grant)) {
      throw invalidMetadata('grant_types', `a client registered without an initial access token cannot use ${grant}: it would act as the application`);
    }
  }
  if (!metadata.require_consent) throw invalidMetadata('require_consent', 'a client registered without an initial access token must ask for consent');
}

async function registrationMetadata(input: RegistrationInput, anonymous: boolean): Promise<StoredClientMetadata> {
  const metadata = await normalizeClientMetadata(input, 'registration');
  if (anonymous) refuseBeyondOpenRegistration(metadata);
  return metadata;
}

/** POST /connect/register (RFC 7591 3.1): stores the client and its registration, and spends the token's use, at once. */
export async function registerClient(deps: Deps, access: RegistrationAccess, input: RegistrationInput): Promise<RegisteredClient> {
  if (input.client_id !== undefined) throw invalidMetadata('client_id', 'client_id is assigned by the server');
  if (input.client_secret !== undefined) throw invalidMetadata('client_secret', 'client_secret is issued by the server');
  const metadata = await registrationMetadata(input, access.anonymous);
  const registrationAccessToken = newOpaqueToken();
  const now = deps.now();
  const saved = await deps.db.transaction(async (tx) => {
    const { clientRegistrations } = schemaOf(tx);
    if (access.initialAccessTokenId !== undefined) await spendInitialAccessToken(tx, access.initialAccessTokenId, now);
    const made = await insertOAuthClient(tx, now, access.app, metadata);
    await tx
      .insert(clientRegistrations)
      .values({ clientId: made.row.clientId, tokenHash: hashToken(registrationAccessToken), anonymous: access.anonymous, created: now });
    return made;
  });
  return { ...saved, registrationAccessToken };
}

/**
 * The client a registration access token is for (RFC 7592 2). An unknown client, a client not
 * registered here, and another client's token are all 401 invalid_token, alike.
 */
export async function findRegisteredClient(deps: Deps, clientId: string, bearer: string | undefined): Promise<{ row: OAuthClientRow; anonymous: boolean }> {
  const { clientRegistrations, oauthClients } = schemaOf(deps.db);
  const found = await first(
    deps.db
      .select({ row: oauthClients, tokenHash: clientRegistrations.tokenHash, anonymous: clientRegistrations.anonymous })
      .from(clientRegistrations)
      .innerJoin(oauthClients, eq(oauthClients.clientId, clientRegistrations.clientId))
      .where(eq(clientRegistrations.clientId, clientId)),
  );
  // Compared as hashes in constant time; a missing client costs the same comparison.
  const matches = safeEqual(hashToken(bearer ?? ''), found?.tokenHash ?? hashToken(newOpaqueToken()));
  if (!found || bearer === undefined || !matches) throw invalidBearer('the registration access token is not valid for this client');
  return { row: found.row, anonymous: found.anonymous };
}

/**
 * PUT /connect/register/{client_id} (RFC 7592 2.2): the whole metadata again, with the client's
 * own client_id and, if sent, its current secret; omitted fields take their defaults.
 */
export async function updateRegisteredClient(deps: Deps, clientId: string, bearer: string | undefined, input: RegistrationInput): Promise<SavedClient> {
  const { row, anonymous } = await findRegisteredClient(deps, clientId, bearer);
  if (input.client_id !== clientId) throw invalidMetadata('client_id', 'client_id must be sent, and be the client_id of this client (RFC 7592 2.2)');
  if (input.client_secret !== undefined && !safeEqual(hashToken(input.client_secret), row.secretHash ?? '')) {
    throw invalidMetadata('client_secret', 'client_secret, when sent, must be the current secret of this client (RFC 7592 2.2)');
  }
  const app = await findApplicationByUuid(deps, row.appUuid);
  if (app) await refuseOtherApplication(deps, input.application, app, 'a client stays in the application it was registered in');
  return await replaceClientMetadata(deps, row, await registrationMetadata(input, anonymous));
}

/** DELETE /connect/register/{client_id} (RFC 7592 2.3): the client goes, and every token it holds stops working. */
export async function deleteRegisteredClient(deps: Deps, clientId: string, bearer: string | undefined): Promise<void> {
  await findRegisteredClient(deps, clientId, bearer);
  await removeOAuthClient(deps, clientId);
}
