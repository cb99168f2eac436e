/**
 * The account page (docs/account.md): `/{org}/{app}/account` for an application's users and
 * `/management/account` for admin users. The page trusts the browser's sign-in session (the
 * cookie /connect/authorize sets, server/browser.ts); without one of its realm it sends the
 * browser through /connect/authorize with its built-in client (response_type `none`,
 * src/identity/clients/find.ts), which signs the user in and comes back. Every change is a form
 * posted with the page's CSRF token; adding a passkey is the one step that needs a script.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { Env } from '../env.js';
import { defineRoutes } from '../route-table.js';
import { formBody, openapiRoute } from '../openapi.js';
import { formParam, PAGE_FORM, readBody, type BodyRule } from '../request-input.js';
import { toAppError } from '../errors.js';
import { isCsrfTokenValid, pageContext, readSession, uiLocalesOf } from '../browser.js';
import { loginContextOf } from '../client-address.js';
import { sendPage } from '../pages/respond.js';
import { renderError } from '../pages/error.js';
import { renderAccount, renderRecoveryCodes, renderTotpEnrollment, type AccountFactor } from '../pages/account.js';
import { renderNotice, type Text } from '../pages/lifecycle.js';
import { AppError, Forbidden, IllegalArgument, UnsupportedMediaType } from '../../src/errors.js';
import { randomToken } from '../../src/identity/keys/secrets.js';
import { issuerOf } from '../../src/identity/issuer.js';
import { ACCOUNT_CLIENT, findClient } from '../../src/identity/clients/find.js';
import { listUserSessions, type SessionRow } from '../../src/identity/sessions/sessions.js';
import { endUserSessionAndLogout } from '../../src/identity/sessions/logout.js';
import { listConsents, revokeConsent } from '../../src/identity/authorize/consents.js';
import {
  deleteFactor,
  enrollFactor,
  findFactor,
  isFreshSignIn,
  listFactors,
  regenerateRecoveryCodes,
  totpEnrollmentOf,
  verifyFactor,
  type Factor,
  type FactorOwner,
} from '../../src/identity/factors/factors.js';
import { ADMIN_REALM } from '../../src/identity/sign-in/throttle.js';
import { changeAdminPassword } from '../../src/identity/sign-in/authenticate.js';
import { findAdminUser } from '../../src/management/admin-users.js';
import { changeUserPassword, requireUser } from '../../src/data/users.js';
import { passwordPolicyOf } from '../../src/lifecycle/password-reset.js';
import type { LoginContext } from '../../src/identity/sign-in/throttle.js';

type C = Context<Env>;

/** The signed-in user of the page, and what the page does for them that differs by realm. */
interface AccountUser {
  owner: FactorOwner;
  minPasswordLength: number;
  changePassword(current: string, next: string, context: LoginContext): Promise<void>;
}

/** Where a realm's account page is, whose users sign in there, and how they are found. */
interface AccountRealm {
  /** The page's path by uuids: the built-in client's redirect URI (the path the forms post below). */
  pathOf(c: C): string;
  realmOf(c: C): string;
  clientIdOf(c: C): string;
  realmNameOf(c: C): string;
  userOf(c: C, session: SessionRow): Promise<AccountUser>;
}

/** Notices a redirect back to the page may name (`notice`, or `state` after a sign-in): nothing else is shown. */
const NOTICES = ['password_changed', 'totp_added', 'passkey_added', 'factor_removed', 'session_ended', 'consent_revoked', 'signed_in_again'] as const;
type Notice = (typeof NOTICES)[number];

/** Through /connect/authorize and back (a fresh sign-in with `prompt=login`), bringing `state` back as the notice. */
function toSignIn(c: C, realm: AccountRealm, options: { prompt?: 'login'; state?: Notice } = {}): Response {
  const params = new URLSearchParams({
    client_id: realm.clientIdOf(c),
    redirect_uri: `${issuerOf(c.get('deps'))}${realm.pathOf(c)}`,
    response_type: 'none',
    scope: 'openid',
    ...(options.prompt && { prompt: options.prompt }),
    ...(options.state && { state: options.state }),
  });
  const locales = uiLocalesOf(c);
  if (locales) params.set('ui_locales', locales);
  c.header('Cache-Control', 'no-store');
  return c.redirect(`${issuerOf(c.get('deps'))}/connect/authorize?${params}`, 303);
}

