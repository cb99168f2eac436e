/**
 * Checking who someone claims to be: admin users and app users by password, clients by their
 * secrets. Every password and client-secret check passes through here, so throttling lives in
 * one place (throttle.ts). Failures say the same whether or not the account exists.
 */
import { and, eq, sql } from 'drizzle-orm';
import { createHash, timingSafeEqual } from 'node:crypto';
import { entities } from '../../db/schema.js';
import { jsonText } from '../../db/sql.js';
import type { Deps } from '../../deps.js';
import type { SignInRealm } from '../../metrics.js';
import { InvalidClient, InvalidGrant } from '../../errors.js';
import { secretsEqual, verifyPassword } from '../../passwords.js';
import { verifyAppUserPassword } from './app-user-passwords.js';
import { findAdminUserIn, type AdminUser } from '../../management/admin-users.js';
import { skippingUnreadable, type EntityRow } from '../../db/entity-store.js';
import type { TokenPrincipal } from '../tokens/access-tokens.js';
import { findClient, isPublicClient, type AuthMethod, type Client } from '../clients/find.js';
import { assertNotThrottled, recordLoginFailure, resetLoginFailures, throttleKeys, UNKNOWN_ADDRESS, type LoginContext } from './throttle.js';

const BAD_LOGIN = 'the username or password is not correct';

/**
 * Runs one password check under the throttle of its account and address. The account is looked
 * up first, so that every name it has (username, email, uuid) counts against one key; a login that
 * names no account counts under its own (throttle.ts). A waiting key refuses before the password
 * is looked at; a failure counts; a success clears the account's count. `verify` runs even when no
 * account was found, so the time taken does not say whether it exists.
 */
async function throttled<T extends { uuid: string }>(
  deps: Deps,
  realm: string,
  login: string,
  context: LoginContext,
  find: () => Promise<T | undefined>,
  verify: (candidate: T | undefined) => Promise<boolean>,
): Promise<T> {
  const candidate = await find();
  const { account, address } = throttleKeys(realm, candidate?.uuid ?? login, context);
  const signIns = deps.metrics.signIns;
  const kind: SignInRealm = realm === 'admin' ? 'admin' : 'app_user';
  try {
    await assertNotThrottled(deps, [account, address]);
  } catch (error) {
    signIns.inc({ realm: kind, result: 'throttled' });
    throw error;
  }
  const valid = await verify(candidate);
  if (!candidate || !valid) {
    signIns.inc({ realm: kind, result: 'invalid_credentials' });
    await recordLoginFailure(deps, [account, address]);
    throw InvalidGrant(BAD_LOGIN);
  }
  await resetLoginFailures(deps, account);
  return candidate;
}

/**
 * After the password checked out: a disabled account is refused, and logged at warn (someone
 * holds its password), as is one not activated yet; each outcome is counted.
 */
function admitAccount(deps: Deps, realm: SignInRealm, uuid: string, account: { disabled: boolean; activated: boolean }): void {
  const signIns = deps.metrics.signIns;
  if (account.disabled) {
    signIns.inc({ realm, result: 'disabled' });
    deps.logger.warn({ event: 'disabled_account_sign_in', realm, subject: uuid }, 'sign-in to a disabled account refused');
    throw InvalidGrant('this account is disabled');
  }
  if (!account.activated) {
    signIns.inc({ realm, result: 'not_activated' });
    throw InvalidGrant('this account is not activated yet');
  }
  signIns.inc({ realm, result: 'success' });
}

export async function authenticateAdmin(deps: Deps, login: string, password: string, context: LoginContext = UNKNOWN_ADDRESS): Promise<AdminUser> {
  const user = await throttled(
    deps,
    'admin',
    login,
    context,
    () => findAdminUserIn(deps.db, login, 'username-email-uuid'),
    (candidate) => verifyPassword(password, candidate?.passwordHash),
  );
  admitAccount(deps, 'admin', user.uuid, { disabled: user.disabled, activated: user.activated });
  return user;
}

/**
 * An app user by username or email (case-insensitive). By email, users whose stored JSON SQLite
 * cannot read are passed over (entity-store.ts, skippingUnreadable), not a failure for everyone.
 */
