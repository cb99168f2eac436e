/**
 * The OpenID Connect claims of a user (OIDC Core 5.1, 5.4): `sub` always, `profile` and `email`
 * claims when those scopes were granted. Served by /connect/userinfo and put in ID tokens.
 */
import { and, eq } from 'drizzle-orm';
import { adminUsers, entities } from '../../db/schema.js';
import type { Deps } from '../../deps.js';
import type { TokenPrincipal } from './access-tokens.js';

export type UserPrincipal = Extract<TokenPrincipal, { kind: 'admin' | 'sysadmin' | 'app-user' }>;

export function isUserPrincipal(principal: TokenPrincipal): principal is UserPrincipal {
  return principal.kind === 'admin' || principal.kind === 'sysadmin' || principal.kind === 'app-user';
}

interface Profile {
  username: string;
  name: string | undefined;
  email: string | undefined;
  picture: string | undefined;
  modified: number;
}

async function findProfile(deps: Deps, principal: UserPrincipal): Promise<Profile | undefined> {
  if (principal.kind === 'app-user') {
    const row = await deps.db
      .select()
      .from(entities)
      .where(and(eq(entities.uuid, principal.userUuid), eq(entities.appUuid, principal.appUuid)))
      .get();
    if (!row) return undefined;
    const text = (key: string) => (typeof row.properties[key] === 'string' ? (row.properties[key] as string) : undefined);
    return { username: text('username') ?? row.name ?? '', name: text('name'), email: text('email'), picture: text('picture'), modified: row.modified };
  }
  const row = await deps.db.select().from(adminUsers).where(eq(adminUsers.uuid, principal.userUuid)).get();
  if (!row) return undefined;
  return { username: row.username, name: row.name || undefined, email: row.email ?? undefined, picture: undefined, modified: row.modified };
}

export async function userClaims(deps: Deps, principal: UserPrincipal, scope: readonly string[]): Promise<Record<string, unknown>> {
  const claims: Record<string, unknown> = { sub: principal.userUuid };
  const profile = await findProfile(deps, principal);
  if (!profile) return claims;
  if (scope.includes('profile')) {
    Object.assign(claims, {
      preferred_username: profile.username,
      ...(profile.name && { name: profile.name }),
      ...(profile.picture && { picture: profile.picture }),
      updated_at: Math.floor(profile.modified / 1000),
    });
  }
  if (scope.includes('email') && profile.email) claims.email = profile.email;
  return claims;
}
