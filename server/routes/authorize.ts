/**
 * The browser side of OpenID Connect: /connect/authorize (GET, and POST with a form), the
 * sign-in and consent forms it shows, and the return from an external provider. Each handler
 * validates, asks src/identity/authorize/authorize.ts what to do, and renders that: a page, a redirect to
 * an external provider, or the response to the client in its response mode.
 */
import { createRoute, z, type RouteConfig } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { defineRoutes, within } from '../route-table.js';
import type { Env } from '../env.js';
import { formBody, openapiRoute, type ValidationResult } from '../openapi.js';
import { validationError } from '../errors.js';
import { formParam, PAGE_FORM, paramsOf, paramsShape, rawQuery } from '../request-input.js';
import { REPEATABLE_PARAMETERS } from '../../src/identity/tokens/resources.js';
import { AccessDenied, AppError, Forbidden, InvalidRequest, TemporarilyUnavailable } from '../../src/errors.js';
import {
  AUTHORIZE_PARAMETERS,
  parseAuthorizeRequest,
  RedirectedError,
  UnsafeRedirectError,
  type AuthorizeRequest,
} from '../../src/identity/authorize/authorize-request.js';
import {
  authenticateForRequest,
  authenticatePasskeyForRequest,
  completeSecondStep,
  completeSignInEnrollment,
  continueAuthorization,
  startSignInPasskeyEnrollment,
  realmOf,
  secondFactorChoices,
  startSignInEnrollment,
  type AuthorizeOutcome,
  type FirstStep,
} from '../../src/identity/authorize/authorize.js';
import { denyAuthorization, errorResponse, type AuthorizationResponse } from '../../src/identity/authorize/authorize-response.js';
import { openDeviceRequest } from '../../src/identity/authorize/device-authorizations.js';
import { rememberConsent } from '../../src/identity/authorize/consents.js';
import { FEDERATION_CALLBACK_PATH, finishFederation, startFederation, takeFederationRequest } from '../../src/identity/federation/federation.js';
import {
  openInteraction,
  openPasskeyChallenge,
  openPendingSignIn,
  sealInteraction,
  type PendingSignIn,
  type SealedInteraction,
} from '../../src/identity/authorize/interaction.js';
import { passkeySignInOptions, type PasskeyProof } from '../../src/identity/factors/passkeys.js';
import type { AuthenticationOptions } from '../../src/identity/factors/webauthn.js';
import { openAuthorizeRequest, requiresPushedRequests } from '../../src/identity/authorize/pushed-requests.js';
import type { NewSession } from '../../src/identity/sessions/sessions.js';
import { listIdentityProviderNames } from '../../src/identity/federation/identity-providers.js';
import { isCsrfTokenValid, pageContext, readSession, startSession } from '../browser.js';
import { loginContextOf } from '../client-address.js';
import { renderConsent } from '../pages/consent.js';
import { renderError, type ErrorPageReason } from '../pages/error.js';
import { renderFormPost } from '../pages/form-post.js';
import { renderSignIn, type SignInPage } from '../pages/sign-in.js';
import { renderSecondFactor, type CodeKind } from '../pages/second-factor.js';
import { renderDeviceDone } from '../pages/device.js';
import { renderEnrolled, renderEnrollment } from '../pages/enrollment.js';
import { sendPage } from '../pages/respond.js';
import { randomToken } from '../../src/identity/keys/secrets.js';
import { issuerOf } from '../../src/identity/issuer.js';
import { accountRefusalOf } from '../../src/identity/sign-in/authenticate.js';

type C = Context<Env>;

/**
 * The parameters of an authorization request (RFC 6749 4.1.1, OpenID Connect Core 3.1.2.1), each
 * at most once; others are kept for the core, which ignores what it does not know.
 */
