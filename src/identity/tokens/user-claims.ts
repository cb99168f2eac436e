/**
 * The OpenID Connect claims of a user (OIDC Core 5.1, 5.4, docs/api.md#claims): `sub` always, the
 * standard claims of the `profile`, `email`, `address` and `phone` scopes that the user's record
 * holds, and single claims the `claims` request parameter names (5.5). Served by /connect/userinfo
 * and put in ID tokens.
 */
import { and, eq } from 'drizzle-orm';

import type { Deps } from '../../deps.js';
import type { TokenPrincipal } from './access-tokens.js';
import { first } from '../../db/run.js';
import { schemaOf } from '../../db/open.js';

export type UserPrincipal = Extract<TokenPrincipal, { kind: 'admin' | 'sysadmin' | 'app-user' }>;

export function isUserPrincipal(principal: TokenPrincipal): principal is UserPrincipal {
  return principal.kind === 'admin' || principal.kind === 'sysadmin' || principal.kind === 'app-user';
}

/** OIDC Core 5.4: the claims each scope asks for. */
export const CLAIMS_BY_SCOPE: Readonly<Record<string, readonly string[]>> = {
  profile: [
    'name',
    'family_name',
    'given_name',
    'middle_name',
    'nickname',
    'preferred_username',
    'picture',
    'website',
    'gender',
    'birthdate',
    'zoneinfo',
    'locale',
    'updated_at',
  ],
  email: ['email', 'email_verified'],
  address: ['address'],
  phone: ['phone_number', 'phone_number_verified'],
};

/** Every claim about the user this server can give. */
export const USER_CLAIMS: readonly string[] = ['sub', ...Object.values(CLAIMS_BY_SCOPE).flat()];

/**
 * The scope claims an ID token carries even when an access token is issued with it (when one is
 * not, it carries all of them, OIDC Core 5.4): those it always carried, which relying parties and
 * our own CLI read from it. The others are the UserInfo endpoint's, or the `claims` parameter's.
 */
export const ID_TOKEN_SCOPE_CLAIMS: readonly string[] = ['name', 'preferred_username', 'picture', 'updated_at', 'email', 'email_verified'];

/** Text properties of an app user's record that are standard claims under the same name. */
const TEXT_CLAIMS = [...CLAIMS_BY_SCOPE.profile!.filter((claim) => claim !== 'preferred_username' && claim !== 'updated_at'), 'phone_number'];
/** OIDC Core 5.1.1: the members of `address`. */
const ADDRESS_MEMBERS = ['formatted', 'street_address', 'locality', 'region', 'postal_code', 'country'];

function textOf(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function addressOf(value: unknown): Record<string, string> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const members = Object.entries(value).filter(([key, member]) => ADDRESS_MEMBERS.includes(key) && textOf(member) !== undefined);
  return members.length > 0 ? Object.fromEntries(members) : undefined;
}

/** The address the user proved theirs by a mailed link, if it is still their email (lifecycle/links.ts). */
async function isEmailVerified(deps: Deps, userUuid: string, email: string): Promise<boolean> {
  const { verifiedEmails } = schemaOf(deps.db);
  const row = await first(deps.db.select().from(verifiedEmails).where(eq(verifiedEmails.subjectUuid, userUuid)));
  return row?.email === email.toLowerCase();
}

/** All the claims the user's record holds, by name, `sub` aside. */
async function findUserClaims(deps: Deps, principal: UserPrincipal): Promise<Record<string, unknown> | undefined> {
  const { adminUsers, entities } = schemaOf(deps.db);
  if (principal.kind === 'app-user') {
    const row = await first(
      deps.db
        .select()
        .from(entities)
        .where(and(eq(entities.uuid, principal.userUuid), eq(entities.appUuid, principal.appUuid))),
    );
    if (!row) return undefined;
    const properties = row.properties;
    const email = textOf(properties.email);
    const phoneVerified = properties.phone_number_verified;
    return {
      ...Object.fromEntries(TEXT_CLAIMS.flatMap((claim) => (textOf(properties[claim]) === undefined ? [] : [[claim, properties[claim]]]))),
      preferred_username: textOf(properties.username) ?? row.name ?? '',
      updated_at: Math.floor(row.modified / 1000),
      ...(email !== undefined && { email, email_verified: await isEmailVerified(deps, row.uuid, email) }),
      ...(typeof phoneVerified === 'boolean' && textOf(properties.phone_number) !== undefined && { phone_number_verified: phoneVerified }),
      ...(addressOf(properties.address) && { address: addressOf(properties.address) }),
    };
  }
  const row = await first(deps.db.select().from(adminUsers).where(eq(adminUsers.uuid, principal.userUuid)));
  if (!row) return undefined;
  return {
    ...(row.name && { name: row.name }),
    preferred_username: row.username,
    updated_at: Math.floor(row.modified / 1000),
    ...(row.email && { email: row.email, email_verified: await isEmailVerified(deps, row.uuid, row.email) }),
  };
}

/**
 * The claims of `principal` that the granted `scope` asks for (only those of `scopeClaims`, when
 * given) and those named in `requested`, each when the user's record has it; `sub` is `subject`,
 * the user as the client sees them (subjects.ts).
 */
export async function userClaims(
  deps: Deps,
  principal: UserPrincipal,
  scope: readonly string[],
  options: { subject: string; requested?: readonly string[]; scopeClaims?: readonly string[] },
): Promise<Record<string, unknown>> {
  const wanted = new Set([
    ...scope.flatMap((item) => CLAIMS_BY_SCOPE[item] ?? []).filter((claim) => options.scopeClaims?.includes(claim) ?? true),
    ...(options.requested ?? []),
  ]);
  const all = await findUserClaims(deps, principal);
  return { sub: options.subject, ...Object.fromEntries(Object.entries(all ?? {}).filter(([claim]) => wanted.has(claim))) };
}
