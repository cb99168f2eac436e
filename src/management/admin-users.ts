/**
 * Admin users (Usergrid's User under /management/users): people who manage organizations.
 * Looked up by username, email, real name or uuid (docs/api.md#identifiers).
 */
import { and, asc, eq, sql } from 'drizzle-orm';
import type { adminUsers } from '../db/schema.js';
import { newUuid, isUuid } from '../ids.js';
import { hashPassword } from '../passwords.js';
import { assertPasswordAllowed, type PasswordOwner } from '../password-policy.js';
import { BadRequest, DuplicateUniqueProperty, UserNotFound } from '../errors.js';
import type { Deps } from '../deps.js';
import { type Tx, schemaOf } from '../db/open.js';
import type { AdminUserUpdate, CreateAdminUser } from './schemas.js';
import { recordActivity } from './activities.js';
import { first } from '../db/run.js';

export type AdminUser = typeof adminUsers.$inferSelect;

/**
 * An admin user's new password, checked against the server's password policy (admin users have
 * no application to take one from) and hashed; `field` names it in the error.
 * @throws AppError `illegal_argument` naming the rule the password breaks.
 */
export async function hashAdminPassword(deps: Deps, password: string, owner: PasswordOwner, field = 'password'): Promise<string> {
  return await hashPassword(await assertPasswordAllowed(deps.config.passwordPolicy, password, owner, field));
}

/**
 * Which identifiers a path segment may be: /management/users/{user} also takes a real name,
 * /management/orgs/{org}/users/{user} does not.
 */
export type AdminLookup = 'any' | 'username-email-uuid';

export async function findAdminUser(deps: Deps, id: string, lookup: AdminLookup = 'any'): Promise<AdminUser> {
  const user = await findAdminUserIn(deps.db, id, lookup);
  if (!user) throw UserNotFound(`admin user '${id}' not found`);
  return user;
}

export async function findAdminUserIn(tx: Tx, id: string, lookup: AdminLookup = 'any'): Promise<AdminUser | undefined> {
  const { adminUsers } = schemaOf(tx);
  if (isUuid(id)) return await first(tx.select().from(adminUsers).where(eq(adminUsers.uuid, id.toLowerCase())));
  const key = id.toLowerCase();
  const byKey = await first(
    tx
      .select()
      .from(adminUsers)
      .where(id.includes('@') ? eq(adminUsers.emailKey, key) : eq(adminUsers.usernameKey, key)),
  );
  if (byKey || lookup !== 'any') return byKey;
  // Real names are not unique; the oldest account with that name answers, as Usergrid's index did.
  return await first(
    tx
      .select()
      .from(adminUsers)
      .where(sql`lower(${adminUsers.name}) = ${key}`)
      .orderBy(asc(adminUsers.created)),
  );
}

export async function assertAdminUnique(tx: Tx, fields: { username?: string; email?: string | null }, exceptUuid?: string): Promise<void> {
  const { adminUsers } = schemaOf(tx);
  if (fields.username !== undefined) {
    const other = await first(tx.select().from(adminUsers).where(eq(adminUsers.usernameKey, fields.username.toLowerCase())));
    if (other && other.uuid !== exceptUuid) {
      throw DuplicateUniqueProperty(`username '${fields.username}' is already taken`, { fields: { username: 'already taken' } });
    }
  }
  if (fields.email) {
    const other = await first(tx.select().from(adminUsers).where(eq(adminUsers.emailKey, fields.email.toLowerCase())));
    if (other && other.uuid !== exceptUuid) {
      throw DuplicateUniqueProperty(`email '${fields.email}' is already taken`, { fields: { email: 'already taken' } });
    }
  }
}

/** Inserts an admin user; the password is hashed by the caller so the transaction stays short. */
export async function insertAdminUser(
  tx: Tx,
  now: number,
  input: { username: string; email?: string | null; name?: string; passwordHash: string | null; sysadmin?: boolean; activated?: boolean },
): Promise<AdminUser> {
  const { adminUsers } = schemaOf(tx);
  await assertAdminUnique(tx, input);
  const row: AdminUser = {
    uuid: newUuid(),
    username: input.username,
    usernameKey: input.username.toLowerCase(),
    email: input.email ?? null,
    emailKey: input.email ? input.email.toLowerCase() : null,
    name: input.name ?? '',
    passwordHash: input.passwordHash,
    sysadmin: input.sysadmin ?? false,
    activated: input.activated ?? true,
    disabled: false,
    properties: {},
    created: now,
    modified: now,
  };
  await tx.insert(adminUsers).values(row);
  return row;
}

export async function createAdminUser(deps: Deps, input: CreateAdminUser): Promise<AdminUser> {
  const passwordHash = input.password === undefined ? null : await hashAdminPassword(deps, input.password, input);
  // Signing up starts not activated under --require-activation: the mailed link activates it.
  const activated = !deps.config.requireActivation;
  return await deps.db.transaction(async (tx) => insertAdminUser(tx, deps.now(), { ...input, passwordHash, activated }));
}