const AuthorizeParams = z.looseObject(paramsShape(AUTHORIZE_PARAMETERS, REPEATABLE_PARAMETERS)).openapi('AuthorizeRequest');
/** The sign-in and consent pages' forms: the sealed request, the CSRF token, and what the user entered. */
const LoginForm = z.object({ interaction: formParam(), csrf_token: formParam(), login: formParam(), password: formParam() });
/** The second-factor form: the code, or `use` to switch between the authenticator app's code and a recovery code. */
const SecondFactorForm = z.object({
  interaction: formParam(),
  csrf_token: formParam(),
  otp: formParam(),
  use: formParam().openapi({ enum: ['totp', 'recovery'] }),
});
/** The enrollment step's form: the code of the authenticator app just set up. */
const EnrollForm = z.object({ interaction: formParam(), csrf_token: formParam(), otp: formParam() });
/** The form under the recovery codes of a sign-in's enrollment: on to the client. */
const EnrolledForm = z.object({ interaction: formParam(), csrf_token: formParam() });
/** A passkey form: the browser's assertion (JSON) for the challenge its sealed request carries. */
const PasskeyForm = z.object({ interaction: formParam(), csrf_token: formParam(), credential: formParam() });
const ConsentForm = z.object({ interaction: formParam(), csrf_token: formParam(), decision: formParam().openapi({ enum: ['allow', 'deny'] }) });
const CallbackQuery = z.looseObject({ state: formParam(), code: formParam(), error: formParam(), error_description: formParam(), iss: formParam() });

const PAGE_RESPONSES = { 200: { description: 'An HTML page' }, 303: { description: 'A redirect (to the client, or to an identity provider)' } };

/**
 * An authorization request whose parameters did not validate (one sent twice): refused as the
 * core refuses it, on the error page before the redirect URI is trusted, else back at the client
 * (RFC 6749 4.1.2.1).
 */
function refuseAuthorize(result: ValidationResult, c: C) {
  if (result.success) return undefined;
  const refused = validationError(result.error!);
  return withRequest(c, paramsOf(result.data as Record<string, unknown>), async (request) =>
    deliver(c, errorResponse(c.get('deps'), request, InvalidRequest(refused.message)), request.uiLocales),
  );
}

/** A page form that did not validate (a field sent twice) did not come from the page. */
function refusePageForm(result: ValidationResult, c: C) {
  if (result.success) return undefined;
  return errorPage(c, 'csrf', undefined, validationError(result.error!).message, 403);
}

function errorPage(c: C, reason: ErrorPageReason, uiLocales: string | undefined, detail?: string, status: 400 | 403 = 400) {
  return sendPage(c, renderError(pageContext(c, uiLocales), reason, detail), status);
}

/** The response (or error) to the client, in its response mode (OAuth 2.0 Multiple Response Types 2, Form Post Response Mode). */
function deliver(c: C, response: AuthorizationResponse, uiLocales: string | undefined) {
  const { target, params } = response;
  if (target.mode === 'device') {
    const outcome = params.error === undefined ? 'approved' : params.error === 'access_denied' ? 'denied' : 'failed';
    return sendPage(c, renderDeviceDone(pageContext(c, uiLocales), outcome, params.error_description), outcome === 'failed' ? 400 : 200);
  }
  if (target.mode === 'form_post') {
    const nonce = randomToken(16);
    return sendPage(c, renderFormPost(pageContext(c, uiLocales), target.redirectUri, params, nonce), 200, {
      formTargets: [target.redirectUri],
      scriptNonce: nonce,
    });
  }
  const url = new URL(target.redirectUri);
  const encoded = new URLSearchParams(params);
  if (target.mode === 'query') {
    for (const [name, value] of encoded) url.searchParams.append(name, value);
  } else {
    url.hash = encoded.toString();
  }
  c.header('Cache-Control', 'no-store');
  return c.redirect(url.toString(), 303);
}

/** What the page forms carry through: the request (or the device being allowed), and `extra`. */
function sealedOf(request: AuthorizeRequest, extra: Pick<SealedInteraction, 'loginAt' | 'pending' | 'factor'> = {}): Omit<SealedInteraction, 'passkey'> {
  return { query: request.query, ...extra, ...(request.device !== undefined && { device: request.device }) };
}

/** The sealed form of `sealedOf`, for the page's forms. */
function sealRequest(c: C, request: AuthorizeRequest, extra: Pick<SealedInteraction, 'loginAt' | 'pending'> = {}): string {
  return sealInteraction(c.get('deps'), sealedOf(request, extra));
}

/**
 * The passkey form of a page: its own sealed request, which adds the challenge of `options` bound
 * to this browser (interaction.ts) to what the page's other form carries, and the nonce of its
 * scripts.
 */
function passkeyOffer(c: C, sealed: Omit<SealedInteraction, 'passkey'>, options: AuthenticationOptions, csrf: string) {
  const passkey = { challenge: options.challenge, at: c.get('deps').now(), browser: csrf };
  return { interaction: sealInteraction(c.get('deps'), { ...sealed, passkey }), options, scriptNonce: randomToken(16) };
}

