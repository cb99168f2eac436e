/**
 * Checking who someone claims to be: admin users and app users by password, clients by their
 * secrets. Every password and client-secret check passes through here, so throttling lives in
 * one place (throttle.ts). Failures say the same whether or not the account exists.
 */
import { and, eq, sql } from 'drizzle-orm';
import { createHash, timingSafeEqual } from 'node:crypto';

import { jsonText } from '../../db/sql.js';
import type { Deps, ThrottleKey } from '../../deps.js';
import type { SignInRealm } from '../../metrics.js';
import { InvalidGrant, InvalidUsernameOrPassword, isAppError, type AppError } from '../../errors.js';
import { secretsEqual, verifyPassword } from '../../passwords.js';
import { verifyAppUserPassword } from './app-user-passwords.js';
import { findAdminUserIn, hashAdminPassword, listAdminOrganizations, storeAdminPasswordHash, type AdminUser } from '../../management/admin-users.js';
import { findEntityByUuid, skippingUnreadable, type EntityRow } from '../../db/entity-store.js';
import type { TokenPrincipal } from '../tokens/access-tokens.js';
import { clientAuthenticationFailed, findClient, isPublicClient, type AuthMethod, type Client } from '../clients/find.js';
import { verifyClientAssertion } from '../clients/client-assertions.js';
import { checkSecondFactor, PASSWORD_ONLY, type SecondFactorProof } from '../factors/second-factor.js';
import { findPasskeyFactor, listActiveFactors } from '../factors/factors.js';
import { assertionCredentialId } from '../factors/webauthn.js';
import { checkPasskey, type PasskeyProof } from '../factors/passkeys.js';
import { recordFactorEvent } from '../factors/factor-events.js';
import { ENROLLMENT_REQUIRED, isSecondFactorRequired } from '../factors/second-factor-required.js';
import { ADMIN_REALM, assertNotThrottled, recordLoginFailure, resetLoginFailures, throttleKeys, UNKNOWN_ADDRESS, type LoginContext } from './throttle.js';
import { first } from '../../db/run.js';
import { schemaOf } from '../../db/open.js';

const BAD_LOGIN = 'the username or password is not correct';
const SECOND_FACTOR_REQUIRED = 'a second factor is required: send otp, a code of your authenticator app or one of your recovery codes';
const WRONG_SECOND_FACTOR = 'the one-time code (otp) is not correct, or was used already';
const PASSKEY_REFUSED = 'the passkey was not accepted';

/**
 * What a sign-in asks of the second factor: a code now (`otp`, perhaps undefined: a password
 * grant, docs/api.md#second-factors), or `SECOND_STEP_LATER`, a page that asks for it in a form of
 * its own once the password is right.
 */
export const SECOND_STEP_LATER = Symbol('the second factor is asked for in a second step');
export type SecondStep = string | undefined | typeof SECOND_STEP_LATER;

/** Where a sign-in's one-time code was given (factor-events.ts). */
type CodeChannel = 'grant' | 'page';

function signInRealmOf(realm: string): SignInRealm {
  return realm === ADMIN_REALM ? 'admin' : 'app_user';
}

/**
 * Checks the one-time code of an account whose password was right, under the keys its password
 * counted against: a wrong code counts as a wrong password does, a missing one is refused without
 * counting; a use, a recovery code's use and a failure are factor events.
 */
async function checkCode(
  deps: Deps,
  realm: string,
  userUuid: string,
  keys: { account: ThrottleKey; address: ThrottleKey },
  otp: SecondFactorProof,
  facts: { via: CodeChannel; address: string },
): Promise<readonly string[]> {
  const signIns = deps.metrics.signIns;
  const second = await checkSecondFactor(deps, userUuid, otp);
  const event = { realm, userUuid, ...facts };
  if (second.result === 'required') {
    signIns.inc({ realm: signInRealmOf(realm), result: 'second_factor_required' });
    throw InvalidGrant(SECOND_FACTOR_REQUIRED);
  }
  if (second.result === 'wrong') {
    signIns.inc({ realm: signInRealmOf(realm), result: 'invalid_second_factor' });
    await recordLoginFailure(deps, [keys.account, keys.address]);
    const passkey = typeof otp === 'object';
    await recordFactorEvent(deps, passkey ? 'passkey_failed' : 'second_factor_failed', event);
    throw InvalidGrant(passkey ? PASSKEY_REFUSED : WRONG_SECOND_FACTOR);
  }
  if (second.method === 'totp' || second.method === 'passkey') await recordFactorEvent(deps, 'second_factor_used', { ...event, factor: second.factor });
  if (second.method === 'recovery_code') await recordFactorEvent(deps, 'recovery_code_used', event);
  return second.amr;
}

