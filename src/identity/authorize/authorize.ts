/**
 * The authorize decision (docs/api.md#authorize-endpoint, OIDC Core 3.1.2.3): given a validated
 * request and the browser's session, either answer the client at once (single sign-on), or say
 * which page the user must see first — sign-in, consent, or the external provider of
 * `acr_values=idp:NAME`. `prompt=none` never shows a page: what would have needed one goes back as
 * an error.
 */
import { and, eq } from 'drizzle-orm';

import type { Deps } from '../../deps.js';
import { AccessDenied, AppError, Conflict, ConsentRequired, InteractionRequired, InvalidGrant, LoginRequired } from '../../errors.js';
import {
  authenticateAdmin,
  authenticateAdminByPasskey,
  authenticateAppUser,
  authenticateAppUserByPasskey,
  authenticateSecondStep,
  SECOND_STEP_LATER,
} from '../sign-in/authenticate.js';
import { enrollFactor, findFactor, listActiveFactors, totpEnrollmentOf, verifyFactor, type Factor, type FactorOwner } from '../factors/factors.js';
import { acrOf, acrRank, MFA_ACR, PASSWORD_ONLY, PHR_ACR, withSecondFactor, type SecondFactorProof } from '../factors/second-factor.js';
import { passkeySignInOptions, type PasskeyProof } from '../factors/passkeys.js';
import { assertionCredentialId, type AuthenticationOptions } from '../factors/webauthn.js';
import type { AdminUser } from '../../management/admin-users.js';
import type { EntityRow } from '../../db/entity-store.js';
import type { AuthorizeRequest } from './authorize-request.js';
import { errorResponse, issueAuthorizationResponse, type AuthorizationResponse } from './authorize-response.js';
import type { Client } from '../clients/find.js';
import { scopesNotConsented } from './consents.js';
import { amrOf, type NewSession, type SessionRow } from '../sessions/sessions.js';
import type { UserPrincipal } from '../tokens/user-claims.js';
import { ADMIN_REALM, type LoginContext } from '../sign-in/throttle.js';
import { first } from '../../db/run.js';
import { schemaOf } from '../../db/open.js';

/** Whose users sign in through a client: an application's, or the admin users. */
export function realmOf(client: Client): string {
  return client.appUuid ?? ADMIN_REALM;
}

/** What happened earlier in this same authorization: a sign-in just now, a consent just given. */
export interface Interaction {
  freshLogin: boolean;
  consented: boolean;
}

const NO_INTERACTION: Interaction = { freshLogin: false, consented: false };

export type AuthorizeOutcome =
  | { kind: 'sign-in'; request: AuthorizeRequest }
  | { kind: 'federate'; request: AuthorizeRequest }
  /** A signed-in user whose session must add a second factor first (step-up for `acr_values`). */
  | { kind: 'second-factor'; request: AuthorizeRequest; pending: NewSession }
  | { kind: 'consent'; request: AuthorizeRequest; session: SessionRow; scopes: string[] }
  | { kind: 'respond'; request: AuthorizeRequest; response: AuthorizationResponse };

/** Sign-in to an admin client with `tenant:NAME` is for members of that organization only. */
async function isTenantMember(deps: Deps, principal: UserPrincipal, tenant: string): Promise<boolean> {
  const { orgAdmins, organizations } = schemaOf(deps.db);
  if (principal.kind === 'sysadmin') return true;
  const row = await first(
    deps.db
      .select({ userUuid: orgAdmins.userUuid })
      .from(orgAdmins)
      .innerJoin(organizations, eq(organizations.uuid, orgAdmins.orgUuid))
      .where(and(eq(organizations.nameKey, tenant.toLowerCase()), eq(orgAdmins.userUuid, principal.userUuid))),
  );
  return row !== undefined;
}

type SignInReason = 'no-session' | 'wrong-account' | 'forced' | null;

