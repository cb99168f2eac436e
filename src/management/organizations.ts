/**
 * Organizations: created together with their first admin user (POST /management/orgs with
 * CreateOrg), addressed by name or uuid.
 */
import { asc, eq, gt, sql } from 'drizzle-orm';
import { preparedFor } from '../db/prepared.js';
import { remembered, type Tx, schemaOf } from '../db/open.js';
import type { organizations } from '../db/schema.js';
import { newUuid, isUuid } from '../ids.js';
import { DuplicateUniqueProperty, IllegalArgument, OrganizationNotFound } from '../errors.js';
import { parseLimit } from '../data/query/limit.js';
import type { Deps } from '../deps.js';
import type { CreateOrg, UpdateOrg } from './schemas.js';
import { storeSettings } from './settings.js';
import { addAdminToOrganizationIn, hashAdminPassword, insertAdminUser, type AdminUser } from './admin-users.js';
import { insertCredential, regenerateCredential, type Credential } from './credentials.js';
import { recordActivity } from './activities.js';
import { prepare } from '../db/run.js';

export type Organization = typeof organizations.$inferSelect;

const organizationBy = preparedFor((db) => {
  const { organizations } = schemaOf(db);
  return {
    uuid: prepare(
      db
        .select()
        .from(organizations)
        .where(eq(organizations.uuid, sql.placeholder('key'))),
    ),
    name: prepare(
      db
        .select()
        .from(organizations)
        .where(eq(organizations.nameKey, sql.placeholder('key'))),
    ),
  };
});

export async function findOrganizationIn(tx: Tx, id: string): Promise<Organization | undefined> {
  const { organizations } = schemaOf(tx);
  const by = isUuid(id) ? 'uuid' : 'name';
  const key = id.toLowerCase();
  return remembered(tx, `organization:${by}:${key}`, [organizations], () => organizationBy(tx)[by].get({ key }));
}

export async function findOrganization(deps: Deps, id: string): Promise<Organization> {
  const org = await findOrganizationIn(deps.db, id);
  if (!org) throw OrganizationNotFound(`organization '${id}' not found`);
  return org;
}

/** A page of every organization on the server, by name, with the cursor of the next page (a sysadmin's list). */
export async function listOrganizations(deps: Deps, options: { limit?: string; cursor?: string }): Promise<{ organizations: Organization[]; cursor?: string }> {
  const { organizations } = schemaOf(deps.db);
  const limit = parseLimit(options.limit);
  const after = decodeNameCursor(options.cursor);
  const rows = await deps.db
    .select()
    .from(organizations)
    .where(after === undefined ? undefined : gt(organizations.nameKey, after))
    .orderBy(asc(organizations.nameKey))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  // Keyset paging on the unique lower-cased name: organizations made between pages are neither repeated nor skipped.
  return { organizations: page, cursor: rows.length > limit ? Buffer.from(page[page.length - 1].nameKey).toString('base64url') : undefined };
}

function decodeNameCursor(cursor: string | undefined): string | undefined {
  if (cursor === undefined || cursor === '') return undefined;
  const name = /^[A-Za-z0-9_-]+$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  if (name === '' || Buffer.from(name).toString('base64url') !== cursor) {
    throw IllegalArgument('cursor is not one this endpoint returned', { fields: { cursor: 'malformed' } });
  }
  return name;
}

export async function insertOrganization(tx: Tx, now: number, name: string, owner: AdminUser, activated = true): Promise<Organization> {
  const { organizations } = schemaOf(tx);
  if (await findOrganizationIn(tx, name)) {
    throw DuplicateUniqueProperty(`organization '${name}' already exists`, { fields: { organization: 'already taken' } });
  }
  const org: Organization = {
    uuid: newUuid(),
    name,
    nameKey: name.toLowerCase(),
    activated,
    disabled: false,
    properties: {},
    created: now,
    modified: now,
  };
  await tx.insert(organizations).values(org);
  await insertCredential(tx, now, 'organization', org.uuid);
  await recordActivity(tx, now, {
    orgUuid: org.uuid,
    actorUuid: owner.uuid,
    verb: 'create',
    category: 'organization',
    title: `${owner.username} created organization ${name}`,
    objectType: 'organization',
    objectUuid: org.uuid,
    objectName: name,
  });
  await addAdminToOrganizationIn(tx, now, org.uuid, owner, owner.uuid);
  return org;
}

/** CreateOrg: the organization and its first admin user, in one transaction. */
export async function createOrganization(deps: Deps, input: CreateOrg): Promise<{ organization: Organization; owner: AdminUser }> {
  const passwordHash = await hashAdminPassword(deps, input.password, input);
  return await deps.db.transaction(async (tx) => {
    const now = deps.now();
    if (await findOrganizationIn(tx, input.organization)) {
      throw DuplicateUniqueProperty(`organization '${input.organization}' already exists`, { fields: { organization: 'already taken' } });
    }
    // Under --require-activation both start not activated; each is activated by its mailed link.
    const activated = !deps.config.requireActivation;
    const owner = await insertAdminUser(tx, now, { username: input.username, email: input.email, name: input.name, passwordHash, activated });
    const organization = await insertOrganization(tx, now, input.organization, owner, activated);
    return { organization, owner };
  });
}

export async function regenerateOrganizationCredential(deps: Deps, org: Organization, actorUuid: string | null): Promise<Credential> {
  return await regenerateCredential(deps, org.uuid, { type: 'organization', uuid: org.uuid, name: org.name }, actorUuid);
}

/** Sets or removes the organization's settings (UpdateOrg), as updateApplication does an application's. */
export async function updateOrganization(deps: Deps, org: Organization, settings: UpdateOrg, actorUuid: string | null): Promise<Organization> {
  return await storeSettings(deps, 'organization', org.uuid, org, settings, actorUuid);
}