export async function findAppUserByLogin(deps: Deps, appUuid: string, login: string): Promise<EntityRow | undefined> {
  const key = login.toLowerCase();
  const { result, skipped } = await skippingUnreadable((guard) =>
    deps.db
      .select()
      .from(entities)
      .where(
        and(
          eq(entities.appUuid, appUuid),
          eq(entities.collection, 'users'),
          login.includes('@') ? guard(sql`lower(${jsonText(deps.db, entities.properties, 'email')}) = ${key}`) : eq(entities.nameKey, key),
        ),
      )
      .get(),
  );
  if (skipped) deps.logger.warn({ app: appUuid, collection: 'users' }, 'a sign-in by email skipped stored users whose JSON the database cannot read');
  return result;
}

export async function authenticateAppUser(
  deps: Deps,
  appUuid: string,
  login: string,
  password: string,
  context: LoginContext = UNKNOWN_ADDRESS,
): Promise<EntityRow> {
  const user = await throttled(
    deps,
    appUuid,
    login,
    context,
    () => findAppUserByLogin(deps, appUuid, login),
    (candidate) => (candidate ? verifyAppUserPassword(deps, candidate.uuid, password) : verifyPassword(password, null)),
  );
  admitAccount(deps, 'app_user', user.uuid, { disabled: user.properties.disabled === true, activated: user.properties.activated !== false });
  return user;
}

/** invalid_client (RFC 6749 5.2): 401 naming the scheme to use (RFC 7235 2.1), HTTP Basic. */
export function clientAuthenticationFailed(description: string) {
  return InvalidClient(description, { headers: { 'WWW-Authenticate': 'Basic realm="idp", charset="UTF-8"' } });
}

function secretMatches(client: Client, secret: string): boolean {
  if (!client.secret) return false;
  if ('plain' in client.secret) return secretsEqual(client.secret.plain, secret);
  const expected = Buffer.from(client.secret.sha256, 'base64url');
  const actual = createHash('sha256').update(secret).digest();
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

export interface ClientAuthentication {
  clientId: string;
  /** Absent for public clients (method `none`). */
  secret?: string;
  method: AuthMethod;
}

/**
 * A client by the credentials it presented (RFC 6749 2.3): confidential clients by their secret
 * with a method they are registered for, public clients by their id alone. Client secrets are
 * 256-bit random values, so they need no guessing throttle; they are compared in constant time.
 */
export async function authenticateClient(deps: Deps, presented: ClientAuthentication): Promise<Client> {
  const client = await findClient(deps, presented.clientId);
  if (!client) {
    secretsEqual(presented.secret ?? '', presented.secret ?? '');
    throw clientAuthenticationFailed('client authentication failed');
  }
  if (presented.method === 'none') {
    if (!isPublicClient(client)) throw clientAuthenticationFailed('client authentication failed: this client must authenticate with its secret');
    return client;
  }
  if (isPublicClient(client)) throw clientAuthenticationFailed('client authentication failed: this is a public client, it has no secret');
  if (!client.authMethods.includes(presented.method)) {
    throw clientAuthenticationFailed(`client authentication failed: this client is registered for ${client.authMethods.join(', ')}, not ${presented.method}`);
  }
  if (!secretMatches(client, presented.secret ?? '')) throw clientAuthenticationFailed('client authentication failed');
  return client;
}

/** Organization or application client credentials → the principal they stand for. */
export async function authenticateClientCredentials(deps: Deps, clientId: string, clientSecret: string): Promise<TokenPrincipal> {
  const client = await authenticateClient(deps, { clientId, secret: clientSecret, method: 'client_secret_post' });
  const principal = servicePrincipalOf(client);
  if (!principal || client.kind === 'oauth') throw clientAuthenticationFailed('client authentication failed');
  return principal;
}

/** Who a confidential client is when it acts for itself (client_credentials, RFC 6749 4.4). */
export function servicePrincipalOf(client: Client): TokenPrincipal | null {
  if (client.kind === 'organization' && client.orgUuid) return { kind: 'organization', orgUuid: client.orgUuid, clientId: client.clientId };
  if ((client.kind === 'application' || client.kind === 'oauth') && client.orgUuid && client.appUuid) {
    return { kind: 'application', orgUuid: client.orgUuid, appUuid: client.appUuid, clientId: client.clientId };
  }
  return null;
}