/**
 * Runs one password check under the throttle of its account and address. The account is looked
 * up first, so that every name it has (username, email, uuid) counts against one key; a login that
 * names no account counts under its own (throttle.ts). A waiting key refuses before the password
 * is looked at; a failure counts and is refused with `refuse()`; a success clears the account's
 * count. `verify` runs even when no account was found, so the time taken does not say whether it
 * exists.
 *
 * A sign-in (`signIn` given) then asks for the account's second factor
 * (docs/api.md#second-factors, checkCode); neither a wrong nor a missing code clears the count, so
 * that a known password does not reopen the guessing of codes. With `SECOND_STEP_LATER` an
 * account with a factor comes back `secondStepDue`, its count untouched, for
 * authenticateSecondStep to finish. An account held to a second factor that has none is refused
 * (a grant) or comes back `enrollmentDue` (second-factor-required.ts).
 */
async function throttled<T extends { uuid: string }>(
  deps: Deps,
  realm: string,
  login: string,
  context: LoginContext,
  find: () => Promise<T | undefined>,
  verify: (candidate: T | undefined) => Promise<boolean>,
  refuse: () => AppError = () => InvalidGrant(BAD_LOGIN),
  signIn?: { otp: SecondStep },
): Promise<SignedIn<T>> {
  const candidate = await find();
  const keys = throttleKeys(realm, candidate?.uuid ?? login, context);
  const signIns = deps.metrics.signIns;
  const kind = signInRealmOf(realm);
  await assertKeysNotThrottled(deps, realm, keys);
  const valid = await verify(candidate);
  if (!candidate || !valid) {
    signIns.inc({ realm: kind, result: 'invalid_credentials' });
    await recordLoginFailure(deps, [keys.account, keys.address]);
    throw refuse();
  }
  let amr = PASSWORD_ONLY;
  if (signIn && (await enrollmentDue(deps, realm, candidate.uuid))) {
    // Held to a second factor and without one (second-factor-required.ts): the page enrolls one now, a grant refuses.
    if (signIn.otp === SECOND_STEP_LATER) return { account: candidate, amr, enrollmentDue: true };
    signIns.inc({ realm: kind, result: 'second_factor_required' });
    throw InvalidGrant(ENROLLMENT_REQUIRED);
  }
  if (signIn?.otp === SECOND_STEP_LATER) {
    if ((await listActiveFactors(deps.db, candidate.uuid)).length > 0) return { account: candidate, amr, secondStepDue: true };
  } else if (signIn) {
    amr = await checkCode(deps, realm, candidate.uuid, keys, signIn.otp, { via: 'grant', address: context.address });
  }
  await resetLoginFailures(deps, keys.account);
  return { account: candidate, amr };
}

/** Whether a user must enroll a second factor before signing in: held to one, and without any active. */
async function enrollmentDue(deps: Deps, realm: string, userUuid: string): Promise<boolean> {
  return (await isSecondFactorRequired(deps.db, realm, userUuid)) && (await listActiveFactors(deps.db, userUuid)).length === 0;
}

/** Refuses with 429 while the account or the address waits, counting the refusal. */
async function assertKeysNotThrottled(deps: Deps, realm: string, keys: { account: ThrottleKey; address: ThrottleKey }): Promise<void> {
  try {
    await assertNotThrottled(deps, [keys.account, keys.address]);
  } catch (error) {
    deps.metrics.signIns.inc({ realm: signInRealmOf(realm), result: 'throttled' });
    throw error;
  }
}