/** Why the user must sign in (again) before this request can be answered, if they must. */
async function signInReason(deps: Deps, request: AuthorizeRequest, session: SessionRow | undefined, interaction: Interaction): Promise<SignInReason> {
  if (!session) return 'no-session';
  const { tenant, idp } = request.acr;
  if (tenant !== undefined && request.client.appUuid === null && !(await isTenantMember(deps, session.principal, tenant))) return 'wrong-account';
  if (idp !== undefined && session.provider?.toLowerCase() !== idp.toLowerCase()) return 'wrong-account';
  if (interaction.freshLogin) return null;
  if (request.prompt.has('login') || request.prompt.has('select_account')) return 'forced';
  // OIDC Core 3.1.2.1: a session older than max_age needs a new sign-in.
  if (request.maxAge !== undefined && deps.now() - session.authTime > request.maxAge * 1000) return 'forced';
  return null;
}

/**
 * What a user must add to a sign-in for the `acr_values` the client asked for (any of them, the
 * weakest counts), given the factors they have: a passkey for `urn:idp:acr:phr`, any second
 * factor for `urn:idp:acr:mfa` (also the most a user without a passkey can give for `phr`); null
 * when the sign-in is strong enough or the user can give nothing more, since acr_values is a
 * voluntary request and the tokens then say the `acr` achieved (OIDC Core 3.1.2.1, 5.5.1.1).
 */
export function stepUpFor(request: AuthorizeRequest, amr: readonly string[], factors: readonly Factor[]): 'passkey' | 'second-factor' | null {
  const wanted = request.acr.classes;
  if (wanted.length === 0) return null;
  const target = Math.min(...wanted.map(acrRank));
  const achieved = acrRank(acrOf(amr));
  if (achieved >= target) return null;
  if (target >= acrRank(PHR_ACR) && factors.some((factor) => factor.type === 'webauthn')) return 'passkey';
  if (achieved >= acrRank(MFA_ACR) || factors.length === 0) return null;
  return 'second-factor';
}

/** What the second-factor page offers a user (docs/api.md#second-factors). */
export interface SecondFactorChoices {
  /** A code field: the authenticator app's code (`totp`) or, for a user without one, a recovery code; none when only a passkey will do. */
  code?: 'totp' | 'recovery';
  /** The user has an authenticator app, so the code field can switch to a recovery code. */
  totp: boolean;
  /** The options of the user's passkeys, if they have any. */
  passkey?: AuthenticationOptions;
}

/** What the second-factor page offers `pending`'s user for this request: a step-up to `phr` takes a passkey alone. */
export async function secondFactorChoices(deps: Deps, request: AuthorizeRequest, pending: NewSession): Promise<SecondFactorChoices> {
  const factors = await listActiveFactors(deps.db, pending.principal.userUuid);
  const totp = factors.some((factor) => factor.type === 'totp');
  const passkeys = factors.filter((factor) => factor.type === 'webauthn');
  const passkey = passkeys.length > 0 ? await passkeySignInOptions(deps, passkeys) : undefined;
  if (stepUpFor(request, pending.amr, factors) === 'passkey') return { totp, passkey };
  return { code: totp ? 'totp' : 'recovery', totp, passkey };
}

/**
 * Decides what to do with a request. `session` is the browser's live session, if any; a session
 * of another realm (an admin's, at an app client) is as good as none.
 */
