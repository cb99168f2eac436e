/**
 * The account-lifecycle endpoints (docs/api.md#account-lifecycle): activation and reactivation
 * of organizations, admin users and app users, and password reset by mail with a captcha. JSON
 * clients get an Action (`{action, status}`) in the envelope; a browser (Accept: text/html) gets
 * a page. Two route modules: the admin side joins the /management area, the app-user side the
 * application's area, both without an access check — the mailed link or the captcha is the proof.
 */
import { createRoute, z, type RouteConfig } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { Env } from '../env.js';
import { jsonOrForm, openapiRoute, responses, type InputHook, type router } from '../openapi.js';
import { bodyFormatOf, formParam, type BodyRule } from '../request-input.js';
import { defineRoutes } from '../route-table.js';
import { ok } from '../envelope.js';
import { toAppError, validationError } from '../errors.js';
import { isCsrfTokenValid, pageContext, uiLocalesOf } from '../browser.js';
import { loginContextOf } from '../client-address.js';
import { sendPage } from '../pages/respond.js';
import { CAPTCHA_WIDGETS, renderNewPassword, renderNotice, renderResetRequest, type Text } from '../pages/lifecycle.js';
import { randomToken } from '../../src/identity/keys/secrets.js';
import { AppError, Forbidden, IllegalArgument } from '../../src/errors.js';
import { email as emailSchema, password as passwordSchema } from '../../src/management/schemas.js';
import { findOrganization } from '../../src/management/organizations.js';
import { findAdminUser } from '../../src/management/admin-users.js';
import { requireUser } from '../../src/data/users.js';
import { activateAccount, parseConfirmEmail, reactivateAccount } from '../../src/lifecycle/activation.js';
import { checkResetLink, completePasswordReset, passwordPolicyOf, requestPasswordReset, type Realm } from '../../src/lifecycle/password-reset.js';
import { createCaptchaChallenge, type CaptchaChallenge } from '../../src/lifecycle/captcha.js';
import type { Subject, UserSubject } from '../../src/lifecycle/links.js';

type C = Context<Env>;
type Router = ReturnType<typeof router>;

/** What a lifecycle request did: the Action's status, and the page a browser sees instead. */
interface Outcome {
  status: string;
  token?: string;
  title: Text;
  message: Text;
  extra?: Record<string, unknown>;
}

function wantsHtml(c: C): boolean {
  return (c.req.header('accept') ?? '').includes('text/html');
}

/** The page of a failure: its text in the reader's language where there is one. */
function failureText(error: AppError): Text {
  const known = ['invalid_link', 'link_expired', 'link_already_used', 'captcha_failed'];
  if (known.includes(error.error)) return { key: `lifecycle.error.${error.error}` };
  if (error.status === 429) return { key: 'lifecycle.error.too_many_requests', values: { seconds: error.headers['Retry-After'] ?? '60' } };
  return { key: 'lifecycle.error.other', values: { detail: error.message } };
}

async function failurePage(c: C, error: AppError): Promise<Response> {
  const page = renderNotice(pageContext(c, uiLocalesOf(c)), { title: { key: 'lifecycle.failed_title' }, message: failureText(error), alert: true });
  return sendPage(c, page, error.status as 400);
}

/**
 * Runs the work; answers the Action in the envelope, or a page for a browser. A browser's failure
 * gets `retry`'s page (a form again) when it offers one, else a page saying what went wrong.
 */
async function answer(c: C, action: string, work: () => Promise<Outcome>, retry?: (error: AppError) => Promise<Response | undefined>): Promise<Response> {
  if (!wantsHtml(c)) {
    const outcome = await work();
    const entity = { action, status: outcome.status, ...(outcome.token !== undefined && { token: outcome.token }) };
    return ok(c, { action, entities: [entity], extra: outcome.extra });
  }
  let outcome: Outcome;
  try {
    outcome = await work();
  } catch (error) {
    const appError = toAppError(error);
    if (!appError) throw error;
    for (const [name, value] of Object.entries(appError.headers)) c.header(name, value);
    return (await retry?.(appError)) ?? failurePage(c, appError);
  }
  return sendPage(c, renderNotice(pageContext(c, uiLocalesOf(c)), { title: outcome.title, message: outcome.message }));
}

function parse<T extends z.ZodType>(schema: T, value: unknown): z.infer<T> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw validationError(parsed.error);
  return parsed.data;
}

const LinkToken = z.string({ error: 'token is required' }).min(1, 'token is required').max(512, 'token is not valid');
const NewPassword = z.object({ token: LinkToken, newpassword: passwordSchema });