/**
 * The second step of a sign-in whose password was right (the sign-in page's code form or its
 * passkey, docs/api.md#second-factors): the code or passkey of `userUuid` in `realm`, under the
 * same throttle as the password was; a pass clears the account's count, as a whole sign-in does.
 * Returns the `amr` the sign-in then has. @throws 429 while the account or address waits, 400
 * `invalid_grant` for a wrong or missing code or a refused passkey.
 */
export async function authenticateSecondStep(
  deps: Deps,
  realm: string,
  userUuid: string,
  otp: SecondFactorProof,
  context: LoginContext,
): Promise<readonly string[]> {
  const keys = throttleKeys(realm, userUuid, context);
  await assertKeysNotThrottled(deps, realm, keys);
  const amr = await checkCode(deps, realm, userUuid, keys, otp, { via: 'page', address: context.address });
  await resetLoginFailures(deps, keys.account);
  return amr;
}

/** An account whose password (and second factor, if it has one) checked out, and how it signed in (RFC 8176 `amr`). */
export interface SignedIn<T> {
  account: T;
  amr: readonly string[];
  /** The password was right and the account has a second factor, not yet asked for (SECOND_STEP_LATER). */
  secondStepDue?: boolean;
  /** The password was right and the account must enroll a second factor before it is signed in (SECOND_STEP_LATER). */
  enrollmentDue?: boolean;
}

/** Whose password: an admin user's, or a user's of an application (the throttle keeps them apart). */
export type PasswordRealm = 'admin' | { appUuid: string };

/**
 * The current password given with a new one (ResetPW) is a password guess like a sign-in: it
 * counts against the same guessing budget of the account and of the address (throttle.ts), and a
 * waiting account is refused with 429 before it is checked. A wrong one is Usergrid's
 * `400 auth_invalid_username_or_password` (docs/api.md#account-lifecycle), `description` saying
 * which field was wrong.
 */
export async function confirmCurrentPassword(
  deps: Deps,
  realm: PasswordRealm,
  account: { uuid: string },
  verify: () => Promise<boolean>,
  context: LoginContext,
  field: string,
): Promise<void> {
  await throttled(
    deps,
    realm === 'admin' ? realm : realm.appUuid,
    account.uuid,
    context,
    async () => account,
    verify,
    () => InvalidUsernameOrPassword(`the current password (${field}) is not correct`, { fields: { [field]: 'does not match' } }),
  );
}

/**
 * ResetPW for an admin user: the current password must match (confirmCurrentPassword) before the
 * new one is set (docs/api.md#account-lifecycle).
 */
export async function changeAdminPassword(deps: Deps, user: AdminUser, current: string, next: string, context: LoginContext): Promise<void> {
  // The new password is checked first: a refusal then says nothing about the current one.
  const passwordHash = await hashAdminPassword(deps, next, user, 'newpassword');
  await confirmCurrentPassword(deps, 'admin', user, () => verifyPassword(current, user.passwordHash), context, 'password');
  await storeAdminPasswordHash(deps, user, passwordHash);
}

/**
 * Whether a refusal says only that a password or a client secret was wrong: not a throttle, a
 * disabled account or anything else a caller could act on.
 */
export function isWrongCredentials(error: unknown): boolean {
  return isAppError(error) && (error.error === 'invalid_client' || (error.error === 'invalid_grant' && error.message === BAD_LOGIN));
}

const ACCOUNT_DISABLED = 'this account is disabled';
const ACCOUNT_NOT_ACTIVATED = 'this account is not activated yet';

/**
 * Why a sign-in whose password checked out was refused, for the sign-in page to say so (only the
 * holder of the password learns it): the account is disabled, not activated, or its
 * organizations are not (`fields.organization` names one).
 */
export function accountRefusalOf(error: AppError): 'disabled' | 'not_activated' | 'organization_not_activated' | undefined {
  if (error.error !== 'invalid_grant') return undefined;
  if (error.message === ACCOUNT_DISABLED) return 'disabled';
  if (error.message === ACCOUNT_NOT_ACTIVATED) return 'not_activated';
  return error.fields.organization === undefined ? undefined : 'organization_not_activated';
}

interface AccountState {
  disabled: boolean;
  activated: boolean;
  /** An admin's organization when none of them is activated (docs/api.md#account-state). */
  inactiveOrganization?: string;
}