export async function continueAuthorization(
  deps: Deps,
  request: AuthorizeRequest,
  browserSession: SessionRow | undefined,
  interaction: Interaction = NO_INTERACTION,
): Promise<AuthorizeOutcome> {
  const session = browserSession?.realm === realmOf(request.client) ? browserSession : undefined;
  try {
    const reason = await signInReason(deps, request, session, interaction);
    if (reason !== null) {
      if (request.prompt.has('none')) {
        // OIDC Core 3.1.2.6: signed in, but as someone this request cannot use: choosing another
        // account is an interaction other than a plain sign-in.
        if (reason === 'wrong-account') throw InteractionRequired('the signed-in account cannot be used for this request, and prompt is none');
        throw LoginRequired(reason === 'forced' ? 'the sign-in is too old for max_age, and prompt is none' : 'no one is signed in, and prompt is none');
      }
      return request.acr.idp !== undefined ? { kind: 'federate', request } : { kind: 'sign-in', request };
    }
    const signedIn = session!;
    const stepUp = stepUpFor(request, amrOf(signedIn), await listActiveFactors(deps.db, signedIn.principal.userUuid));
    if (stepUp !== null) {
      if (request.prompt.has('none')) throw InteractionRequired('the client asked for a stronger sign-in (acr_values), and prompt is none');
      const pending: NewSession = { realm: signedIn.realm, principal: signedIn.principal, amr: amrOf(signedIn), provider: signedIn.provider ?? undefined };
      return { kind: 'second-factor', request, pending };
    }
    // OIDC Core 5.5.1.1: an essential acr the user cannot reach fails the sign-in.
    if (request.claims.essentialAcr && acrRank(acrOf(amrOf(signedIn))) < Math.min(...request.claims.acr.map(acrRank))) {
      throw AccessDenied(`this sign-in cannot reach the essential acr ${request.claims.acr.join(' or ')}`);
    }
    // RFC 8628 5.4: a device is let in only by a user who saw which client it is.
    if ((request.client.requireConsent || request.device !== undefined) && !interaction.consented) {
      const missing = await scopesNotConsented(deps, request.client.clientId, signedIn.principal.userUuid, request.scope);
      if (missing.length > 0 || request.prompt.has('consent')) {
        if (request.prompt.has('none')) throw ConsentRequired('the user has not allowed this client these scopes, and prompt is none');
        return { kind: 'consent', request, session: signedIn, scopes: request.scope };
      }
    }
    return { kind: 'respond', request, response: await issueAuthorizationResponse(deps, request, signedIn) };
  } catch (error) {
    if (error instanceof AppError) return { kind: 'respond', request, response: errorResponse(deps, request, error) };
    throw error;
  }
}

/**
 * A sign-in's first step: the session it starts, unless `secondStepDue` (the user has a factor to
 * give first) or `enrollmentDue` (the user must enroll one first, second-factor-required.ts).
 */
export interface FirstStep {
  session: NewSession;
  secondStepDue: boolean;
  enrollmentDue: boolean;
}

function appUserSession(appUuid: string, user: EntityRow, amr: readonly string[]): NewSession {
  return { realm: appUuid, principal: { kind: 'app-user', appUuid, userUuid: user.uuid, username: user.name ?? '' }, amr };
}

/** An admin's session; with `tenant:NAME` only for members of that organization. */
async function adminSession(deps: Deps, request: AuthorizeRequest, admin: AdminUser, amr: readonly string[]): Promise<NewSession> {
  const principal: UserPrincipal = { kind: admin.sysadmin ? 'sysadmin' : 'admin', userUuid: admin.uuid, username: admin.username };
  const { tenant } = request.acr;
  if (tenant !== undefined && !(await isTenantMember(deps, principal, tenant)))
    throw InvalidGrant(`this account is not a member of the organization ${tenant}`, { fields: { tenant } });
  return { realm: ADMIN_REALM, principal, amr };
}

async function checkPassword(deps: Deps, request: AuthorizeRequest, login: string, password: string, context: LoginContext): Promise<FirstStep> {
  const { client } = request;
  if (client.appUuid !== null) {
    const { account: user, amr, secondStepDue, enrollmentDue } = await authenticateAppUser(deps, client.appUuid, login, password, context, SECOND_STEP_LATER);
    return { session: appUserSession(client.appUuid, user, amr), secondStepDue: secondStepDue === true, enrollmentDue: enrollmentDue === true };
  }
  const { account: admin, amr, secondStepDue, enrollmentDue } = await authenticateAdmin(deps, login, password, context, SECOND_STEP_LATER);
  return { session: await adminSession(deps, request, admin, amr), secondStepDue: secondStepDue === true, enrollmentDue: enrollmentDue === true };
}

async function checkPasskeyAlone(deps: Deps, request: AuthorizeRequest, proof: PasskeyProof, context: LoginContext): Promise<NewSession> {
  const { client } = request;
  if (client.appUuid !== null) {
    const { account: user, amr } = await authenticateAppUserByPasskey(deps, client.appUuid, proof, context);
    return appUserSession(client.appUuid, user, amr);
  }
  const { account: admin, amr } = await authenticateAdminByPasskey(deps, proof, context);
  return await adminSession(deps, request, admin, amr);
}

