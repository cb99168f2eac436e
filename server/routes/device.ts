/**
 * The verification page of the device authorization grant (RFC 8628 3.3) at /device: the user
 * enters the code their device shows (or finds it filled in from `verification_uri_complete`, and
 * confirms it), then signs in and allows the device on the authorize endpoint's pages
 * (authorize.ts), which end on a page that sends them back to the device.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { Env } from '../env.js';
import { defineRoutes } from '../route-table.js';
import { formBody, openapiRoute, type ValidationResult } from '../openapi.js';
import { validationError } from '../errors.js';
import { formParam, PAGE_FORM } from '../request-input.js';
import { AppError } from '../../src/errors.js';
import { continueAuthorization } from '../../src/identity/authorize/authorize.js';
import { findDeviceAuthorizationByUserCode, formatUserCode, normalizeUserCode, openDeviceRequest } from '../../src/identity/authorize/device-authorizations.js';
import { isCsrfTokenValid, pageContext, readSession } from '../browser.js';
import { loginContextOf } from '../client-address.js';
import { renderDeviceCode, renderDeviceDone, type DeviceCodePage } from '../pages/device.js';
import { renderError } from '../pages/error.js';
import { sendPage } from '../pages/respond.js';
import { render } from './authorize.js';

type C = Context<Env>;

const CodeQuery = z.object({ user_code: formParam(), ui_locales: formParam() });
const CodeForm = z.object({ csrf_token: formParam(), user_code: formParam(), ui_locales: formParam() });
const PAGE_RESPONSES = { 200: { description: 'An HTML page' }, 400: { description: 'The page again, saying what is wrong' } };

function codePage(c: C, page: DeviceCodePage, status: 200 | 400 | 429 = 200) {
  return sendPage(c, renderDeviceCode(pageContext(c, page.uiLocales), page), status);
}

/** A code entered: its device authorization goes on to sign-in and consent; a wrong one is shown the form again. */
async function enterCode(c: C, form: z.infer<typeof CodeForm>): Promise<Response> {
  const deps = c.get('deps');
  const { ui_locales: uiLocales } = form;
  if (!isCsrfTokenValid(c, form.csrf_token)) return sendPage(c, renderError(pageContext(c, uiLocales), 'csrf'), 403);
  const typed = form.user_code ?? '';
  try {
    const row = await findDeviceAuthorizationByUserCode(deps, typed, loginContextOf(c));
    const request = await openDeviceRequest(deps, row.id, uiLocales);
    if (!request) return sendPage(c, renderDeviceDone(pageContext(c, uiLocales), 'expired'), 400);
    return render(c, await continueAuthorization(deps, request, await readSession(c)));
  } catch (error) {
    if (!(error instanceof AppError) || error.status >= 500) throw error;
    if (error.status !== 429) return codePage(c, { userCode: typed, alert: 'device.invalid_code', uiLocales }, 400);
    c.header('Retry-After', error.headers['Retry-After']);
    return codePage(c, { userCode: typed, alert: 'sign_in.throttled', uiLocales }, 429);
  }
}

export const deviceRoutes = defineRoutes('server/routes/device.ts', (app) => {
  openapiRoute(
    app,
    createRoute({
      method: 'get',
      path: '/',
      tags: ['OAuth 2.0 / OpenID Connect'],
      summary: 'Device verification page (RFC 8628 3.3): enter the user code; `user_code` fills it in',
      request: { query: CodeQuery },
      responses: PAGE_RESPONSES,
    }),
    (c) => {
      const { user_code: typed, ui_locales: uiLocales } = c.req.valid('query');
      const code = typed === undefined ? undefined : normalizeUserCode(typed);
      return codePage(c, { userCode: code ? formatUserCode(code) : typed, uiLocales });
    },
    { hook: (result: ValidationResult, c) => (result.success ? undefined : codePage(c, { alert: 'device.invalid_code' }, 400)) },
  );
  openapiRoute(
    app,
    createRoute({
      method: 'post',
      path: '/',
      tags: ['OAuth 2.0 / OpenID Connect'],
      summary: "The device verification page's form: the user code, then sign-in and consent",
      request: { body: formBody(CodeForm) },
      responses: { ...PAGE_RESPONSES, 429: { description: 'Too many wrong codes from this address (Retry-After)' } },
    }),
    (c) => enterCode(c, c.req.valid('form')),
    {
      hook: (result: ValidationResult, c) =>
        result.success ? undefined : sendPage(c, renderError(pageContext(c, undefined), 'csrf', validationError(result.error!).message), 403),
      body: PAGE_FORM,
    },
  );
});