/**
 * After the password checked out: a disabled account is refused, and logged at warn (someone
 * holds its password), as is one not activated yet, or whose organizations are not; each outcome
 * is counted.
 */
function admitAccount(deps: Deps, realm: SignInRealm, uuid: string, account: AccountState): void {
  const signIns = deps.metrics.signIns;
  if (account.disabled) {
    signIns.inc({ realm, result: 'disabled' });
    deps.logger.warn({ event: 'disabled_account_sign_in', realm, subject: uuid }, 'sign-in to a disabled account refused');
    throw InvalidGrant(ACCOUNT_DISABLED);
  }
  if (!account.activated || account.inactiveOrganization !== undefined) {
    signIns.inc({ realm, result: 'not_activated' });
    if (account.inactiveOrganization === undefined) throw InvalidGrant(ACCOUNT_NOT_ACTIVATED);
    const organization = account.inactiveOrganization;
    throw InvalidGrant(`the organization '${organization}' of this account is not activated`, { fields: { organization } });
  }
  signIns.inc({ realm, result: 'success' });
}

/**
 * An admin who belongs to organizations, none of them activated and not disabled, has nothing to
 * sign in to yet: the first of them, to name in the refusal. Sysadmins and admins of no
 * organization (a new sign-up) are never held back.
 */
async function inactiveOrganizationOf(deps: Deps, user: AdminUser): Promise<string | undefined> {
  if (user.sysadmin) return undefined;
  const orgs = await listAdminOrganizations(deps, user.uuid);
  return orgs.length > 0 && !orgs.some((org) => org.activated && !org.disabled) ? orgs[0].name : undefined;
}

async function admitAdmin(deps: Deps, user: AdminUser): Promise<void> {
  admitAccount(deps, 'admin', user.uuid, {
    disabled: user.disabled,
    activated: user.activated,
    inactiveOrganization: await inactiveOrganizationOf(deps, user),
  });
}

function admitAppUser(deps: Deps, user: EntityRow): void {
  admitAccount(deps, 'app_user', user.uuid, { disabled: user.properties.disabled === true, activated: user.properties.activated !== false });
}

/** An admin user's sign-in: the password, then `otp` when the account has a second factor (docs/api.md#second-factors). */
export async function authenticateAdmin(
  deps: Deps,
  login: string,
  password: string,
  context: LoginContext = UNKNOWN_ADDRESS,
  otp?: SecondStep,
): Promise<SignedIn<AdminUser>> {
  const signedIn = await throttled(
    deps,
    'admin',
    login,
    context,
    () => findAdminUserIn(deps.db, login, 'username-email-uuid'),
    (candidate) => verifyPassword(password, candidate?.passwordHash),
    undefined,
    { otp },
  );
  await admitAdmin(deps, signedIn.account);
  return signedIn;
}

/**
 * An app user by username or email (case-insensitive). By email, users whose stored JSON SQLite
 * cannot read are passed over (entity-store.ts, skippingUnreadable), not a failure for everyone.
 */
export async function findAppUserByLogin(deps: Deps, appUuid: string, login: string): Promise<EntityRow | undefined> {
  const { entities } = schemaOf(deps.db);
  const key = login.toLowerCase();
  const { result, skipped } = await skippingUnreadable((guard) =>
    first(
      deps.db
        .select()
        .from(entities)
        .where(
          and(
            eq(entities.appUuid, appUuid),
            eq(entities.collection, 'users'),
            login.includes('@') ? guard(sql`lower(${jsonText(deps.db, entities.properties, 'email')}) = ${key}`) : eq(entities.nameKey, key),
          ),
        ),
    ),
  );
  if (skipped) deps.logger.warn({ app: appUuid, collection: 'users' }, 'a sign-in by email skipped stored users whose JSON the database cannot read');
  return result;
}

/** An app user's sign-in: the password, then `otp` when the user has a second factor (docs/api.md#second-factors). */
export async function authenticateAppUser(
  deps: Deps,
  appUuid: string,
  login: string,
  password: string,
  context: LoginContext = UNKNOWN_ADDRESS,
  otp?: SecondStep,
): Promise<SignedIn<EntityRow>> {
  const signedIn = await throttled(
    deps,
    appUuid,
    login,
    context,
    () => findAppUserByLogin(deps, appUuid, login),
    (candidate) => (candidate ? verifyAppUserPassword(deps, candidate.uuid, password) : verifyPassword(password, null)),
    undefined,
    { otp },
  );
  admitAppUser(deps, signedIn.account);
  return signedIn;
}