/** The query of every lifecycle page: the language it is shown in. */
const PageQuery = z.object({ ui_locales: formParam() });
const LinkQuery = PageQuery.extend({ token: LinkToken });
const ActivateQuery = LinkQuery.extend({ confirm_email: formParam().openapi({ enum: ['true', 'false'] }) });
/** The reset request as JSON or as the page's form: its captcha answer may come in the widget's own field. */
const ResetRequestForm = z
  .looseObject({
    email: formParam(),
    captcha_challenge: formParam(),
    captcha_response: formParam(),
    ...Object.fromEntries(Object.values(CAPTCHA_WIDGETS).map((widget) => [widget.field, formParam()])),
  })
  .openapi('ResetPWRequest');
const NewPasswordForm = z
  .object({
    token: formParam(),
    newpassword: formParam(),
    newpassword2: formParam(),
    csrf_token: formParam().openapi({ description: "the page's CSRF token, for a form" }),
  })
  .openapi('NewPassword');

/** A body is required: JSON or a form, nothing else (415). */
const JSON_OR_FORM_BODY: BodyRule = { accept: ['json', 'form', 'multipart'] };

/**
 * A lifecycle route: JSON or a form in, the Action or a page out. `area` is the prefix of the
 * area it joins, whose parameters the route declares too.
 */
