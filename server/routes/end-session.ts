/**
 * /connect/endsession (OpenID Connect RP-Initiated Logout 1.0): GET (or POST from a client)
 * validates the request and asks the user to confirm on a page; the page's POST, with its CSRF
 * token, ends the session and returns to the client's registered post-logout address, if any.
 */
import type { Context } from 'hono';
import { defineRoutes } from '../route-table.js';
import type { Env } from '../env.js';
import { AppError, UnsupportedMediaType } from '../../src/errors.js';
import { parseLogoutRequest, type LogoutRequest } from '../../src/identity/authorize/end-session.js';
import { clearSession, isCsrfTokenValid, pageContext } from '../browser.js';
import { renderError } from '../pages/error.js';
import { renderLoggedOut, renderLogout } from '../pages/logout.js';
import { sendPage } from '../pages/respond.js';

type C = Context<Env>;

async function params(c: C): Promise<URLSearchParams> {
  if (c.req.method === 'GET') return new URL(c.req.url).searchParams;
  if (!/^application\/x-www-form-urlencoded/i.test(c.req.header('content-type') ?? '')) {
    throw UnsupportedMediaType('send the form as application/x-www-form-urlencoded');
  }
  return new URLSearchParams(await c.req.text());
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

export const endSessionRoutes = defineRoutes('server/routes/end-session.ts', (app) => {

  app.get('/endsession', async (c) => confirm(c, await params(c)));

  app.post('/endsession', async (c) => {
    const form = await params(c);
    // A POST without the page's decision is a client's logout request: confirm it first.
    if (!form.has('decision')) return confirm(c, form);
    const uiLocales = form.get('ui_locales') ?? undefined;
    if (!isCsrfTokenValid(c, form.get('csrf_token') ?? undefined)) return sendPage(c, renderError(pageContext(c, uiLocales), 'csrf'), 403);
    return withLogoutRequest(c, form, async (request) => {
      const signOut = form.get('decision') === 'logout';
      if (signOut) await clearSession(c);
      if (request.redirect && signOut) {
        c.header('Cache-Control', 'no-store');
        return c.redirect(request.redirect, 303);
      }
      return sendPage(c, renderLoggedOut(pageContext(c, uiLocales), signOut));
    });
  });
});