async function signInPage(c: C, request: AuthorizeRequest, extra: Pick<SignInPage, 'alert' | 'loginHint'> = {}, status: 200 | 400 | 429 = 200) {
  // An external provider's return resumes an authorize request (federation.ts), not a device's; a
  // client held to pushed requests (RFC 9126 5) cannot be reached with parameters changed in the browser.
  const hidden = request.device !== undefined || requiresPushedRequests(c.get('deps'), request.client);
  const names = hidden ? [] : await listIdentityProviderNames(c.get('deps'), request.client);
  const providers = names.map((name) => {
    const params = new URLSearchParams(request.query);
    params.set('acr_values', `idp:${name}`);
    return { name, href: `/connect/authorize?${params}` };
  });
  const context = pageContext(c, request.uiLocales);
  const offer = passkeyOffer(c, sealedOf(request), await passkeySignInOptions(c.get('deps'), []), context.csrf);
  const page = renderSignIn(context, {
    clientName: request.client.clientName || request.client.clientId,
    tenant: request.acr.tenant,
    loginHint: extra.loginHint ?? request.loginHint,
    alert: extra.alert,
    interaction: sealRequest(c, request),
    providers,
    // Admin clients sign in admin users; an application's clients sign in that application's users.
    forgotPasswordHref: request.client.appUuid
      ? `/${request.client.orgUuid}/${request.client.appUuid}/users/resetpw?ui_locales=${encodeURIComponent(request.uiLocales ?? '')}`
      : `/management/users/resetpw?ui_locales=${encodeURIComponent(request.uiLocales ?? '')}`,
    passkey: { ...offer, label: 'sign_in.passkey', autofill: true },
  });
  return sendPage(c, page, status, { formTargets: [request.redirectUri], scriptNonce: offer.scriptNonce });
}

/**
 * The second step of a sign-in (or a step-up of a session): asks for the code or a passkey of
 * `pending`, sealed into the forms for this browser only (interaction.ts); no session exists
 * until it passes.
 */
async function secondFactorPage(
  c: C,
  request: AuthorizeRequest,
  pending: NewSession | PendingSignIn,
  extra: { kind?: CodeKind; alert?: string } = {},
  status: 200 | 400 | 429 = 200,
) {
  const context = pageContext(c, request.uiLocales);
  // A first showing starts the clock; a form shown again after a wrong code keeps the first step's time.
  const waiting: PendingSignIn = 'browser' in pending ? pending : { session: pending, at: c.get('deps').now(), browser: context.csrf };
  const choices = await secondFactorChoices(c.get('deps'), request, waiting.session);
  const sealed = sealedOf(request, { pending: waiting });
  const offer = choices.passkey ? passkeyOffer(c, sealed, choices.passkey, context.csrf) : undefined;
  const page = renderSecondFactor(context, {
    clientName: request.client.clientName || request.client.clientId,
    userName: waiting.session.principal.username,
    kind: choices.code && (extra.kind ?? choices.code),
    switchable: choices.totp,
    passkey: offer && { ...offer, label: 'second_factor.use_passkey', autofill: false },
    alert: extra.alert,
    interaction: sealInteraction(c.get('deps'), sealed),
  });
  return sendPage(c, page, status, { formTargets: [request.redirectUri], scriptNonce: offer?.scriptNonce });
}

/**
 * The enrollment step of a sign-in held to a second factor (docs/account.md#second-factor-required):
 * the authenticator app to set up for `pending`, sealed into the form for this browser only, as
 * the second-factor page seals its sign-in; no session exists until the code passes.
 */
async function enrollmentPage(
  c: C,
  request: AuthorizeRequest,
  pending: NewSession | PendingSignIn,
  extra: { factor?: string; alert?: string } = {},
  status: 200 | 400 = 200,
) {
  const context = pageContext(c, request.uiLocales);
  const waiting: PendingSignIn = 'browser' in pending ? pending : { session: pending, at: c.get('deps').now(), browser: context.csrf };
  const setup = await startSignInEnrollment(c.get('deps'), waiting.session, extra.factor);
  const scriptNonce = randomToken(16);
  const page = renderEnrollment(context, {
    clientName: request.client.clientName || request.client.clientId,
    userName: waiting.session.principal.username,
    secret: setup.secret,
    qrSvg: setup.qr_svg,
    alert: extra.alert,
    interaction: sealInteraction(c.get('deps'), sealedOf(request, { pending: waiting, factor: setup.factorId })),
    scriptNonce,
  });
  return sendPage(c, page, status, { formTargets: [request.redirectUri], scriptNonce });
}