/** Back to the page after a change (POST, then GET: a reload does not post again). */
function backToPage(c: C, realm: AccountRealm, notice: Notice): Response {
  c.header('Cache-Control', 'no-store');
  return c.redirect(`${realm.pathOf(c)}?notice=${notice}`, 303);
}

/** The session of this realm the browser holds, if any. */
async function accountSession(c: C, realm: AccountRealm): Promise<SessionRow | undefined> {
  const session = await readSession(c);
  return session?.realm === realm.realmOf(c) ? session : undefined;
}

function factorItem(factor: Factor): AccountFactor {
  return { id: factor.id, name: factor.name, created: factor.created, lastUsed: factor.lastUsed };
}

async function showPage(
  c: C,
  realm: AccountRealm,
  session: SessionRow,
  user: AccountUser,
  messages: { notice?: Text; alert?: Text } = {},
  status: 200 | 400 | 403 | 429 = 200,
) {
  const deps = c.get('deps');
  const factors = (await listFactors(deps.db, user.owner.uuid)).filter((factor) => factor.status === 'active');
  const sessions = await listUserSessions(deps, realm.realmOf(c), user.owner.uuid);
  const consents = await Promise.all(
    (await listConsents(deps, user.owner.uuid)).map(async (consent) => {
      const client = await findClient(deps, consent.clientId);
      return { clientId: consent.clientId, clientName: client?.clientName || consent.clientId, scopes: consent.scope.split(' '), modified: consent.modified };
    }),
  );
  const nonce = randomToken(16);
  const context = pageContext(c, uiLocalesOf(c));
  const page = renderAccount(context, {
    path: realm.pathOf(c),
    userName: user.owner.username,
    realmName: realm.realmNameOf(c),
    minPasswordLength: user.minPasswordLength,
    totp: factors.filter((factor) => factor.type === 'totp').map(factorItem),
    passkeys: factors.filter((factor) => factor.type === 'webauthn').map(factorItem),
    hasSecondFactor: factors.length > 0,
    sessions: sessions.map((row) => ({
      key: row.idHash,
      userAgent: row.userAgent,
      address: row.address,
      created: row.created,
      lastSeen: row.lastSeen,
      current: row.idHash === session.idHash,
    })),
    consents,
    signOutHref: `/connect/endsession?${new URLSearchParams({ client_id: realm.clientIdOf(c), ...(uiLocalesOf(c) && { ui_locales: uiLocalesOf(c) }) })}`,
    scriptNonce: nonce,
    ...messages,
  });
  // The passkey script talks to the page's own address (connect-src 'self').
  return sendPage(c, page, status, { scriptNonce: nonce, connectSelf: true });
}

function alertOf(error: AppError): Text {
  if (error.status === 429) return { key: 'sign_in.throttled' };
  return { key: 'lifecycle.error.other', values: { detail: error.message } };
}

/** A posted form of the page: its CSRF token checked, its session and user found. */
interface Posted {
  form: Record<string, unknown>;
  session: SessionRow;
  user: AccountUser;
}

const JSON_BODY: BodyRule = { accept: ['json'], refuse: () => UnsupportedMediaType('send the request as application/json') };

/**
 * Runs `work` for a posted form: a form without this browser's CSRF token is refused (403, nothing
 * changes), a browser without a session is sent to sign in; a refusal of the work shows the page
 * again with what went wrong.
 */
async function posted(c: C, realm: AccountRealm, work: (input: Posted) => Promise<Response>, rule: BodyRule = PAGE_FORM): Promise<Response> {
  const form = ((await readBody(c, rule)) ?? {}) as Record<string, unknown>;
  const json = rule === JSON_BODY;
  if (!isCsrfTokenValid(c, typeof form.csrf_token === 'string' ? form.csrf_token : undefined)) {
    if (json) throw Forbidden('this page has expired or did not come from this site; reload it', { fields: { csrf_token: 'not valid' } });
    return sendPage(c, renderError(pageContext(c, uiLocalesOf(c)), 'csrf'), 403);
  }
  const session = await accountSession(c, realm);
  if (!session) {
    if (json) throw Forbidden('you are signed out; reload the page and sign in', { fields: { session: 'none' } });
    return toSignIn(c, realm);
  }
  const user = await realm.userOf(c, session);
  try {
    return await work({ form, session, user });
  } catch (error) {
    const appError = toAppError(error);
    if (json || !appError || appError.status >= 500) throw error;
    if (appError.headers['Retry-After']) c.header('Retry-After', appError.headers['Retry-After']);
    return showPage(c, realm, session, user, { alert: alertOf(appError) }, appError.status === 429 ? 429 : 400);
  }
}