/** Runs one step of the sign-in form and writes one audit line for its outcome, never a password or code. */
async function audited<T>(
  deps: Deps,
  request: AuthorizeRequest,
  context: LoginContext,
  login: string,
  step: () => Promise<T>,
  done: (result: T) => [string, NewSession],
) {
  const facts = { endpoint: '/connect/authorize', client_id: request.client.clientId, address: context.address };
  try {
    const result = await step();
    const [event, session] = done(result);
    deps.logger.info({ event, ...facts, subject: session.principal.userUuid, realm: session.realm, amr: session.amr }, event.replaceAll('_', ' '));
    return result;
  } catch (error) {
    deps.logger.info({ event: 'user_sign_in_failed', ...facts, login, error: error instanceof AppError ? error.error : 'server_error' }, 'user sign-in failed');
    throw error;
  }
}

/**
 * The sign-in form: checks the password of an app user or an admin, as the client's realm says
 * (throttled in sign-in/authenticate.ts). A user with a second factor is not signed in yet: the
 * caller asks for the code (completeSecondStep) before any session starts.
 */
export async function authenticateForRequest(
  deps: Deps,
  request: AuthorizeRequest,
  login: string,
  password: string,
  context: LoginContext,
): Promise<FirstStep> {
  return audited(
    deps,
    request,
    context,
    login,
    () => checkPassword(deps, request, login, password, context),
    (step) => [step.secondStepDue || step.enrollmentDue ? 'user_password_accepted' : 'user_signed_in', step.session],
  );
}

/**
 * "Sign in with a passkey" (docs/api.md#passkeys): the discoverable passkey the browser's
 * assertion names signs its owner in, in the client's realm, without a password (throttled as a
 * password is, sign-in/authenticate.ts). Returns the session to start, its `amr` `hwk` or `swk`.
 * @throws 400 `invalid_grant` for a refused passkey, 429 while the throttle waits.
 */
export async function authenticatePasskeyForRequest(deps: Deps, request: AuthorizeRequest, proof: PasskeyProof, context: LoginContext): Promise<NewSession> {
  return audited(
    deps,
    request,
    context,
    assertionLogin(proof),
    () => checkPasskeyAlone(deps, request, proof, context),
    (session) => ['user_signed_in', session],
  );
}

/** What the audit line of a failed passkey sign-in names as the login: the credential, never the assertion. */
function assertionLogin(proof: PasskeyProof): string {
  return `passkey:${assertionCredentialId(proof.response)?.slice(0, 64) ?? ''}`;
}

/**
 * The second-factor form: the one-time code or passkey of the sign-in (or session, for a step-up)
 * waiting for it, under the sign-in throttle. Returns the session to start, its `amr` now with
 * `otp` (or the passkey's `hwk`/`swk`) and `mfa`. @throws 400 `invalid_grant` for a wrong or
 * missing code or a refused passkey, 429 while the throttle waits.
 */
export async function completeSecondStep(
  deps: Deps,
  request: AuthorizeRequest,
  pending: NewSession,
  proof: SecondFactorProof,
  context: LoginContext,
): Promise<NewSession> {
  return audited(
    deps,
    request,
    context,
    pending.principal.username,
    async () => {
      const amr = await authenticateSecondStep(deps, pending.realm, pending.principal.userUuid, proof, context);
      // A factor removed meanwhile leaves nothing to ask: the sign-in is what it was.
      const added = amr.filter((method) => method !== 'mfa' && !PASSWORD_ONLY.includes(method));
      return { ...pending, amr: added.length > 0 ? withSecondFactor(pending.amr, added[0]) : pending.amr };
    },
    (session) => ['user_signed_in', session],
  );
}

