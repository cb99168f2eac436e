/**
 * The browser side of OpenID Connect: /connect/authorize (GET, and POST with a form), the
 * sign-in and consent forms it shows, and the return from an external provider. Each handler
 * validates, asks src/identity/authorize/authorize.ts what to do, and renders that: a page, a redirect to
 * an external provider, or the response to the client in its response mode.
 */
import type { Context } from 'hono';
import { defineRoutes, within } from '../route-table.js';
import type { Env } from '../env.js';
import { AccessDenied, AppError, TemporarilyUnavailable, UnsupportedMediaType } from '../../src/errors.js';
import {
  parseAuthorizeRequest,
  RedirectedError,
  UnsafeRedirectError,
  type AuthorizeRequest,
} from '../../src/identity/authorize/authorize-request.js';
import { authenticateForRequest, continueAuthorization, NO_INTERACTION, realmOf, type AuthorizeOutcome, type Interaction } from '../../src/identity/authorize/authorize.js';
import { errorResponse, type AuthorizationResponse } from '../../src/identity/authorize/authorize-response.js';
import { rememberConsent } from '../../src/identity/authorize/consents.js';
import { FEDERATION_CALLBACK_PATH, finishFederation, startFederation, takeFederationRequest } from '../../src/identity/federation/federation.js';
import { openInteraction, sealInteraction } from '../../src/identity/authorize/interaction.js';
import { listIdentityProviderNames } from '../../src/identity/federation/identity-providers.js';
import { isCsrfTokenValid, pageContext, readSession, startSession } from '../browser.js';
import { loginContextOf } from '../client-address.js';
import { renderConsent } from '../pages/consent.js';
import { renderError, type ErrorPageReason } from '../pages/error.js';
import { renderFormPost } from '../pages/form-post.js';
import { renderSignIn, type SignInPage } from '../pages/sign-in.js';
import { sendPage } from '../pages/respond.js';
import { randomToken } from '../../src/identity/keys/secrets.js';
import { issuerOf } from '../../src/identity/tokens/access-tokens.js';

type C = Context<Env>;

/** A form body as URLSearchParams, so a parameter sent twice is still seen twice. */
async function formParams(c: C): Promise<URLSearchParams> {
  if (!/^application\/x-www-form-urlencoded/i.test(c.req.header('content-type') ?? '')) {
    throw UnsupportedMediaType('send the form as application/x-www-form-urlencoded');
  }
  return new URLSearchParams(await c.req.text());
}

function errorPage(c: C, reason: ErrorPageReason, uiLocales: string | undefined, detail?: string, status: 400 | 403 = 400) {
  return sendPage(c, renderError(pageContext(c, uiLocales), reason, detail), status);
}

/** The response (or error) to the client, in its response mode (OAuth 2.0 Multiple Response Types 2, Form Post Response Mode). */
function deliver(c: C, response: AuthorizationResponse, uiLocales: string | undefined) {
  const { target, params } = response;
  if (target.mode === 'form_post') {
    const nonce = randomToken(16);
    return sendPage(c, renderFormPost(pageContext(c, uiLocales), target.redirectUri, params, nonce), 200, { formTargets: [target.redirectUri], scriptNonce: nonce });
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

async function signInPage(c: C, request: AuthorizeRequest, extra: Pick<SignInPage, 'alert' | 'loginHint'> = {}, status: 200 | 400 | 429 = 200) {
  const providers = (await listIdentityProviderNames(c.get('deps'), request.client)).map((name) => {
    const params = new URLSearchParams(request.query);
    params.set('acr_values', `idp:${name}`);
    return { name, href: `/connect/authorize?${params}` };
  });
  const page = renderSignIn(pageContext(c, request.uiLocales), {
    clientName: request.client.clientName || request.client.clientId,
    tenant: request.acr.tenant,
    loginHint: extra.loginHint ?? request.loginHint,
    alert: extra.alert,
    interaction: sealInteraction(c.get('deps'), { query: request.query }),
    providers,
    // Admin clients sign in admin users; an application's clients sign in that application's users.
    forgotPasswordHref: request.client.appUuid
      ? `/${request.client.orgUuid}/${request.client.appUuid}/users/resetpw?ui_locales=${encodeURIComponent(request.uiLocales ?? '')}`
      : `/management/users/resetpw?ui_locales=${encodeURIComponent(request.uiLocales ?? '')}`,
  });
  return sendPage(c, page, status, { formTargets: [request.redirectUri] });
}

/** Turns what the core decided into the HTTP answer. */
async function render(c: C, outcome: AuthorizeOutcome, loginAt?: number): Promise<Response> {
  switch (outcome.kind) {
    case 'respond':
      return deliver(c, outcome.response, outcome.request.uiLocales);
    case 'sign-in':
      return signInPage(c, outcome.request);
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
        interaction: sealInteraction(c.get('deps'), { query: request.query, loginAt }),
      });
      return sendPage(c, page, 200, { formTargets: [request.redirectUri] });
    }
  }
}

/**
 * Validates a request and hands it on; failures before the redirect URI is trusted are shown on
 * the error page, later ones go back to the client (RFC 6749 4.1.2.1).
 */
