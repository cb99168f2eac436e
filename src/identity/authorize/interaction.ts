/**
 * The authorize request carried through the sign-in and consent forms, sealed with a MAC so the
 * browser cannot alter it: the request's parameters, and after a sign-in in this same flow, the
 * session time it produced (so `prompt=login` and `max_age` count that sign-in as fresh).
 */
import type { Deps } from '../../deps.js';
import { sign, unsign } from '../keys/secrets.js';

export interface SealedInteraction {
  /** The authorize request's parameters (a query string). */
  query: string;
  /** The `authTime` of the session a sign-in in this flow started. */
  loginAt?: number;
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