/** Turns what the core decided into the HTTP answer. */
export async function render(c: C, outcome: AuthorizeOutcome, loginAt?: number): Promise<Response> {
  switch (outcome.kind) {
    case 'respond':
      return deliver(c, outcome.response, outcome.request.uiLocales);
    case 'sign-in':
      return signInPage(c, outcome.request);
    case 'second-factor':
      return secondFactorPage(c, outcome.request, outcome.pending);
    case 'federate':
      try {
        return c.redirect((await startFederation(c.get('deps'), outcome.request)).toString(), 303);
      } catch (error) {
        c.get('logger').warn({ err: error, idp: outcome.request.acr.idp }, 'external identity provider unreachable');
        const unreachable = TemporarilyUnavailable(`the identity provider '${outcome.request.acr.idp}' cannot be reached`);
        return deliver(c, errorResponse(c.get('deps'), outcome.request, unreachable), outcome.request.uiLocales);
      }
    case 'consent': {
      const { request, session, scopes } = outcome;
      const page = renderConsent(pageContext(c, request.uiLocales), {
        clientName: request.client.clientName || request.client.clientId,
        userName: session.principal.username,
        scopes,
        device: request.device !== undefined,
        interaction: sealRequest(c, request, { loginAt }),
      });
      return sendPage(c, page, 200, { formTargets: [request.redirectUri] });
    }
  }
}

/**
 * Validates a request and hands it on; failures before the redirect URI is trusted are shown on
 * the error page, later ones go back to the client (RFC 6749 4.1.2.1). A request from the browser
 * is opened with `openAuthorizeRequest` (a pushed one, RFC 9126); one carried through this
 * server's own sealed forms was opened so already and holds the parameters themselves.
 */
async function withRequest(
  c: C,
  params: URLSearchParams,
  next: (request: AuthorizeRequest) => Promise<Response>,
  open: typeof parseAuthorizeRequest = parseAuthorizeRequest,
): Promise<Response> {
  let request: AuthorizeRequest;
  try {
    request = await open(c.get('deps'), params);
  } catch (error) {
    const uiLocales = params.get('ui_locales') ?? undefined;
    if (error instanceof UnsafeRedirectError) return errorPage(c, error.reason, uiLocales, error.message);
    if (error instanceof RedirectedError) return deliver(c, errorResponse(c.get('deps'), error.target, error.error), uiLocales);
    throw error;
  }
  return next(request);
}

async function authorize(c: C, params: URLSearchParams) {
  return withRequest(c, params, async (request) => render(c, await continueAuthorization(c.get('deps'), request, await readSession(c))), openAuthorizeRequest);
}

/** A posted page form: CSRF token checked, sealed authorize request opened. */
async function pageForm<F extends { interaction?: string; csrf_token?: string }>(
  c: C,
  form: F,
): Promise<{ form: F; query: URLSearchParams; loginAt?: number; sealed: SealedInteraction } | Response> {
  const sealed = openInteraction(c.get('deps'), form.interaction);
  const uiLocales = sealed ? (new URLSearchParams(sealed.query).get('ui_locales') ?? undefined) : undefined;
  if (!isCsrfTokenValid(c, form.csrf_token) || !sealed) return errorPage(c, 'csrf', uiLocales, undefined, 403);
  return { form, query: new URLSearchParams(sealed.query), loginAt: sealed.loginAt, sealed };
}

/** A posted form's request: the sealed authorize request, or the device authorization it allows (RFC 8628). */
async function withPosted(c: C, posted: { query: URLSearchParams; sealed: SealedInteraction }, next: (request: AuthorizeRequest) => Promise<Response>) {
  if (posted.sealed.device === undefined) return withRequest(c, posted.query, next);
  const uiLocales = posted.query.get('ui_locales') ?? undefined;
  const request = await openDeviceRequest(c.get('deps'), posted.sealed.device, uiLocales);
  if (!request) return sendPage(c, renderDeviceDone(pageContext(c, uiLocales), 'expired'), 400);
  return next(request);
}

