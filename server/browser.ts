/**
 * The browser's state at this server: the signed session cookie (HttpOnly, SameSite=Lax, Secure
 * when the issuer is https or a trusted proxy says the browser came over https) that points at a session row, and the CSRF token of page forms — a
 * random cookie, and in each form its MAC, compared in constant time (signed double submit).
 */
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { Env } from './env.js';
import { clientOf } from './client-address.js';
import { issuerOf } from '../src/identity/issuer.js';
import { macOf, randomToken, safeEqual, sign, unsign } from '../src/identity/keys/secrets.js';
import { createSession, findSession, type NewSession, type SessionRow } from '../src/identity/sessions/sessions.js';
import { endSessionAndLogout, type FrontChannelLogout } from '../src/identity/sessions/logout.js';
import { pickLocale, translator } from './pages/i18n.js';
import type { PageContext } from './pages/layout.js';

const SESSION_COOKIE = 'idp_session';
const CSRF_COOKIE = 'idp_csrf';

/** A forwarding header can only add `Secure`: an https issuer keeps it whatever a proxy says. */
function cookieOptions(c: Context<Env>) {
  const secure = issuerOf(c.get('deps')).startsWith('https:') || clientOf(c).proto === 'https';
  return { path: '/', httpOnly: true, sameSite: 'Lax', secure } as const;
}

function sessionIdOf(c: Context<Env>): string | undefined {
  const cookie = getCookie(c, SESSION_COOKIE);
  return cookie ? unsign(c.get('deps'), 'session', cookie) : undefined;
}

/** The browser's live session, if it has one. */
export async function readSession(c: Context<Env>): Promise<SessionRow | undefined> {
  const id = sessionIdOf(c);
  return id ? findSession(c.get('deps'), id) : undefined;
}

/** Signs the browser in; any earlier session of this browser ends (no session fixation). */
export async function startSession(c: Context<Env>, input: NewSession): Promise<SessionRow> {
  const device = { userAgent: c.req.header('user-agent'), address: clientOf(c).address };
  const { id, session } = await createSession(c.get('deps'), input, sessionIdOf(c), device);
  setCookie(c, SESSION_COOKIE, sign(c.get('deps'), 'session', id), { ...cookieOptions(c), maxAge: c.get('deps').config.sessionTtl });
  return session;
}

/**
 * Signs the browser out. The clients its session signed in to are told (docs/api.md#logout);
 * returns the front-channel logout pages for the page the browser sees next.
 */
export async function clearSession(c: Context<Env>): Promise<FrontChannelLogout[]> {
  const id = sessionIdOf(c);
  const front = id ? await endSessionAndLogout(c.get('deps'), id) : [];
  deleteCookie(c, SESSION_COOKIE, cookieOptions(c));
  return front;
}

/** The token to put in this browser's forms (sets the CSRF cookie on first use). */
function csrfToken(c: Context<Env>): string {
  let secret = getCookie(c, CSRF_COOKIE);
  if (!secret || !/^[\w-]{43}$/.test(secret)) {
    secret = randomToken();
    setCookie(c, CSRF_COOKIE, secret, cookieOptions(c));
  }
  return macOf(c.get('deps'), 'csrf', secret);
}

export function isCsrfTokenValid(c: Context<Env>, token: string | undefined): boolean {
  const secret = getCookie(c, CSRF_COOKIE);
  return Boolean(secret && token && safeEqual(token, macOf(c.get('deps'), 'csrf', secret)));
}

/** The languages a page outside an authorize request is shown in: `ui_locales` of its query, else the browser's Accept-Language. */
export function uiLocalesOf(c: Context<Env>): string | undefined {
  return (
    c.req.query('ui_locales') ??
    c.req
      .header('accept-language')
      ?.split(',')
      .map((tag) => tag.split(';')[0].trim())
      .join(' ')
  );
}

/** Language, texts and CSRF token of a page. */
export function pageContext(c: Context<Env>, uiLocales: string | undefined): PageContext {
  const locale = pickLocale(uiLocales);
  return { locale, t: translator(locale), csrf: csrfToken(c) };
}
