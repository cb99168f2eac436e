/**
 * Checking who someone claims to be: admin users and app users by password, organization and
 * application clients by their credentials. Every password check passes through here, so
 * throttling and auditing have one place to live. Failures say the same whether or not the
 * account exists.
 */
import { and, eq, sql } from 'drizzle-orm';
import { applications, entities } from '../db/schema.js';
import type { Deps } from '../deps.js';
import { InvalidClient, InvalidGrant } from '../errors.js';
import { verifyPassword } from './passwords.js';
import { verifyAppUserPassword } from './app-user-passwords.js';
import { findAdminUserIn, type AdminUser } from '../management/admin-users.js';
import { verifyCredential } from '../management/credentials.js';
import type { EntityRow } from '../data/store.js';
import type { TokenPrincipal } from './access-tokens.js';

const BAD_LOGIN = 'the username or password is not correct';

export async function authenticateAdmin(deps: Deps, login: string, password: string): Promise<AdminUser> {
  const user = findAdminUserIn(deps.db, login, 'username-email-uuid');
  const valid = await verifyPassword(password, user?.passwordHash);
  if (!user || !valid) throw InvalidGrant(BAD_LOGIN);
  if (user.disabled) throw InvalidGrant('this account is disabled');
  if (!user.activated) throw InvalidGrant('this account is not activated yet');
  return user;
}

/** An app user by username or email (case-insensitive). */
export function findAppUserByLogin(deps: Deps, appUuid: string, login: string): EntityRow | undefined {
  const key = login.toLowerCase();
  return deps.db
    .select()
    .from(entities)
    .where(
      and(
        eq(entities.appUuid, appUuid),
        eq(entities.collection, 'users'),
        login.includes('@') ? sql`lower(json_extract(${entities.properties}, '$.email')) = ${key}` : eq(entities.nameKey, key),
      ),
    )
    .get();
}

export async function authenticateAppUser(deps: Deps, appUuid: string, login: string, password: string): Promise<EntityRow> {
  const user = findAppUserByLogin(deps, appUuid, login);
  const valid = user ? await verifyAppUserPassword(deps, user.uuid, password) : await verifyPassword(password, null);
  if (!user || !valid) throw InvalidGrant(BAD_LOGIN);
  if (user.properties.disabled === true) throw InvalidGrant('this account is disabled');
  if (user.properties.activated === false) throw InvalidGrant('this account is not activated yet');
  return user;
}

/** Organization or application client credentials → the principal they stand for. */
export async function authenticateClientCredentials(deps: Deps, clientId: string, clientSecret: string): Promise<TokenPrincipal> {
  const credential = await verifyCredential(deps, clientId, clientSecret);
  if (!credential) throw InvalidClient('client authentication failed');
  if (credential.ownerType === 'organization') return { kind: 'organization', orgUuid: credential.ownerUuid, clientId };
  const app = deps.db.select().from(applications).where(eq(applications.uuid, credential.ownerUuid)).get();
  if (!app) throw InvalidClient('client authentication failed');
  return { kind: 'application', orgUuid: app.orgUuid, appUuid: app.uuid, clientId };
}