function text(form: Record<string, unknown>, name: string): string {
  const value = form[name];
  return typeof value === 'string' ? value : '';
}

/** Changes that let whoever holds an unlocked browser keep the account need a sign-in of the last minutes (factors.ts FRESH_SIGN_IN). */
function needsFreshSignIn(c: C, realm: AccountRealm, session: SessionRow): Response | undefined {
  if (isFreshSignIn(c.get('deps'), session.authTime)) return undefined;
  return toSignIn(c, realm, { prompt: 'login', state: 'signed_in_again' });
}

// ---- the handlers ------------------------------------------------------------------------------

/** The page itself, the password and adding an authenticator app. */
function pageHandlers(realm: AccountRealm) {
  return {
    async page(c: C) {
      const session = await accountSession(c, realm);
      if (!session) {
        // Back from the authorize endpoint with an error (the user cancelled): say so, do not loop.
        const error = c.req.query('error');
        if (error) {
          const notice = renderNotice(pageContext(c, uiLocalesOf(c)), {
            title: { key: 'account.title' },
            message: { key: 'account.sign_in_failed', values: { detail: c.req.query('error_description') ?? error } },
            alert: true,
            next: { href: realm.pathOf(c), text: { key: 'account.try_again' } },
          });
          return sendPage(c, notice, 400);
        }
        return toSignIn(c, realm);
      }
      const named = c.req.query('notice') ?? c.req.query('state');
      const notice = NOTICES.includes(named as Notice) ? { key: `account.notice.${named}` } : undefined;
      return showPage(c, realm, session, await realm.userOf(c, session), { notice });
    },

    password: (c: C) =>
      posted(c, realm, async ({ form, user }) => {
        const next = text(form, 'new_password');
        if (next !== text(form, 'new_password2'))
          throw IllegalArgument('the two new passwords are not the same', { fields: { new_password2: 'does not match' } });
        await user.changePassword(text(form, 'current_password'), next, loginContextOf(c));
        return backToPage(c, realm, 'password_changed');
      }),

    startTotp: (c: C) =>
      posted(c, realm, async ({ form, user }) => {
        const enrollment = await enrollFactor(c.get('deps'), user.owner, { type: 'totp', name: text(form, 'name') });
        const page = renderTotpEnrollment(pageContext(c, uiLocalesOf(c)), {
          path: realm.pathOf(c),
          factorId: enrollment.id,
          secret: enrollment.secret!,
          qrSvg: enrollment.qr_svg!,
        });
        return sendPage(c, page);
      }),

    verifyTotp: (c: C) =>
      posted(c, realm, async ({ form, user }) => {
        const id = text(form, 'factor');
        try {
          const activation = await verifyFactor(c.get('deps'), user.owner, id, { code: text(form, 'otp').trim() });
          if (!activation.recovery_codes) return backToPage(c, realm, 'totp_added');
          const page = renderRecoveryCodes(pageContext(c, uiLocalesOf(c)), {
            path: realm.pathOf(c),
            codes: activation.recovery_codes,
            notice: { key: 'account.notice.totp_added' },
          });
          return sendPage(c, page);
        } catch (error) {
          // A wrong code: the same QR code again (still pending), to try the next one.
          const pending = error instanceof AppError && error.status === 400 ? await findFactor(c.get('deps').db, user.owner.uuid, id) : undefined;
          if (pending?.status !== 'pending' || !pending.secret) throw error;
          const shown = await totpEnrollmentOf(user.owner, pending.secret);
          const again = renderTotpEnrollment(pageContext(c, uiLocalesOf(c)), {
            path: realm.pathOf(c),
            factorId: pending.id,
            secret: shown.secret,
            qrSvg: shown.qr_svg,
            alert: { key: 'account.totp.wrong_code' },
          });
          return sendPage(c, again, 400);
        }
      }),
  };
}

