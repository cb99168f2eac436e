/**
 * The scopes this server knows (docs/api.md#scopes): identity scopes of OpenID Connect, the
 * refresh-token scope, and the one resource scope of the management and data API.
 */
import { InvalidScope } from '../errors.js';

export const SCOPES = ['openid', 'profile', 'email', 'address', 'phone', 'offline_access', 'api'] as const;
export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/** A space-separated scope parameter (RFC 6749 3.3); empty or absent means "not given". */
export function parseScope(text: string | undefined): string[] | undefined {
  const items = (text ?? '').split(' ').filter((item) => item !== '');
  return items.length === 0 ? undefined : [...new Set(items)];
}

/**
 * The scopes to grant: the requested ones when every one is known and allowed, or all allowed
 * ones when none were requested, as the token endpoint promises. Kept in the canonical order.
 */
export function resolveScope(requested: readonly string[] | undefined, allowed: readonly string[], what = 'this client'): Scope[] {
  const wanted = requested ?? allowed;
  for (const scope of wanted) {
    if (!isScope(scope)) throw InvalidScope(`unknown scope '${scope}'; known scopes are ${SCOPES.join(', ')}`);
    if (!allowed.includes(scope)) throw InvalidScope(`scope '${scope}' is not allowed for ${what}`);
  }
  const granted = SCOPES.filter((scope) => wanted.includes(scope));
  if (granted.length === 0) throw InvalidScope(`no scope is allowed for ${what}`);
  return granted;
}
