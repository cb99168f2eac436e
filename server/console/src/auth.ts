/**
 * Signing in to the console: the authorization code flow with PKCE (RFC 7636, S256) of the
 * built-in public client `idp-console`, through this server's /connect/authorize (docs/console.md).
 * Tokens live in this module's memory only, never in storage: a reload signs in again, silently
 * while the browser's sign-in session lasts. Only the PKCE verifier and state wait in
 * sessionStorage across the redirect, and are removed when the code comes back.
 */
import type { components, paths } from '~openapi';
import { locale, t } from './i18n';

const CLIENT_ID = 'idp-console';
const SCOPE = 'openid api offline_access';
const BASE = `${location.origin}/console`;
const REDIRECT_URI = `${BASE}/callback`;
export const SIGNED_OUT_URI = `${BASE}/signed-out`;
const PENDING = 'idp-console:pending';
// Refresh a little before the access token runs out, not after a request is refused.
const EARLY_MS = 30_000;

const AUTHORIZE: keyof paths = '/connect/authorize';
const TOKEN: keyof paths = '/connect/token';
const REVOCATION: keyof paths = '/connect/revocation';
const END_SESSION: keyof paths = '/connect/endsession';
const USERINFO: keyof paths = '/connect/userinfo';

type TokenRequest = components['schemas']['TokenRequest'];
type RevocationRequest = components['schemas']['TokenHintRequest'];

interface TokenResponse {
  access_token: string;
  expires_in: number;
  refresh_token?: string;
}

interface Tokens {
  access: string;
  refresh?: string;
  expiresAt: number;
}

interface Pending {
  state: string;
  verifier: string;
  returnTo: string;
}

/** Who signed in: the userinfo claims the console shows and looks the admin up by. */
export interface SignedInUser {
  sub: string;
  preferred_username?: string;
  name?: string;
}

let tokens: Tokens | undefined;
let refreshing: Promise<boolean> | undefined;

function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

function randomText(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(32)));
}

/** Sends the browser to the sign-in; it comes back to /console/callback and then to `returnTo`. */
export async function signIn(returnTo: string): Promise<void> {
  const pending: Pending = { state: randomText(), verifier: randomText(), returnTo };
  sessionStorage.setItem(PENDING, JSON.stringify(pending));
  const challenge = base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(pending.verifier))));
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: CLIENT_ID,
    redirect_uri: REDIRECT_URI,
    scope: SCOPE,
    state: pending.state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    // The sign-in page speaks the console's language.
    ui_locales: locale(),
  });
  location.assign(`${AUTHORIZE}?${query}`);
}

async function tokenRequest(form: TokenRequest): Promise<TokenResponse> {
  const response = await fetch(TOKEN, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form as Record<string, string>),
  });
  const body = (await response.json()) as TokenResponse & { error?: string; error_description?: string };
  if (!response.ok) throw new Error(body.error_description ?? body.error ?? t('errors.token_endpoint', { status: response.status }));
  return body;
}

function keep(response: TokenResponse): void {
  tokens = { access: response.access_token, refresh: response.refresh_token ?? tokens?.refresh, expiresAt: Date.now() + response.expires_in * 1000 };
}

/** The redirect back from /connect/authorize: checks state, trades the code. Returns where to go. */
export async function completeSignIn(url: URL): Promise<string> {
  const pending = JSON.parse(sessionStorage.getItem(PENDING) ?? 'null') as Pending | null;
  sessionStorage.removeItem(PENDING);
  if (pending === null || url.searchParams.get('state') !== pending.state) throw new Error(t('errors.not_started_here'));
  const error = url.searchParams.get('error');
  if (error !== null) throw new Error(url.searchParams.get('error_description') ?? error);
  const code = url.searchParams.get('code');
  if (code === null) throw new Error(t('errors.no_code'));
  keep(await tokenRequest({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, client_id: CLIENT_ID, code_verifier: pending.verifier }));
  return pending.returnTo;
}

export function isSignedIn(): boolean {
  return tokens !== undefined;
}

/** A new access token from the refresh token (which rotates); false when there is none or it was refused. */
export function refreshTokens(): Promise<boolean> {
  refreshing ??= (async () => {
    const refresh = tokens?.refresh;
    if (refresh === undefined) return false;
    try {
      keep(await tokenRequest({ grant_type: 'refresh_token', refresh_token: refresh, client_id: CLIENT_ID }));
      return true;
    } catch {
      tokens = undefined;
      return false;
    }
  })().finally(() => (refreshing = undefined));
  return refreshing;
}

/** The access token to send, refreshed first when it is about to run out. */
export async function accessToken(): Promise<string> {
  if (tokens !== undefined && tokens.expiresAt - EARLY_MS < Date.now()) await refreshTokens();
  if (tokens === undefined) {
    await signIn(location.pathname + location.search);
    throw new Error(t('errors.signing_in_again'));
  }
  return tokens.access;
}

export async function findSignedInUser(): Promise<SignedInUser> {
  const response = await fetch(USERINFO, { headers: { authorization: `Bearer ${await accessToken()}` } });
  if (!response.ok) throw new Error(t('errors.userinfo', { status: response.status }));
  return (await response.json()) as SignedInUser;
}

/**
 * Revokes the refresh token (RFC 7009), forgets the tokens, and ends the browser's sign-in
 * session at the end-session endpoint, which comes back to /console/signed-out.
 */
export async function signOut(): Promise<void> {
  const refresh = tokens?.refresh;
  tokens = undefined;
  if (refresh !== undefined) {
    const form: RevocationRequest = { token: refresh, token_type_hint: 'refresh_token', client_id: CLIENT_ID };
    await fetch(REVOCATION, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form as Record<string, string>),
    }).catch(() => undefined);
  }
  location.assign(`${END_SESSION}?${new URLSearchParams({ client_id: CLIENT_ID, post_logout_redirect_uri: SIGNED_OUT_URI })}`);
}