/** Removing what the page lists, and new recovery codes. */
function removalHandlers(realm: AccountRealm) {
  return {
    removeFactor: (c: C) =>
      posted(c, realm, async ({ form, session, user }) => {
        const factor = await findFactor(c.get('deps').db, user.owner.uuid, text(form, 'factor'));
        const stale = needsFreshSignIn(c, realm, session);
        if (stale) return stale;
        await deleteFactor(c.get('deps'), user.owner, factor.id);
        return backToPage(c, realm, 'factor_removed');
      }),

    recoveryCodes: (c: C) =>
      posted(c, realm, async ({ session, user }) => {
        const stale = needsFreshSignIn(c, realm, session);
        if (stale) return stale;
        const codes = await regenerateRecoveryCodes(c.get('deps'), user.owner);
        return sendPage(c, renderRecoveryCodes(pageContext(c, uiLocalesOf(c)), { path: realm.pathOf(c), codes }));
      }),

    endSession: (c: C) =>
      posted(c, realm, async ({ form, user }) => {
        const ended = await endUserSessionAndLogout(c.get('deps'), realm.realmOf(c), user.owner.uuid, text(form, 'session'));
        if (!ended) throw IllegalArgument('that session has ended already', { fields: { session: 'not found' } });
        // Ending this browser's own session signs it out: the page asks for a sign-in next.
        return backToPage(c, realm, 'session_ended');
      }),

    revokeConsent: (c: C) =>
      posted(c, realm, async ({ form, user }) => {
        const revoked = await revokeConsent(c.get('deps'), text(form, 'client_id'), user.owner.uuid);
        if (!revoked) throw IllegalArgument('that application has no access to revoke', { fields: { client_id: 'not found' } });
        return backToPage(c, realm, 'consent_revoked');
      }),
  };
}

/** Adding a passkey: the two JSON steps of the page's script around navigator.credentials.create. */
function passkeyHandlers(realm: AccountRealm) {
  return {
    startPasskey: (c: C) =>
      posted(
        c,
        realm,
        async ({ form, user }) => {
          const enrollment = await enrollFactor(c.get('deps'), user.owner, { type: 'webauthn', name: form.name });
          c.header('Cache-Control', 'no-store');
          return c.json({ id: enrollment.id, options: enrollment.options });
        },
        JSON_BODY,
      ),

    verifyPasskey: (c: C) =>
      posted(
        c,
        realm,
        async ({ form, user }) => {
          const activation = await verifyFactor(c.get('deps'), user.owner, text(form, 'id'), form.response);
          c.header('Cache-Control', 'no-store');
          // The first factor's recovery codes are shown on a page of their own, once.
          if (activation.recovery_codes) {
            return c.json({ next: `${realm.pathOf(c)}?notice=passkey_added`, recovery_codes: activation.recovery_codes });
          }
          return c.json({ next: `${realm.pathOf(c)}?notice=passkey_added` });
        },
        JSON_BODY,
      ),
  };
}

// ---- the routes --------------------------------------------------------------------------------

const tag = 'Account page';
const PAGE_RESPONSES = { 200: { description: 'An HTML page' }, 303: { description: 'To the sign-in, or back to the page after a change' } };
const JSON_RESPONSES = { 200: { description: 'JSON' }, 403: { description: 'No CSRF token, or signed out' } };
const Csrf = { csrf_token: formParam().openapi({ description: "the page's CSRF token" }) };

