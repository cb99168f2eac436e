/**
 * The light part of the client that every command module may import at load time (so that
 * `idp <noun> --help` never loads undici or zod): constants, path building, token bookkeeping.
 */
import type { Profile } from './profiles.js';
import { ServerError } from './errors.js';

/** `idp serve`'s default address. */
export const DEFAULT_URL = 'http://127.0.0.1:8080';
/** The built-in public client of admin tools (docs/api.md#clients). */
export const ADMIN_CLI = 'admin-cli';

export interface TokenSet {
  access_token: string;
  refresh_token?: string;
  expires_in?: number;
}

/** What `idp login` and a refresh store: the new tokens, replacing the old ones. */
export function withTokens(profile: Profile, tokens: TokenSet, now = Date.now()): Profile {
  return {
    ...profile,
    access_token: tokens.access_token,
    refresh_token: tokens.refresh_token,
    expires_at: tokens.expires_in === undefined ? undefined : now + tokens.expires_in * 1000,
  };
}

/** Encodes each interpolated value as one path segment: p`/management/orgs/${org}/apps`. */
export function p(strings: TemplateStringsArray, ...values: string[]): string {
  return strings.reduce((path, part, i) => path + part + (i < values.length ? encodeURIComponent(values[i]) : ''), '');
}

/** True when the server answered "no such endpoint" rather than "no such thing". */
export function isMissingEndpoint(error: unknown): boolean {
  return (
    error instanceof ServerError && (error.status === 404 || error.status === 405) && (error.error === 'not_found' || error.error === 'method_not_allowed')
  );
}
