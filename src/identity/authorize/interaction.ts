/**
 * The authorize request carried through the sign-in, second-factor and consent forms, sealed with
 * a MAC so the browser cannot alter it: the request's parameters, after a sign-in in this same
 * flow the session time it produced (so `prompt=login` and `max_age` count that sign-in as
 * fresh), and between a sign-in's password and its one-time code the sign-in waiting for the
 * code. That waiting sign-in is no session: /connect/authorize never sees it, and it opens only
 * for the browser it was shown to and only for a few minutes (docs/api.md#second-factors).
 */
import type { Deps } from '../../deps.js';
import { safeEqual, sign, unsign } from '../keys/secrets.js';
import type { NewSession } from '../sessions/sessions.js';

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

export interface SealedInteraction {
  /** The authorize request's parameters (a query string). */
  query: string;
  /** The `authTime` of the session a sign-in in this flow started. */
  loginAt?: number;
  pending?: PendingSignIn;
  /** The device authorization being allowed at /device (RFC 8628), instead of an authorize request. */
  device?: string;
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
  const pending = interaction.pending;
  if (!pending || !safeEqual(pending.browser, csrfToken)) return undefined;
  return deps.now() - pending.at > SECOND_STEP_TTL_MS ? 'expired' : pending;
}