function registerAccountRoutes(app: Parameters<Parameters<typeof defineRoutes>[1]>[0], params: z.ZodObject, realm: AccountRealm) {
  const handlers = { ...pageHandlers(realm), ...removalHandlers(realm), ...passkeyHandlers(realm) };
  const form = (path: string, summary: string, fields: Record<string, ReturnType<typeof formParam>>, handler: (c: C) => Promise<Response>) => {
    // Documented with its form, read by the handler (posted), as the factors API's bodies are.
    const route = createRoute({
      method: 'post',
      path,
      tags: [tag],
      summary,
      request: { params, body: formBody(z.object({ ...Csrf, ...fields })) },
      responses: PAGE_RESPONSES,
    });
    app.openAPIRegistry.registerPath(route);
    app.openapi({ ...route, hide: true, request: { params } }, handler as never);
  };
  const json = (path: string, summary: string, fields: Record<string, z.ZodType>, handler: (c: C) => Promise<Response>) => {
    const body = { content: { 'application/json': { schema: z.object({ csrf_token: z.string(), ...fields }) } } };
    const route = createRoute({ method: 'post', path, tags: [tag], summary, request: { params, body }, responses: JSON_RESPONSES });
    app.openAPIRegistry.registerPath(route);
    app.openapi({ ...route, hide: true, request: { params } }, handler as never);
  };
  openapiRoute(
    app,
    createRoute({
      method: 'get',
      path: '/account',
      tags: [tag],
      summary: 'The account page (a sign-in first, through /connect/authorize)',
      request: {
        params,
        query: z.object({ notice: formParam(), state: formParam(), error: formParam(), error_description: formParam(), ui_locales: formParam() }),
      },
      responses: PAGE_RESPONSES,
    }),
    handlers.page as never,
  );
  form(
    '/account/password',
    'Change the password (the current one is required)',
    { current_password: formParam(), new_password: formParam(), new_password2: formParam() },
    handlers.password,
  );
  form('/account/totp', 'Start adding an authenticator app: its QR code and secret', { name: formParam() }, handlers.startTotp);
  form('/account/totp/verify', 'Confirm an authenticator app with the code it shows', { factor: formParam(), otp: formParam() }, handlers.verifyTotp);
  form('/account/factors/remove', 'Remove a second factor (a sign-in of the last 5 minutes)', { factor: formParam() }, handlers.removeFactor);
  form('/account/recovery-codes', 'New recovery codes, shown once (a sign-in of the last 5 minutes)', {}, handlers.recoveryCodes);
  form('/account/sessions/end', 'End one of the signed-in browsers', { session: formParam() }, handlers.endSession);
  form('/account/consents/revoke', "Revoke an application's access", { client_id: formParam() }, handlers.revokeConsent);
  json('/account/passkeys', 'Start adding a passkey: the options for navigator.credentials.create', { name: z.string().optional() }, handlers.startPasskey);
  json('/account/passkeys/verify', "Finish adding a passkey with the browser's answer", { id: z.string(), response: z.unknown() }, handlers.verifyPasskey);
}

/** /management/account: admin users. */
export const adminAccountRoutes = defineRoutes('server/routes/account.ts', (app) => {
  registerAccountRoutes(app, z.object({}), {
    pathOf: () => '/management/account',
    realmOf: () => ADMIN_REALM,
    clientIdOf: () => ACCOUNT_CLIENT,
    realmNameOf: () => 'idp',
    async userOf(c, session) {
      const deps = c.get('deps');
      const user = await findAdminUser(deps, session.principal.userUuid);
      const policy = await passwordPolicyOf(deps, { type: 'admin_user', uuid: user.uuid });
      return {
        owner: { realm: ADMIN_REALM, uuid: user.uuid, username: user.username, issuerName: 'idp' },
        minPasswordLength: policy.minLength,
        changePassword: (current, next, context) => changeAdminPassword(deps, user, current, next, context),
      };
    },
  });
});

/** /{orgId}/{appId}/account: the application's users (the area has found the application). */
export const appAccountRoutes = defineRoutes('server/routes/account.ts', (app) => {
  registerAccountRoutes(app, z.object({ orgId: z.string(), appId: z.string() }), {
    pathOf: (c) => `/${c.get('appScope').org.uuid}/${c.get('appScope').app.uuid}/account`,
    realmOf: (c) => c.get('appScope').app.uuid,
    clientIdOf: (c) => `${ACCOUNT_CLIENT}:${c.get('appScope').app.uuid}`,
    realmNameOf: (c) => c.get('appScope').app.name,
    async userOf(c, session) {
      const deps = c.get('deps');
      const { app: application } = c.get('appScope');
      const user = await requireUser(deps.db, application.uuid, session.principal.userUuid, undefined);
      const policy = await passwordPolicyOf(deps, { type: 'app_user', appUuid: application.uuid, uuid: user.uuid });
      return {
        owner: { realm: application.uuid, uuid: user.uuid, username: user.name ?? user.uuid, issuerName: application.name },
        minPasswordLength: policy.minLength,
        changePassword: (current, next, context) => changeUserPassword(deps, user, { oldPassword: current, newPassword: next }, false, context),
      };
    },
  });
});
