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
import { authenticateAdmin, authenticateAppUser } from '../sign-in/authenticate.js';
import type { AuthorizeRequest } from './authorize-request.js';
import { errorResponse, issueAuthorizationResponse, type AuthorizationResponse } from './authorize-response.js';
import type { Client } from '../clients/find.js';
import { scopesNotConsented } from './consents.js';
import type { NewSession, SessionRow } from '../sessions/sessions.js';
import type { UserPrincipal } from '../tokens/user-claims.js';
import type { LoginContext } from '../sign-in/throttle.js';

/** The realm of admin users, who sign in through admin clients such as admin-cli. */
export const ADMIN_REALM = 'admin';

/** Whose users sign in through a client: an application's, or the admin users. */
export function realmOf(client: Client): string {
  return client.appUuid ?? ADMIN_REALM;
}

/** What happened earlier in this same authorization: a sign-in just now, a consent just given. */
export interface Interaction {
  freshLogin: boolean;
  consented: boolean;
}

export const NO_INTERACTION: Interaction = { freshLogin: false, consented: false };

export type AuthorizeOutcome =
  | { kind: 'sign-in'; request: AuthorizeRequest }
  | { kind: 'federate'; request: AuthorizeRequest }
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

async function checkPassword(deps: Deps, request: AuthorizeRequest, login: string, password: string, context: LoginContext): Promise<NewSession> {
  const { client } = request;
  if (client.appUuid !== null) {
    const user = await authenticateAppUser(deps, client.appUuid, login, password, context);
    return { realm: client.appUuid, principal: { kind: 'app-user', appUuid: client.appUuid, userUuid: user.uuid, username: user.name ?? '' }, amr: 'pwd' };
  }
  const admin = await authenticateAdmin(deps, login, password, context);
  const principal: UserPrincipal = { kind: admin.sysadmin ? 'sysadmin' : 'admin', userUuid: admin.uuid, username: admin.username };
  const { tenant } = request.acr;
  if (tenant !== undefined && !(await isTenantMember(deps, principal, tenant)))
    throw InvalidGrant(`this account is not a member of the organization ${tenant}`, { fields: { tenant } });
  return { realm: ADMIN_REALM, principal, amr: 'pwd' };
}

/**
 * The sign-in form: checks the password of an app user or an admin, as the client's realm says
 * (throttled in sign-in/authenticate.ts), and writes one audit line for the outcome, never the
 * password.
 */
export async function authenticateForRequest(
  deps: Deps,
  request: AuthorizeRequest,
  login: string,
  password: string,
  context: LoginContext,
): Promise<NewSession> {
  const facts = { endpoint: '/connect/authorize', client_id: request.client.clientId, address: context.address };
  try {
    const session = await checkPassword(deps, request, login, password, context);
    deps.logger.info({ event: 'user_signed_in', ...facts, subject: session.principal.userUuid, realm: session.realm }, 'user signed in');
    return session;
  } catch (error) {
    deps.logger.info({ event: 'user_sign_in_failed', ...facts, login, error: error instanceof AppError ? error.error : 'server_error' }, 'user sign-in failed');
    throw error;
  }
}