/**
 * A sign-in with a passkey alone (docs/api.md#passkeys): the account is the owner of the
 * discoverable credential the assertion names, found by `findOwner` in the realm signed in to (a
 * passkey of another realm is as unknown as one never registered), and the authenticator must
 * have verified the user. The same throttle as a password's: the account's key (or, for an
 * unknown credential, the credential id as sent) and the address; a refused assertion counts as a
 * wrong password and is a factor event; a pass clears the account's count. Its `amr` is the
 * passkey's, `hwk` or `swk` (RFC 8176).
 */
async function throttledPasskey<T extends { uuid: string }>(
  deps: Deps,
  realm: string,
  proof: PasskeyProof,
  context: LoginContext,
  findOwner: (uuid: string) => Promise<T | undefined>,
): Promise<SignedIn<T>> {
  const credentialId = assertionCredentialId(proof.response) ?? '';
  const factor = credentialId ? await findPasskeyFactor(deps.db, credentialId) : undefined;
  const candidate = factor ? await findOwner(factor.userUuid) : undefined;
  const keys = throttleKeys(realm, candidate?.uuid ?? credentialId, context);
  await assertKeysNotThrottled(deps, realm, keys);
  const passed = candidate && factor ? await checkPasskey(deps, [factor], proof, true) : undefined;
  if (!candidate || !passed) {
    deps.metrics.signIns.inc({ realm: signInRealmOf(realm), result: 'invalid_credentials' });
    await recordLoginFailure(deps, [keys.account, keys.address]);
    if (candidate) await recordFactorEvent(deps, 'passkey_failed', { realm, userUuid: candidate.uuid, factor, via: 'page', address: context.address });
    throw InvalidGrant(PASSKEY_REFUSED);
  }
  await resetLoginFailures(deps, keys.account);
  await recordFactorEvent(deps, 'passkey_sign_in', { realm, userUuid: candidate.uuid, factor: passed.factor, via: 'page', address: context.address });
  return { account: candidate, amr: [passed.method] };
}

/** An admin user's sign-in with a passkey alone (throttledPasskey). */
export async function authenticateAdminByPasskey(deps: Deps, proof: PasskeyProof, context: LoginContext): Promise<SignedIn<AdminUser>> {
  const signedIn = await throttledPasskey(deps, ADMIN_REALM, proof, context, (uuid) => findAdminUserIn(deps.db, uuid, 'username-email-uuid'));
  await admitAdmin(deps, signedIn.account);
  return signedIn;
}

/** An app user's sign-in with a passkey alone (throttledPasskey). */
export async function authenticateAppUserByPasskey(deps: Deps, appUuid: string, proof: PasskeyProof, context: LoginContext): Promise<SignedIn<EntityRow>> {
  const signedIn = await throttledPasskey(deps, appUuid, proof, context, async (uuid) => {
    const user = await findEntityByUuid(deps.db, appUuid, uuid);
    return user?.collection === 'users' ? user : undefined;
  });
  admitAppUser(deps, signedIn.account);
  return signedIn;
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
  /** Absent for public clients (method `none`) and for client assertions. */
  secret?: string;
  /** The client assertion of private_key_jwt and client_secret_jwt (RFC 7523 2.2). */
  assertion?: string;
  method: AuthMethod;
}

/**
 * A client by the credentials it presented (RFC 6749 2.3): confidential clients by their secret
 * or a client assertion (client-assertions.ts), with a method they are registered for, public
 * clients by their id alone. Client secrets are 256-bit random values, so they need no guessing
 * throttle; they are compared in constant time.
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
  if (presented.method === 'private_key_jwt' || presented.method === 'client_secret_jwt') {
    await verifyClientAssertion(deps, client, presented.method, presented.assertion ?? '');
  } else if (!secretMatches(client, presented.secret ?? '')) throw clientAuthenticationFailed('client authentication failed');
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
