/**
 * The three kinds of account the lifecycle acts on — organizations, admin users, app users —
 * seen through one shape: who to write to, whether it is activated or disabled, where its links
 * point, and how it is activated or given a new password.
 */
import { eq } from 'drizzle-orm';

import type { Deps } from '../deps.js';
import { type Tx, schemaOf } from '../db/open.js';
import { ApplicationNotFound } from '../errors.js';
import { issuerOf } from '../identity/issuer.js';
import { storeAppUserPasswordHash } from '../identity/sign-in/app-user-passwords.js';
import { findEntityByUuid } from '../db/entity-store.js';
import { updateEntityIn } from '../data/entities.js';
import { listOrganizationAdmins } from '../management/admin-users.js';
import type { LinkPurpose, Subject, UserSubject } from './links.js';
import { first } from '../db/run.js';

export interface Account {
  subject: Subject;
  /** What the mail calls the account: the organization's or the user's name. */
  displayName: string;
  /** Where its mail goes; an organization's goes to its first administrator. */
  email: string | undefined;
  /** The user's sign-in name; an organization has none. */
  username?: string;
  activated: boolean;
  disabled: boolean;
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The account behind a subject, as stored now; undefined when it no longer exists. */
export async function findAccount(deps: Deps, subject: Subject): Promise<Account | undefined> {
  const { adminUsers, organizations } = schemaOf(deps.db);
  switch (subject.type) {
    case 'organization': {
      const org = await first(deps.db.select().from(organizations).where(eq(organizations.uuid, subject.uuid)));
      if (!org) return undefined;
      const [owner] = await listOrganizationAdmins(deps, org.uuid);
      return { subject, displayName: org.name, email: nonEmpty(owner?.email), activated: org.activated, disabled: org.disabled };
    }
    case 'admin_user': {
      const user = await first(deps.db.select().from(adminUsers).where(eq(adminUsers.uuid, subject.uuid)));
      if (!user) return undefined;
      const { username } = user;
      return { subject, displayName: user.name || username, email: nonEmpty(user.email), username, activated: user.activated, disabled: user.disabled };
    }
    case 'app_user': {
      const user = await findEntityByUuid(deps.db, subject.appUuid, subject.uuid);
      if (!user || user.collection !== 'users') return undefined;
      const { properties } = user;
      return {
        subject,
        displayName: nonEmpty(properties.name) ?? user.name ?? '',
        email: nonEmpty(properties.email),
        username: user.name ?? undefined,
        // App users are active unless marked otherwise, as authenticateAppUser reads them.
        activated: properties.activated !== false,
        disabled: properties.disabled === true,
      };
    }
  }
}

/** The page a mailed link opens (Usergrid's paths; ids are uuids so renames do not break links). */
export async function linkUrl(deps: Deps, purpose: LinkPurpose, subject: Subject, token: string): Promise<string> {
  const { applications } = schemaOf(deps.db);
  const issuer = issuerOf(deps);
  const query = `?token=${encodeURIComponent(token)}`;
  switch (subject.type) {
    case 'organization':
      return `${issuer}/management/orgs/${subject.uuid}/${purpose}${query}`;
    case 'admin_user':
      return `${issuer}/management/users/${subject.uuid}/${purpose}${query}`;
    case 'app_user': {
      const app = await first(deps.db.select().from(applications).where(eq(applications.uuid, subject.appUuid)));
      if (!app) throw ApplicationNotFound(`application '${subject.appUuid}' not found`);
      return `${issuer}/${app.orgUuid}/${subject.appUuid}/users/${subject.uuid}/${purpose}${query}`;
    }
  }
}

export async function markActivated(tx: Tx, subject: Subject, now: number): Promise<void> {
  const { adminUsers, organizations } = schemaOf(tx);
  switch (subject.type) {
    case 'organization':
      await tx.update(organizations).set({ activated: true, modified: now }).where(eq(organizations.uuid, subject.uuid));
      return;
    case 'admin_user':
      await tx.update(adminUsers).set({ activated: true, modified: now }).where(eq(adminUsers.uuid, subject.uuid));
      return;
    case 'app_user': {
      const user = await findEntityByUuid(tx, subject.appUuid, subject.uuid);
      if (user) await updateEntityIn(tx, user, { activated: true }, now);
      return;
    }
  }
}

/**
 * The administrator's switch (docs/api.md#account-state): `disabled` on or off. Switching it off
 * also marks the account activated, since an administrator vouches for it.
 */
export async function storeDisabled(tx: Tx, subject: UserSubject, disabled: boolean, now: number): Promise<void> {
  const { adminUsers } = schemaOf(tx);
  if (subject.type === 'admin_user') {
    await tx
      .update(adminUsers)
      .set({ disabled, ...(!disabled && { activated: true }), modified: now })
      .where(eq(adminUsers.uuid, subject.uuid));
    return;
  }
  const user = await findEntityByUuid(tx, subject.appUuid, subject.uuid);
  // Activating removes the property, as the user was before any administrator touched it.
  if (user) await updateEntityIn(tx, user, disabled ? { disabled: true } : { disabled: null, activated: true }, now);
}

/** Stores an already hashed password (hashing is slow and happens before the transaction). */
export async function storePasswordHash(tx: Tx, subject: UserSubject, passwordHash: string, now: number): Promise<void> {
  const { adminUsers } = schemaOf(tx);
  if (subject.type === 'admin_user') {
    await tx.update(adminUsers).set({ passwordHash, modified: now }).where(eq(adminUsers.uuid, subject.uuid));
  } else {
    await storeAppUserPasswordHash(tx, subject.appUuid, subject.uuid, passwordHash, now);
  }
}