/**
 * A refused sign-in step shown again with what went wrong: 400, or 429 with Retry-After as the
 * token endpoints say it (RFC 6585 4). Other errors go on to onError.
 */
function refusedStep(c: C, error: unknown, show: (alert: NonNullable<SignInPage['alert']>, status: 400 | 429) => Promise<Response>): Promise<Response> {
  if (!(error instanceof AppError) || error.status >= 500) throw error;
  if (error.status !== 429) return show(signInAlert(error), 400);
  c.header('Retry-After', error.headers['Retry-After']);
  return show(signInAlert(error), 429);
}

function signInAlert(error: AppError): NonNullable<SignInPage['alert']> {
  if (error.status === 429) return { key: 'sign_in.throttled' };
  if (error.fields.tenant !== undefined) return { key: 'sign_in.not_member', values: { tenant: error.fields.tenant } };
  const refusal = accountRefusalOf(error);
  if (refusal !== undefined) return { key: `sign_in.${refusal}`, values: { organization: error.fields.organization ?? '' } };
  return { key: 'sign_in.failed' };
}

/**
 * After a sign-in's first step (a password, or an external provider's return): the second-factor
 * page or the enrollment step when one is due, else the session starts and the flow goes on.
 */
async function afterFirstStep(c: C, request: AuthorizeRequest, step: FirstStep): Promise<Response> {
  if (step.secondStepDue) return secondFactorPage(c, request, step.session);
  if (step.enrollmentDue) return enrollmentPage(c, request, step.session);
  const session = await startSession(c, step.session);
  return render(c, await continueAuthorization(c.get('deps'), request, session, { freshLogin: true, consented: false }), session.authTime);
}

async function signIn(c: C, form: z.infer<typeof LoginForm>): Promise<Response> {
  const posted = await pageForm(c, form);
  if (posted instanceof Response) return posted;
  return withPosted(c, posted, async (request) => {
    const login = form.login?.trim() ?? '';
    try {
      return await afterFirstStep(c, request, await authenticateForRequest(c.get('deps'), request, login, form.password ?? '', loginContextOf(c)));
    } catch (error) {
      return refusedStep(c, error, (alert, status) => signInPage(c, request, { alert, loginHint: login }, status));
    }
  });
}

/** The second-factor form: the code checked, then the session starts (or is stepped up) and the flow goes on. */
async function secondStep(c: C, form: z.infer<typeof SecondFactorForm>): Promise<Response> {
  const posted = await pageForm(c, form);
  if (posted instanceof Response) return posted;
  return withPosted(c, posted, async (request) => {
    const pending = openPendingSignIn(c.get('deps'), posted.sealed, form.csrf_token ?? '');
    if (pending === undefined) return errorPage(c, 'csrf', request.uiLocales, undefined, 403);
    if (pending === 'expired') return signInPage(c, request, { alert: { key: 'second_factor.expired' } }, 400);
    if (form.use === 'totp' || form.use === 'recovery') return secondFactorPage(c, request, pending, { kind: form.use });
    const kind: CodeKind = /^\s*\d+\s*$/.test(form.otp ?? '') ? 'totp' : 'recovery';
    try {
      const session = await startSession(c, await completeSecondStep(c.get('deps'), request, pending.session, form.otp ?? '', loginContextOf(c)));
      return render(c, await continueAuthorization(c.get('deps'), request, session, { freshLogin: true, consented: false }), session.authTime);
    } catch (error) {
      return refusedStep(c, error, (alert, status) =>
        secondFactorPage(c, request, pending, { kind, alert: status === 429 ? alert.key : 'second_factor.failed' }, status),
      );
    }
  });
}

/**
 * The enrollment step's form: the code of the app just set up activates the factor, the session
 * starts with `otp` and `mfa`, and the recovery codes are shown once, with a form that goes on to
 * the client (enrolled). A wrong code shows the same setup again.
 */
