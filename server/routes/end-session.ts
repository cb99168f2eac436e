/**
 * /connect/endsession (OpenID Connect RP-Initiated Logout 1.0): GET (or POST from a client)
 * validates the request and asks the user to confirm on a page; the page's POST, with its CSRF
 * token, ends the session and returns to the client's registered post-logout address, if any.
 */
import { createRoute, z, type RouteConfig } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { defineRoutes } from '../route-table.js';
import type { Env } from '../env.js';
import { formBody, openapiRoute, type ValidationResult } from '../openapi.js';
import { validationError } from '../errors.js';
import { formParam, PAGE_FORM, paramsOf } from '../request-input.js';
import { AppError } from '../../src/errors.js';
import { parseLogoutRequest, type LogoutRequest } from '../../src/identity/authorize/end-session.js';
import { clearSession, isCsrfTokenValid, pageContext } from '../browser.js';
import { renderError } from '../pages/error.js';
import { renderLoggedOut, renderLogout } from '../pages/logout.js';
import { sendPage } from '../pages/respond.js';
import { randomToken } from '../../src/identity/keys/secrets.js';

type C = Context<Env>;

/**
 * A logout request (RP-Initiated Logout 1.0 2), each parameter at most once; the confirmation
 * page posts it back with its CSRF token and the user's decision.
 */
const LogoutParams = z
  .object({
    id_token_hint: formParam(),
    client_id: formParam(),
    post_logout_redirect_uri: formParam(),
    state: formParam(),
    ui_locales: formParam(),
    decision: formParam().openapi({ enum: ['logout', 'stay'] }),
    csrf_token: formParam(),
  })
  .openapi('LogoutRequest');

/** A request that did not validate is shown on the error page, as one the core refuses. */
function refuseLogout(result: ValidationResult, c: C) {
  if (result.success) return undefined;
  return sendPage(c, renderError(pageContext(c, undefined), 'bad_logout_request', validationError(result.error!).message), 400);
}

function logoutRoute<M extends 'get' | 'post', I extends NonNullable<RouteConfig['request']>>(method: M, summary: string, request: I) {
  const responses = { 200: { description: 'An HTML page' }, 303: { description: 'Back to the client' } };
  return createRoute({ method, path: '/endsession', tags: ['OAuth 2.0 / OpenID Connect'], summary, request, responses });
}

async function withLogoutRequest(c: C, query: URLSearchParams, next: (request: LogoutRequest) => Promise<Response>): Promise<Response> {
  const uiLocales = query.get('ui_locales') ?? undefined;
  let request: LogoutRequest;
  try {
    request = await parseLogoutRequest(c.get('deps'), query);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return sendPage(c, renderError(pageContext(c, uiLocales), 'bad_logout_request', error.message), 400);
  }
  return next(request);
}

function confirm(c: C, query: URLSearchParams) {
  return withLogoutRequest(c, query, async (request) => {
    const page = renderLogout(pageContext(c, query.get('ui_locales') ?? undefined), {
      clientName: request.client ? request.client.clientName || request.client.clientId : undefined,
      fields: request.fields,
    });
    return sendPage(c, page, 200, { formTargets: request.redirect ? [request.redirect] : [] });
  });
}

async function endSession(c: C, form: URLSearchParams): Promise<Response> {
  // A POST without the page's decision is a client's logout request: confirm it first.
  if (!form.has('decision')) return confirm(c, form);
  const uiLocales = form.get('ui_locales') ?? undefined;
  if (!isCsrfTokenValid(c, form.get('csrf_token') ?? undefined)) return sendPage(c, renderError(pageContext(c, uiLocales), 'csrf'), 403);
  return withLogoutRequest(c, form, async (request) => {
    const signOut = form.get('decision') === 'logout';
    const frames = signOut ? await clearSession(c) : [];
    if (frames.length > 0) {
      // Front-Channel Logout 1.0 2: the clients' logout pages load here before the browser moves on.
      const scriptNonce = randomToken(16);
      const page = renderLoggedOut(pageContext(c, uiLocales), true, { frames, continueTo: request.redirect, scriptNonce });
      return sendPage(c, page, 200, { frames: frames.map((frame) => frame.url), scriptNonce });
    }
    if (request.redirect && signOut) {
      c.header('Cache-Control', 'no-store');
      return c.redirect(request.redirect, 303);
    }
    return sendPage(c, renderLoggedOut(pageContext(c, uiLocales), signOut));
  });
}

export const endSessionRoutes = defineRoutes('server/routes/end-session.ts', (app) => {
  openapiRoute(app, logoutRoute('get', 'RP-Initiated Logout: confirm on a page', { query: LogoutParams }), (c) => confirm(c, paramsOf(c.req.valid('query'))), {
    hook: refuseLogout,
  });
  openapiRoute(
    app,
    logoutRoute('post', "RP-Initiated Logout as a form, or the confirmation page's decision", { body: formBody(LogoutParams) }),
    (c) => endSession(c, paramsOf(c.req.valid('form'))),
    {
      hook: refuseLogout,
      body: PAGE_FORM,
    },
  );
});
