/**
 * The authorize request carried through the sign-in, second-factor and consent forms, sealed with
 * a MAC so the browser cannot alter it: the request's parameters, after a sign-in in this same
 * flow the session time it produced (so `prompt=login` and `max_age` count that sign-in as
 * fresh), and between a sign-in's password and its one-time code the sign-in waiting for the
 * code. That waiting sign-in is no session: /connect/authorize never sees it, and it opens only
 * for the browser it was shown to and only for a few minutes (docs/api.md#second-factors). A page
 * that offers a passkey seals the challenge of its options the same way (docs/api.md#passkeys).
 */
import type { Deps } from '../../deps.js';
import { safeEqual, sign, unsign } from '../keys/secrets.js';
import type { NewSession } from '../sessions/sessions.js';
import { PASSKEY_CHALLENGE_TTL_MS } from '../factors/passkeys.js';

/** How long the code form of a sign-in may wait after its password (ms). */
const SECOND_STEP_TTL_MS = 5 * 60 * 1000;

/** A sign-in whose password (or earlier session) is proven and whose second factor is not yet. */
export interface PendingSignIn {
  session: NewSession;
  /** When the first step was done (ms). */
  at: number;
  /** The CSRF token of the browser it was shown to: the sealed form works in that browser only. */
  browser: string;
}

/** The challenge of the passkey options a page showed. */
export interface PasskeyChallenge {
  challenge: string;
  /** When the page showed it (ms). */
  at: number;
  /** The CSRF token of the browser it was shown to. */
  browser: string;
}

export interface SealedInteraction {
  /** The authorize request's parameters (a query string). */
  query: string;
  /** The `authTime` of the session a sign-in in this flow started. */
  loginAt?: number;
  pending?: PendingSignIn;
  /** The factor the enrollment step of `pending` started (docs/account.md#second-factor-required). */
  factor?: string;
  /** The device authorization being allowed at /device (RFC 8628), instead of an authorize request. */
  device?: string;
  passkey?: PasskeyChallenge;
}

export function sealInteraction(deps: Deps, interaction: SealedInteraction): string {
  return sign(deps, 'interaction', Buffer.from(JSON.stringify(interaction)).toString('base64url'));
}

export function openInteraction(deps: Deps, sealed: string | undefined): SealedInteraction | undefined {
  const value = sealed ? unsign(deps, 'interaction', sealed) : undefined;
  if (value === undefined) return undefined;
  const parsed = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as SealedInteraction;
  return typeof parsed.query === 'string' ? parsed : undefined;
}

/**
 * The sign-in waiting for its second factor in a sealed form posted with `csrfToken`: `expired`
 * after SECOND_STEP_TTL_MS, undefined when there is none or it was shown to another browser.
 */
export function openPendingSignIn(deps: Deps, interaction: SealedInteraction, csrfToken: string): PendingSignIn | 'expired' | undefined {
  return openBound(deps, interaction.pending, csrfToken, SECOND_STEP_TTL_MS);
}

/** The passkey challenge of a sealed form posted with `csrfToken`, as openPendingSignIn opens a sign-in. */
export function openPasskeyChallenge(deps: Deps, interaction: SealedInteraction, csrfToken: string): PasskeyChallenge | 'expired' | undefined {
  return openBound(deps, interaction.passkey, csrfToken, PASSKEY_CHALLENGE_TTL_MS);
}

function openBound<T extends { at: number; browser: string }>(deps: Deps, value: T | undefined, csrfToken: string, ttl: number): T | 'expired' | undefined {
  if (!value || !safeEqual(value.browser, csrfToken)) return undefined;
  return deps.now() - value.at > ttl ? 'expired' : value;
}