async function withRequest(c: C, params: URLSearchParams, next: (request: AuthorizeRequest) => Promise<Response>): Promise<Response> {
  let request: AuthorizeRequest;
  try {
    request = await parseAuthorizeRequest(c.get('deps'), params);
  } catch (error) {
    const uiLocales = params.get('ui_locales') ?? undefined;
    if (error instanceof UnsafeRedirectError) return errorPage(c, error.reason, uiLocales, error.message);
    if (error instanceof RedirectedError) return deliver(c, errorResponse(c.get('deps'), error.target, error.error), uiLocales);
    throw error;
  }
  return next(request);
}

async function authorize(c: C, params: URLSearchParams, interaction: Interaction = NO_INTERACTION) {
  return withRequest(c, params, async (request) => render(c, await continueAuthorization(c.get('deps'), request, await readSession(c), interaction)));
}

/** A posted page form: CSRF token checked, sealed authorize request opened. */
async function pageForm(c: C): Promise<{ form: URLSearchParams; query: URLSearchParams; loginAt?: number } | Response> {
  const form = await formParams(c);
  const sealed = openInteraction(c.get('deps'), form.get('interaction') ?? undefined);
  const uiLocales = sealed ? (new URLSearchParams(sealed.query).get('ui_locales') ?? undefined) : undefined;
  if (!isCsrfTokenValid(c, form.get('csrf_token') ?? undefined) || !sealed) return errorPage(c, 'csrf', uiLocales, undefined, 403);
  return { form, query: new URLSearchParams(sealed.query), loginAt: sealed.loginAt };
}

function signInAlert(error: AppError): NonNullable<SignInPage['alert']> {
  if (error.status === 429) return { key: 'sign_in.throttled' };
  if (error.fields.tenant !== undefined) return { key: 'sign_in.not_member', values: { tenant: error.fields.tenant } };
  return { key: 'sign_in.failed' };
}

export const authorizeRoutes = defineRoutes('server/routes/authorize.ts', (app) => {

  app.get('/authorize', (c) => authorize(c, new URL(c.req.url).searchParams));
  app.post('/authorize', async (c) => authorize(c, await formParams(c)));

  app.post('/authorize/login', async (c) => {
    const posted = await pageForm(c);
    if (posted instanceof Response) return posted;
    return withRequest(c, posted.query, async (request) => {
      const login = posted.form.get('login')?.trim() ?? '';
      try {
        const session = await startSession(c, await authenticateForRequest(c.get('deps'), request, login, posted.form.get('password') ?? '', loginContextOf(c)));
        const outcome = await continueAuthorization(c.get('deps'), request, session, { freshLogin: true, consented: false });
        return render(c, outcome, session.authTime);
      } catch (error) {
        if (!(error instanceof AppError) || error.status >= 500) throw error;
        return signInPage(c, request, { alert: signInAlert(error), loginHint: login }, error.status === 429 ? 429 : 400);
      }
    });
  });

  app.post('/authorize/consent', async (c) => {
    const posted = await pageForm(c);
    if (posted instanceof Response) return posted;
    return withRequest(c, posted.query, async (request) => {
      const session = await readSession(c);
      // Signed out (or in as someone of another realm) since the page was shown: start over.
      if (session?.realm !== realmOf(request.client)) return render(c, await continueAuthorization(c.get('deps'), request, undefined));
      if (posted.form.get('decision') !== 'allow') {
        return deliver(c, errorResponse(c.get('deps'), request, AccessDenied('the user denied the request')), request.uiLocales);
      }
      await rememberConsent(c.get('deps'), request.client.clientId, session.principal.userUuid, request.scope);
      const freshLogin = posted.loginAt !== undefined && posted.loginAt === session.authTime;
      return render(c, await continueAuthorization(c.get('deps'), request, session, { freshLogin, consented: true }), posted.loginAt);
    });
  });

  app.get(within('/connect', FEDERATION_CALLBACK_PATH), async (c) => {
    // The address the provider was given, whatever Host this request came in with (a proxy).
    const callbackUrl = new URL(`${FEDERATION_CALLBACK_PATH}${new URL(c.req.url).search}`, issuerOf(c.get('deps')));
    const pending = await takeFederationRequest(c.get('deps'), callbackUrl.searchParams.get('state') ?? undefined);
    if (!pending) return errorPage(c, 'federation_failed', undefined, 'unknown or expired state');
    return (await withRequest(c, new URLSearchParams(pending.resume), async (request) => {
      const refused = callbackUrl.searchParams.get('error');
      if (refused) return deliver(c, errorResponse(c.get('deps'), request, AccessDenied(`the identity provider answered ${refused}`)), request.uiLocales);
      try {
        const session = await startSession(c, await finishFederation(c.get('deps'), pending, callbackUrl));
        return render(c, await continueAuthorization(c.get('deps'), request, session, { freshLogin: true, consented: false }), session.authTime);
      } catch (error) {
        c.get('logger').warn({ err: error, idp: request.acr.idp }, 'external sign-in failed');
        return deliver(c, errorResponse(c.get('deps'), request, AccessDenied(`signing in with '${request.acr.idp}' failed`)), request.uiLocales);
      }
    }));
  });
});