async function enrollStep(c: C, form: z.infer<typeof EnrollForm>): Promise<Response> {
  const posted = await pageForm(c, form);
  if (posted instanceof Response) return posted;
  return withPosted(c, posted, async (request) => {
    const deps = c.get('deps');
    const pending = openPendingSignIn(deps, posted.sealed, form.csrf_token ?? '');
    if (pending === undefined || posted.sealed.factor === undefined) return errorPage(c, 'csrf', request.uiLocales, undefined, 403);
    if (pending === 'expired') return signInPage(c, request, { alert: { key: 'second_factor.expired' } }, 400);
    let enrolled;
    try {
      enrolled = await completeSignInEnrollment(deps, request, pending.session, posted.sealed.factor, form.otp ?? '', loginContextOf(c));
    } catch (error) {
      if (!(error instanceof AppError) || error.status >= 500) throw error;
      // A factor added meanwhile (409): the sign-in starts over and asks for it.
      if (error.status === 409) return signInPage(c, request, { alert: { key: 'second_factor.expired' } }, 400);
      return enrollmentPage(c, request, pending, { factor: posted.sealed.factor, alert: 'enroll.failed' }, 400);
    }
    const session = await startSession(c, enrolled.session);
    const page = renderEnrolled(pageContext(c, request.uiLocales), {
      codes: enrolled.recoveryCodes,
      interaction: sealRequest(c, request, { loginAt: session.authTime }),
    });
    c.header('Cache-Control', 'no-store');
    return sendPage(c, page, 200, { formTargets: [request.redirectUri] });
  });
}

/** The enrollment step's passkey (JSON, assets/account-passkeys.js): the sealed sign-in it finishes, for this browser only. */
const PasskeyEnrollBody = z.object({
  csrf_token: z.string(),
  interaction: z.string(),
  name: z.unknown().optional(),
  id: z.string().optional(),
  response: z.unknown().optional(),
});

/**
 * The enrollment step's passkey: `finish` false starts it (the options for
 * navigator.credentials.create), true activates it with the browser's answer, starts the session
 * and answers the recovery codes and where to go on (enrolled).
 */
async function enrollingPasskey(c: C, finish: boolean): Promise<Response> {
  const deps = c.get('deps');
  const body = PasskeyEnrollBody.safeParse(await c.req.json().catch(() => null));
  const sealed = body.success ? openInteraction(deps, body.data.interaction) : undefined;
  if (!body.success || !sealed || !isCsrfTokenValid(c, body.data.csrf_token))
    throw Forbidden('this page has expired or did not come from this site; reload it');
  const pending = openPendingSignIn(deps, sealed, body.data.csrf_token);
  if (pending === undefined || pending === 'expired') throw Forbidden('the sign-in took too long: sign in again');
  c.header('Cache-Control', 'no-store');
  if (!finish) return c.json(await startSignInPasskeyEnrollment(deps, pending.session, body.data.name));
  const { data } = body;
  return withPosted(c, { query: new URLSearchParams(sealed.query), sealed }, async (request) => {
    const enrolled = await completeSignInEnrollment(deps, request, pending.session, data.id ?? '', { response: data.response }, loginContextOf(c));
    const session = await startSession(c, enrolled.session);
    const next = `/connect/authorize/enrolled?${new URLSearchParams({ interaction: sealRequest(c, request, { loginAt: session.authTime }) })}`;
    return c.json({ next, recovery_codes: enrolled.recoveryCodes });
  });
}

/**
 * On from the recovery codes of a sign-in's enrollment: the authorization goes on with the session
 * it started. The form posts it; after a passkey the page's script links to it (GET), which, like
 * /connect/authorize, acts only for the browser's own session.
 */
async function enrolled(c: C, form: z.infer<typeof EnrolledForm>, method: 'get' | 'post' = 'post'): Promise<Response> {
  const sealed = method === 'get' ? openInteraction(c.get('deps'), form.interaction) : undefined;
  const posted = sealed ? { form, query: new URLSearchParams(sealed.query), loginAt: sealed.loginAt, sealed } : await pageForm(c, form);
  if (posted instanceof Response) return posted;
  return withPosted(c, posted, async (request) => {
    const session = await readSession(c);
    const freshLogin = session !== undefined && posted.loginAt !== undefined && posted.loginAt === session.authTime;
    return render(c, await continueAuthorization(c.get('deps'), request, session, { freshLogin, consented: false }), posted.loginAt);
  });
}

/** The browser's assertion as posted (JSON); undefined when none was (a form posted without the page's script). */
function assertionOf(credential: string | undefined): unknown {
  if (!credential) return undefined;
  try {
    return JSON.parse(credential) as unknown;
  } catch {
    return null;
  }
}

/**
 * A passkey form (docs/api.md#passkeys): after a password, the second step of the sign-in waiting
 * for it; on the sign-in page, a sign-in with the passkey alone. Either way the session starts
 * (or is stepped up) and the flow goes on; a refused passkey shows the page again, with a new
 * challenge.
 */