export async function updateAdminUser(deps: Deps, user: AdminUser, update: AdminUserUpdate): Promise<AdminUser> {
  return await deps.db.transaction(async (tx) => {
    const { adminUsers } = schemaOf(tx);
    await assertAdminUnique(tx, update, user.uuid);
    const { username, email, name, ...profile } = update;
    const changes = {
      ...(username !== undefined && { username, usernameKey: username.toLowerCase() }),
      ...(email !== undefined && { email, emailKey: email.toLowerCase() }),
      ...(name !== undefined && { name }),
      properties: { ...user.properties, ...profile },
      modified: deps.now(),
    };
    await tx.update(adminUsers).set(changes).where(eq(adminUsers.uuid, user.uuid));
    return (await first(tx.select().from(adminUsers).where(eq(adminUsers.uuid, user.uuid))))!;
  });
}

/** Stores an admin user's new password, already hashed (hashAdminPassword). */
export async function storeAdminPasswordHash(deps: Deps, user: AdminUser, passwordHash: string): Promise<void> {
  const { adminUsers } = schemaOf(deps.db);
  await deps.db.update(adminUsers).set({ passwordHash, modified: deps.now() }).where(eq(adminUsers.uuid, user.uuid));
}

export async function listOrganizationAdmins(deps: Deps, orgUuid: string): Promise<AdminUser[]> {
  const { adminUsers, orgAdmins } = schemaOf(deps.db);
  return (
    await deps.db
      .select({ user: adminUsers })
      .from(orgAdmins)
      .innerJoin(adminUsers, eq(orgAdmins.userUuid, adminUsers.uuid))
      .where(eq(orgAdmins.orgUuid, orgUuid))
      .orderBy(asc(orgAdmins.created), asc(adminUsers.uuid))
  ).map((row) => row.user);
}

export async function listAdminOrganizations(deps: Deps, userUuid: string) {
  const { orgAdmins, organizations } = schemaOf(deps.db);
  return (
    await deps.db
      .select({ org: organizations })
      .from(orgAdmins)
      .innerJoin(organizations, eq(orgAdmins.orgUuid, organizations.uuid))
      .where(eq(orgAdmins.userUuid, userUuid))
      .orderBy(asc(orgAdmins.created))
  ).map((row) => row.org);
}

export async function addAdminToOrganizationIn(tx: Tx, now: number, orgUuid: string, user: AdminUser, actorUuid: string | null): Promise<boolean> {
  const { orgAdmins } = schemaOf(tx);
  const existing = await first(
    tx
      .select()
      .from(orgAdmins)
      .where(and(eq(orgAdmins.orgUuid, orgUuid), eq(orgAdmins.userUuid, user.uuid))),
  );
  if (existing) return false;
  await tx.insert(orgAdmins).values({ orgUuid, userUuid: user.uuid, created: now });
  await recordActivity(tx, now, {
    orgUuid,
    actorUuid,
    verb: 'add',
    category: 'admin',
    title: `${user.username} became an administrator`,
    objectType: 'user',
    objectUuid: user.uuid,
    objectName: user.username,
  });
  return true;
}

export async function addAdminToOrganization(deps: Deps, orgUuid: string, user: AdminUser, actorUuid: string | null): Promise<void> {
  await deps.db.transaction(async (tx) => addAdminToOrganizationIn(tx, deps.now(), orgUuid, user, actorUuid));
}

/** Removes an admin from an organization; the last admin stays, so no organization is orphaned. */
export async function removeAdminFromOrganization(deps: Deps, orgUuid: string, user: AdminUser, actorUuid: string | null): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const { orgAdmins } = schemaOf(tx);
    const members = await tx.select({ userUuid: orgAdmins.userUuid }).from(orgAdmins).where(eq(orgAdmins.orgUuid, orgUuid));
    if (!members.some((m) => m.userUuid === user.uuid)) {
      throw UserNotFound(`'${user.username}' is not an administrator of this organization`);
    }
    if (members.length === 1) {
      throw BadRequest('an organization must keep at least one administrator', { fields: { userId: 'last administrator' } });
    }
    await tx.delete(orgAdmins).where(and(eq(orgAdmins.orgUuid, orgUuid), eq(orgAdmins.userUuid, user.uuid)));
    await recordActivity(tx, deps.now(), {
      orgUuid,
      actorUuid,
      verb: 'remove',
      category: 'admin',
      title: `${user.username} is no longer an administrator`,
      objectType: 'user',
      objectUuid: user.uuid,
      objectName: user.username,
    });
  });
}

/**
 * --superuser USER:PASSWORD: creates or updates the sysadmin at every start (`idp serve` has
 * checked the password against the policy before opening the database).
 */
export async function ensureSuperuser(deps: Deps, username: string, password: string): Promise<AdminUser> {
  const passwordHash = await hashPassword(password);
  return await deps.db.transaction(async (tx) => {
    const { adminUsers } = schemaOf(tx);
    const existing = await findAdminUserIn(tx, username, 'username-email-uuid');
    if (!existing) return await insertAdminUser(tx, deps.now(), { username, passwordHash, sysadmin: true, name: username });
    await tx.update(adminUsers).set({ passwordHash, sysadmin: true, modified: deps.now() }).where(eq(adminUsers.uuid, existing.uuid));
    return { ...existing, passwordHash, sysadmin: true };
  });
}