function lifecycleRoute<M extends 'get' | 'post', I extends NonNullable<RouteConfig['request']>>(
  area: string,
  method: M,
  path: string,
  summary: string,
  request: I,
) {
  const names = [...`${area}${path}`.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
  const params = z.object(Object.fromEntries(names.map((name) => [name, z.string()])));
  return createRoute({
    method,
    path,
    tags: ['Account lifecycle'],
    summary,
    request: { params, ...request },
    responses: responses('Action (an HTML page for Accept: text/html)'),
  });
}

/** Input that does not validate is a failure of the request like any other: the error, or for a browser its page. */
function refuseInput(action: string, retry?: (c: C, error: AppError, data: unknown) => Promise<Response | undefined>): InputHook {
  return (result, c) => {
    if (result.success) return undefined;
    return answer(c, action, () => Promise.reject(validationError(result.error!)), retry && ((error) => retry(c, error, result.data)));
  };
}

// ---- activation -------------------------------------------------------------------------------

function activationRoutes(app: Router, area: string, base: string, subjectOf: (c: C) => Promise<Subject>) {
  const activate = lifecycleRoute(area, 'get', `${base}/activate`, 'Activate an account with its mailed link', { query: ActivateQuery });
  openapiRoute(
    app,
    activate,
    (c) =>
      answer(c, 'activate', async () => {
        // Every parameter is checked before anything is spent, so bad input changes nothing.
        const { token, confirm_email } = c.req.valid('query');
        const confirm = parseConfirmEmail(confirm_email);
        const account = await activateAccount(c.get('deps'), await subjectOf(c), token, confirm);
        return {
          status: 'activated',
          title: { key: 'activate.title' },
          message: { key: confirm && account.email ? 'activate.confirmation_sent' : 'activate.done', values: { name: account.displayName } },
        };
      }),
    { hook: refuseInput('activate') },
  );
  const reactivate = lifecycleRoute(area, 'get', `${base}/reactivate`, 'Mail a new activation link', { query: PageQuery });
  openapiRoute(
    app,
    reactivate,
    (c) =>
      answer(c, 'reactivate', async () => {
        const account = await reactivateAccount(c.get('deps'), await subjectOf(c), loginContextOf(c));
        return { status: 'sent', title: { key: 'activate.title' }, message: { key: 'reactivate.sent', values: { name: account.displayName } } };
      }),
    { hook: refuseInput('reactivate') },
  );
}

// ---- password reset ---------------------------------------------------------------------------

interface ResetScope {
  /** The prefix of the area the routes join. */
  area: string;
  /** Where this realm's users live, inside its area: `/users`. */
  base: string;
  realmOf(c: C): Promise<Realm>;
  subjectOf(c: C): Promise<UserSubject>;
}

function captchaView(captcha: CaptchaChallenge) {
  return captcha.provider === 'altcha'
    ? { provider: 'altcha', challenge: JSON.parse(captcha.challenge) as unknown }
    : { provider: captcha.provider, site_key: captcha.siteKey ?? null, response_field: CAPTCHA_WIDGETS[captcha.provider].field };
}

async function resetRequestPage(c: C, alert?: Text, email?: string, status: 200 | 400 | 429 = 200): Promise<Response> {
  const captcha = await createCaptchaChallenge(c.get('deps'));
  const nonce = randomToken(16);
  const { page, widgetOrigins } = renderResetRequest(pageContext(c, uiLocalesOf(c)), { action: c.req.path, captcha, email, alert, scriptNonce: nonce });
  return sendPage(c, page, status, { scriptNonce: nonce, widgetOrigins });
}

const ResetPWMsg = z.object({
  email: emailSchema,
  captcha_challenge: z.string().max(4096).optional(),
  captcha_response: z.string({ error: 'captcha_response is required' }).min(1, 'captcha_response is required').max(8192, 'captcha_response is too long'),
});

/** Password reset by mail, for the users of one realm. */
function resetRoutes(app: Router, scope: ResetScope) {
  resetRequestRoutes(app, scope);
  newPasswordRoutes(app, scope);
}

/** Asking for a reset mail: the form with its captcha, and the request. */
function resetRequestRoutes(app: Router, scope: ResetScope) {
  openapiRoute(
    app,
    lifecycleRoute(scope.area, 'get', `${scope.base}/resetpw`, 'The password reset request: its form, and a captcha challenge', { query: PageQuery }),
    async (c) => {
      await scope.realmOf(c);
      if (wantsHtml(c)) return resetRequestPage(c);
      const captcha = await createCaptchaChallenge(c.get('deps'));
      return ok(c, {
        action: 'resetpw',
        entities: [{ action: 'resetpw', status: 'form', token: captcha.provider === 'altcha' ? captcha.challenge : '' }],
        extra: { data: { fields: ['email', 'captcha_challenge', 'captcha_response'], captcha: captchaView(captcha) } },
      });
    },
    { hook: refuseInput('resetpw') },
  );

  // The form again, with a fresh challenge and what went wrong.
  const askAgain = (c: C, error: AppError, email: unknown) =>
    resetRequestPage(c, failureText(error), typeof email === 'string' ? email : undefined, error.status === 429 ? 429 : 400);
  const request = lifecycleRoute(scope.area, 'post', `${scope.base}/resetpw`, 'Ask for a password reset link by mail (with the captcha answer)', {
    query: PageQuery,
    body: jsonOrForm(ResetRequestForm, 'ResetPWMsg'),
  });
  openapiRoute(
    app,
    request,
    async (c) => {
      const realm = await scope.realmOf(c);
      const fields = c.req.valid('json');
      // A provider's widget posts its own field; ResetPWMsg's captcha_response is the portable name.
      const widgetField = Object.values(CAPTCHA_WIDGETS).find((widget) => fields[widget.field])?.field;
      const input = { ...fields, captcha_response: fields.captcha_response || (widgetField && fields[widgetField]) || undefined };
      return answer(
        c,
        'resetpw',
        async () => {
          const msg = parse(ResetPWMsg, input);
          const context = loginContextOf(c);
          await requestPasswordReset(c.get('deps'), realm, msg.email.toLowerCase(), { response: msg.captcha_response, remoteIp: context.address }, context);
          return { status: 'sent', title: { key: 'resetpw.sent_title' }, message: { key: 'resetpw.sent' } };
        },
        (error) => askAgain(c, error, fields.email),
      );
    },
    { hook: refuseInput('resetpw', (c, error, data) => askAgain(c, error, (data as Record<string, unknown> | undefined)?.email)), body: JSON_OR_FORM_BODY },
  );
}

/** Following the mailed link: the new password form, and setting the new password. */
function newPasswordRoutes(app: Router, scope: ResetScope) {
  const link = lifecycleRoute(scope.area, 'get', `${scope.base}/{userId}/resetpw`, 'Open a mailed reset link: the new password form', { query: LinkQuery });
  openapiRoute(
    app,
    link,
    async (c) => {
      const { token } = c.req.valid('query');
      const open = async () => {
        const subject = await scope.subjectOf(c);
        const account = await checkResetLink(c.get('deps'), subject, token);
        return { token, account, policy: await passwordPolicyOf(c.get('deps'), subject) };
      };
      if (!wantsHtml(c)) {
        await open();
        return ok(c, { action: 'resetpw', entities: [{ action: 'resetpw', status: 'valid' }], extra: { data: { fields: ['token', 'newpassword'] } } });
      }
      let opened: Awaited<ReturnType<typeof open>>;
      try {
        opened = await open();
      } catch (error) {
        const appError = toAppError(error);
        if (!appError) throw error;
        return failurePage(c, appError);
      }
      return sendPage(
        c,
        renderNewPassword(pageContext(c, uiLocalesOf(c)), {
          action: c.req.path,
          token: opened.token,
          account: opened.account.displayName,
          minLength: opened.policy.minLength,
        }),
      );
    },
    { hook: refuseInput('resetpw') },
  );

  const change = lifecycleRoute(scope.area, 'post', `${scope.base}/{userId}/resetpw`, 'Set a new password with a mailed reset link', {
    query: PageQuery,
    body: jsonOrForm(NewPasswordForm, 'token, newpassword (and newpassword2, csrf_token from the page)'),
  });
  openapiRoute(
    app,
    change,
    async (c) => {
      const fields = c.req.valid('json');
      return answer(
        c,
        'resetpw',
        async () => {
          // A browser's form must carry this browser's CSRF token; a JSON body cannot be sent
          // cross-site without CORS, and the link's token is itself the proof of the mailbox.
          if (bodyFormatOf(c) !== 'json' && !isCsrfTokenValid(c, fields.csrf_token)) {
            throw Forbidden('this form has expired or did not come from this site; open the link again', { fields: { csrf_token: 'not valid' } });
          }
          const { token, newpassword } = parse(NewPassword, fields);
          if (fields.newpassword2 !== undefined && fields.newpassword2 !== newpassword) {
            throw IllegalArgument('the two passwords are not the same', { fields: { newpassword2: 'does not match' } });
          }
          await completePasswordReset(c.get('deps'), await scope.subjectOf(c), token, newpassword);
          return { status: 'password_changed', title: { key: 'newpw.done_title' }, message: { key: 'newpw.done' } };
        },
        // A password the rules refuse: the same form again, the link still unspent.
        async (error) => {
          if (error.error !== 'illegal_argument' || !fields.token) return undefined;
          const subject = await scope.subjectOf(c);
          const account = await checkResetLink(c.get('deps'), subject, fields.token).catch(() => undefined);
          if (!account) return undefined;
          const { minLength } = await passwordPolicyOf(c.get('deps'), subject);
          const alert: Text = error.fields.newpassword2 ? { key: 'newpw.mismatch' } : { key: 'lifecycle.error.other', values: { detail: error.message } };
          return sendPage(
            c,
            renderNewPassword(pageContext(c, uiLocalesOf(c)), { action: c.req.path, token: fields.token, account: account.displayName, minLength, alert }),
            400,
          );
        },
      );
    },
    { hook: refuseInput('resetpw'), body: JSON_OR_FORM_BODY },
  );
}

// ---- the routes -------------------------------------------------------------------------------

const adminUserOf = async (c: C): Promise<UserSubject> => ({
  type: 'admin_user',
  uuid: (await findAdminUser(c.get('deps'), c.req.param('userId') ?? '')).uuid,
});

/** /management/users/resetpw, /management/users/{userId}/…, /management/orgs/{orgId}/(re)activate. */
export const adminLifecycleRoutes = defineRoutes('server/routes/lifecycle.ts', (app) => {
  resetRoutes(app, { area: '/management', base: '/users', realmOf: async () => ({ type: 'admin' }), subjectOf: adminUserOf });
  activationRoutes(app, '/management', '/orgs/{orgId}', async (c) => ({
    type: 'organization',
    uuid: (await findOrganization(c.get('deps'), c.req.param('orgId') ?? '')).uuid,
  }));
  activationRoutes(app, '/management', '/users/{userId}', adminUserOf);
});

/** /{orgId}/{appId}/users/resetpw and /{orgId}/{appId}/users/{userId}/…: the area has found the application. */
export const appUserLifecycleRoutes = defineRoutes('server/routes/lifecycle.ts', (app) => {
  const appUserOf = async (c: C): Promise<UserSubject> => {
    const { app: application } = c.get('appScope');
    return {
      type: 'app_user',
      appUuid: application.uuid,
      uuid: (await requireUser(c.get('deps').db, application.uuid, c.req.param('userId') ?? '', undefined)).uuid,
    };
  };
  resetRoutes(app, {
    area: '/{orgId}/{appId}',
    base: '/users',
    realmOf: async (c) => ({ type: 'app', appUuid: c.get('appScope').app.uuid }),
    subjectOf: appUserOf,
  });
  activationRoutes(app, '/{orgId}/{appId}', '/users/{userId}', appUserOf);
});