async function passkeyStep(c: C, form: z.infer<typeof PasskeyForm>): Promise<Response> {
  const posted = await pageForm(c, form);
  if (posted instanceof Response) return posted;
  return withPosted(c, posted, async (request) => {
    const deps = c.get('deps');
    const csrf = form.csrf_token ?? '';
    const challenge = openPasskeyChallenge(deps, posted.sealed, csrf);
    const pending = posted.sealed.pending ? openPendingSignIn(deps, posted.sealed, csrf) : null;
    if (challenge === undefined || pending === undefined) return errorPage(c, 'csrf', request.uiLocales, undefined, 403);
    if (pending === 'expired') return signInPage(c, request, { alert: { key: 'second_factor.expired' } }, 400);
    const retry = (alert: string, status: 400 | 429) =>
      pending ? secondFactorPage(c, request, pending, { alert }, status) : signInPage(c, request, { alert: { key: alert } }, status);
    const failed = pending ? 'second_factor.passkey_failed' : 'sign_in.passkey_failed';
    if (challenge === 'expired') return retry('sign_in.passkey_expired', 400);
    const response = assertionOf(form.credential);
    if (response === undefined) return retry(failed, 400);
    const proof: PasskeyProof = { response, challenge: challenge.challenge, issuedAt: challenge.at };
    try {
      const signedIn = pending
        ? await completeSecondStep(deps, request, pending.session, proof, loginContextOf(c))
        : await authenticatePasskeyForRequest(deps, request, proof, loginContextOf(c));
      const session = await startSession(c, signedIn);
      return render(c, await continueAuthorization(deps, request, session, { freshLogin: true, consented: false }), session.authTime);
    } catch (error) {
      // A refused passkey says so; a throttle or an account that may not sign in says what it is.
      return refusedStep(c, error, (alert, status) => {
        if (alert.key === 'sign_in.failed') return retry(failed, status);
        return pending ? retry(alert.key, status) : signInPage(c, request, { alert }, status);
      });
    }
  });
}

async function consent(c: C, form: z.infer<typeof ConsentForm>): Promise<Response> {
  const posted = await pageForm(c, form);
  if (posted instanceof Response) return posted;
  return withPosted(c, posted, async (request) => {
    const session = await readSession(c);
    // Signed out (or in as someone of another realm) since the page was shown: start over.
    if (session?.realm !== realmOf(request.client)) return render(c, await continueAuthorization(c.get('deps'), request, undefined));
    if (form.decision !== 'allow') {
      return deliver(c, await denyAuthorization(c.get('deps'), request, 'the user denied the request'), request.uiLocales);
    }
    await rememberConsent(c.get('deps'), request.client.clientId, session.principal.userUuid, request.scope);
    const freshLogin = posted.loginAt !== undefined && posted.loginAt === session.authTime;
    return render(c, await continueAuthorization(c.get('deps'), request, session, { freshLogin, consented: true }), posted.loginAt);
  });
}

async function federationReturn(c: C, query: z.infer<typeof CallbackQuery>): Promise<Response> {
  // The address the provider was given, whatever Host this request came in with (a proxy);
  // its query as sent, for the provider's answer to be checked as it was signed.
  const callbackUrl = new URL(`${FEDERATION_CALLBACK_PATH}${rawQuery(c)}`, issuerOf(c.get('deps')));
  const pending = await takeFederationRequest(c.get('deps'), query.state);
  if (!pending) return errorPage(c, 'federation_failed', undefined, 'unknown or expired state');
  return withRequest(c, new URLSearchParams(pending.resume), async (request) => {
    if (query.error) return deliver(c, errorResponse(c.get('deps'), request, AccessDenied(`the identity provider answered ${query.error}`)), request.uiLocales);
    try {
      return await afterFirstStep(c, request, await finishFederation(c.get('deps'), pending, callbackUrl));
    } catch (error) {
      c.get('logger').warn({ err: error, idp: request.acr.idp }, 'external sign-in failed');
      return deliver(c, errorResponse(c.get('deps'), request, AccessDenied(`signing in with '${request.acr.idp}' failed`)), request.uiLocales);
    }
  });
}

