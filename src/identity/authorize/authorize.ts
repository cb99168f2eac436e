/**
 * The authorize decision (docs/api.md#authorize-endpoint, OIDC Core 3.1.2.3): given a validated
 * request and the browser's session, either answer the client at once (single sign-on), or say
 * which page the user must see first — sign-in, consent, or the external provider of
 * `acr_values=idp:NAME`. `prompt=none` never shows a page: what would have needed one goes back as
 * an error.
 */
import { and, eq } from 'drizzle-orm';
import { orgAdmins, organizations } from '../../db/schema.js';
import type { Deps } from '../../deps.js';
import { AppError, ConsentRequired, InteractionRequired, InvalidGrant, LoginRequired } from '../../errors.js';
import { authenticateAdmin, authenticateAppUser, authenticateSecondStep, SECOND_STEP_LATER } from '../sign-in/authenticate.js';
import { listActiveFactors } from '../factors/factors.js';
import { acrOf, MFA_ACR, withSecondFactor } from '../factors/second-factor.js';
import type { AuthorizeRequest } from './authorize-request.js';
import { errorResponse, issueAuthorizationResponse, type AuthorizationResponse } from './authorize-response.js';
import type { Client } from '../clients/find.js';
import { scopesNotConsented } from './consents.js';
import { amrOf, type NewSession, type SessionRow } from '../sessions/sessions.js';
import type { UserPrincipal } from '../tokens/user-claims.js';
import { ADMIN_REALM, type LoginContext } from '../sign-in/throttle.js';

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
  if (principal.kind === 'sysadmin') return true;
  const row = await deps.db
    .select({ userUuid: orgAdmins.userUuid })
    .from(orgAdmins)
    .innerJoin(organizations, eq(organizations.uuid, orgAdmins.orgUuid))
    .where(and(eq(organizations.nameKey, tenant.toLowerCase()), eq(orgAdmins.userUuid, principal.userUuid)))
    .get();
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
 * Whether the client asked for two factors (`acr_values` with `urn:idp:acr:mfa`, and not the
 * `acr` the session has) and the user can give one: a user without a factor is answered with the
 * `acr` achieved, since acr_values is a voluntary request (OIDC Core 3.1.2.1, 5.5.1.1).
 */
async function needsStepUp(deps: Deps, request: AuthorizeRequest, session: SessionRow): Promise<boolean> {
  const wanted = request.acr.classes;
  const amr = amrOf(session);
  if (!wanted.includes(MFA_ACR) || amr.includes('mfa') || wanted.includes(acrOf(amr) ?? '')) return false;
  return (await listActiveFactors(deps.db, session.principal.userUuid)).length > 0;
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
    if (await needsStepUp(deps, request, signedIn)) {
      if (request.prompt.has('none')) throw InteractionRequired('the client asked for a second factor (acr_values), and prompt is none');
      const pending: NewSession = { realm: signedIn.realm, principal: signedIn.principal, amr: amrOf(signedIn), provider: signedIn.provider ?? undefined };
      return { kind: 'second-factor', request, pending };
    }
    if (request.client.requireConsent && !interaction.consented) {
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

/** A sign-in's first step: the session it starts, unless `secondStepDue` (the user has a factor to give first). */
export interface FirstStep {
  session: NewSession;
  secondStepDue: boolean;
}

async function checkPassword(deps: Deps, request: AuthorizeRequest, login: string, password: string, context: LoginContext): Promise<FirstStep> {
  const { client } = request;
  if (client.appUuid !== null) {
    const { account: user, amr, secondStepDue } = await authenticateAppUser(deps, client.appUuid, login, password, context, SECOND_STEP_LATER);
    const principal: UserPrincipal = { kind: 'app-user', appUuid: client.appUuid, userUuid: user.uuid, username: user.name ?? '' };
    return { session: { realm: client.appUuid, principal, amr }, secondStepDue: secondStepDue === true };
  }
  const { account: admin, amr, secondStepDue } = await authenticateAdmin(deps, login, password, context, SECOND_STEP_LATER);
  const principal: UserPrincipal = { kind: admin.sysadmin ? 'sysadmin' : 'admin', userUuid: admin.uuid, username: admin.username };
  const { tenant } = request.acr;
  if (tenant !== undefined && !(await isTenantMember(deps, principal, tenant)))
    throw InvalidGrant(`this account is not a member of the organization ${tenant}`, { fields: { tenant } });
  return { session: { realm: ADMIN_REALM, principal, amr }, secondStepDue: secondStepDue === true };
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
    (step) => [step.secondStepDue ? 'user_password_accepted' : 'user_signed_in', step.session],
  );
}

/**
 * The second-factor form: the one-time code of the sign-in (or session, for a step-up) waiting
 * for it, under the sign-in throttle. Returns the session to start, its `amr` now with `otp` and
 * `mfa`. @throws 400 `invalid_grant` for a wrong or missing code, 429 while the throttle waits.
 */
export async function completeSecondStep(deps: Deps, request: AuthorizeRequest, pending: NewSession, otp: string, context: LoginContext): Promise<NewSession> {
  return audited(
    deps,
    request,
    context,
    pending.principal.username,
    async () => {
      const amr = await authenticateSecondStep(deps, pending.realm, pending.principal.userUuid, otp, context);
      // A factor removed meanwhile leaves nothing to ask: the sign-in is what it was.
      return { ...pending, amr: amr.includes('mfa') ? withSecondFactor(pending.amr) : pending.amr };
    },
    (session) => ['user_signed_in', session],
  );
}