/** Whose factor a sign-in enrolls: its user, named in authenticator apps after the application (or idp for admin users). */
async function enrollingOwner(deps: Deps, pending: NewSession): Promise<FactorOwner> {
  const { applications } = schemaOf(deps.db);
  const app =
    pending.realm === ADMIN_REALM
      ? undefined
      : await first(deps.db.select({ name: applications.name }).from(applications).where(eq(applications.uuid, pending.realm)));
  return { realm: pending.realm, uuid: pending.principal.userUuid, username: pending.principal.username, issuerName: app?.name ?? 'idp' };
}

/** An authenticator app being set up in a sign-in: the pending factor, and what the app needs of its secret. */
export interface SignInEnrollment {
  factorId: string;
  secret: string;
  otpauth_uri: string;
  qr_svg: string;
}

/**
 * The enrollment step of a sign-in held to a second factor (docs/account.md#second-factor-required):
 * a new pending TOTP factor for `pending`'s user, or, shown again after a wrong code, the one it
 * started (`factorId`), so that the app already set up keeps working. @throws 409 when the user has
 * an active factor by now: the sign-in must then ask for it instead.
 */
export async function startSignInEnrollment(deps: Deps, pending: NewSession, factorId?: string): Promise<SignInEnrollment> {
  const owner = await enrollingOwner(deps, pending);
  if ((await listActiveFactors(deps.db, owner.uuid)).length > 0) throw Conflict('a second factor was added meanwhile: sign in again');
  const started = factorId === undefined ? undefined : await findFactor(deps.db, owner.uuid, factorId).catch(() => undefined);
  if (started?.status === 'pending' && started.type === 'totp' && started.secret)
    return { factorId: started.id, ...(await totpEnrollmentOf(owner, started.secret)) };
  const enrolled = await enrollFactor(deps, owner, { type: 'totp' });
  return { factorId: enrolled.id, secret: enrolled.secret!, otpauth_uri: enrolled.otpauth_uri!, qr_svg: enrolled.qr_svg! };
}

/**
 * The passkey offered beside the authenticator app in the enrollment step: a new pending passkey
 * factor for `pending`'s user, and the options of `navigator.credentials.create`. @throws 409 when
 * the user has an active factor by now.
 */
export async function startSignInPasskeyEnrollment(deps: Deps, pending: NewSession, name: unknown): Promise<{ id: string; options: unknown }> {
  const owner = await enrollingOwner(deps, pending);
  if ((await listActiveFactors(deps.db, owner.uuid)).length > 0) throw Conflict('a second factor was added meanwhile: sign in again');
  const enrolled = await enrollFactor(deps, owner, { type: 'webauthn', name });
  return { id: enrolled.id, options: enrolled.options };
}

/**
 * The enrollment step's proof: the code of the authenticator app, or the browser's answer for the
 * passkey, activates the factor the step started for `pending`'s user; the sign-in is then complete
 * with `otp` (or the passkey's `hwk`/`swk`) and `mfa` added to its `amr`. Returns the session to
 * start and the user's recovery codes, to be shown once. @throws 400 for a wrong code or a refused
 * passkey, 409 when the user has an active factor by now.
 */
export async function completeSignInEnrollment(
  deps: Deps,
  request: AuthorizeRequest,
  pending: NewSession,
  factorId: string,
  proof: string | { response: unknown },
  context: LoginContext,
): Promise<{ session: NewSession; recoveryCodes: string[] }> {
  return audited(
    deps,
    request,
    context,
    pending.principal.username,
    async () => {
      const owner = await enrollingOwner(deps, pending);
      if ((await listActiveFactors(deps.db, owner.uuid)).length > 0) throw Conflict('a second factor was added meanwhile: sign in again');
      const activated = await verifyFactor(deps, owner, factorId, typeof proof === 'string' ? { code: proof } : proof.response);
      const factor = await findFactor(deps.db, owner.uuid, factorId);
      const method = factor.type === 'totp' ? 'otp' : factor.credential?.multiDevice ? 'swk' : 'hwk';
      return { session: { ...pending, amr: withSecondFactor(pending.amr, method) }, recoveryCodes: activated.recovery_codes ?? [] };
    },
    (enrolled) => ['user_signed_in', enrolled.session],
  );
}