function page<M extends 'get' | 'post', I extends NonNullable<RouteConfig['request']>>(method: M, path: string, summary: string, request: I) {
  return createRoute({ method, path, tags: ['OAuth 2.0 / OpenID Connect'], summary, request, responses: PAGE_RESPONSES });
}

/** The enrollment step's forms, its passkey's JSON, and the way on from its recovery codes (docs/account.md#second-factor-required). */
function enrollmentRoutes(app: Parameters<Parameters<typeof defineRoutes>[1]>[0]): void {
  openapiRoute(
    app,
    page('post', '/authorize/enroll', "The enrollment step's form (the code of the authenticator app a sign-in sets up)", { body: formBody(EnrollForm) }),
    (c) => enrollStep(c, c.req.valid('form')),
    { hook: refusePageForm, body: PAGE_FORM },
  );
  openapiRoute(
    app,
    page('post', '/authorize/enrolled', 'On from the recovery codes of the enrollment step to the client', { body: formBody(EnrolledForm) }),
    (c) => enrolled(c, c.req.valid('form')),
    { hook: refusePageForm, body: PAGE_FORM },
  );
  openapiRoute(
    app,
    page('get', '/authorize/enrolled', 'On from the recovery codes of a passkey enrolled in the enrollment step', {
      query: z.object({ interaction: formParam() }),
    }),
    (c) => enrolled(c, c.req.valid('query'), 'get'),
  );
  for (const [path, finish, summary] of [
    ['/authorize/enroll/passkey', false, "The enrollment step's passkey: the options for navigator.credentials.create"],
    ['/authorize/enroll/passkey/verify', true, "The enrollment step's passkey: the browser's answer"],
  ] as const) {
    const body = { content: { 'application/json': { schema: PasskeyEnrollBody } } };
    const route = createRoute({
      method: 'post',
      path,
      tags: ['OAuth 2.0 / OpenID Connect'],
      summary,
      request: { body },
      responses: { 200: { description: 'JSON' } },
    });
    app.openAPIRegistry.registerPath(route);
    app.openapi({ ...route, hide: true, request: {} }, ((c: C) => enrollingPasskey(c, finish)) as never);
  }
}

export const authorizeRoutes = defineRoutes('server/routes/authorize.ts', (app) => {
  openapiRoute(
    app,
    page('get', '/authorize', 'Authorization endpoint (RFC 6749 3.1): sign-in, consent, then back to the client', { query: AuthorizeParams }),
    (c) => authorize(c, paramsOf(c.req.valid('query'))),
    {
      hook: refuseAuthorize,
    },
  );
  openapiRoute(
    app,
    page('post', '/authorize', 'Authorization endpoint, the request as a form (OpenID Connect Core 3.1.2.1)', { body: formBody(AuthorizeParams) }),
    (c) => authorize(c, paramsOf(c.req.valid('form'))),
    {
      hook: refuseAuthorize,
      body: PAGE_FORM,
    },
  );
  openapiRoute(app, page('post', '/authorize/login', "The sign-in page's form", { body: formBody(LoginForm) }), (c) => signIn(c, c.req.valid('form')), {
    hook: refusePageForm,
    body: PAGE_FORM,
  });
  openapiRoute(
    app,
    page('post', '/authorize/otp', "The second-factor page's form (a sign-in's one-time code)", { body: formBody(SecondFactorForm) }),
    (c) => secondStep(c, c.req.valid('form')),
    { hook: refusePageForm, body: PAGE_FORM },
  );
  openapiRoute(
    app,
    page('post', '/authorize/passkey', "The passkey form of the sign-in and second-factor pages (the browser's WebAuthn assertion)", {
      body: formBody(PasskeyForm),
    }),
    (c) => passkeyStep(c, c.req.valid('form')),
    { hook: refusePageForm, body: PAGE_FORM },
  );
  enrollmentRoutes(app);
  openapiRoute(app, page('post', '/authorize/consent', "The consent page's form", { body: formBody(ConsentForm) }), (c) => consent(c, c.req.valid('form')), {
    hook: refusePageForm,
    body: PAGE_FORM,
  });
  const callback = page('get', within('/connect', FEDERATION_CALLBACK_PATH), 'The return from an external identity provider (its authorization response)', {
    query: CallbackQuery,
  });
  openapiRoute(app, callback, (c) => federationReturn(c, c.req.valid('query')), {
    hook: (result, c) => (result.success ? undefined : errorPage(c, 'federation_failed', undefined, validationError(result.error!).message)),
  });
});
