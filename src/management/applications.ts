/**
 * Applications inside an organization, addressed by name or uuid. A new application gets its
 * client credentials and the default roles (docs/api.md#permissions).
 */
import { and, asc, eq, sql } from 'drizzle-orm';
import { preparedFor } from '../db/prepared.js';
import { remembered, type Tx, schemaOf } from '../db/open.js';
import type { applications } from '../db/schema.js';
import { newUuid, isUuid } from '../ids.js';
import { ApplicationNotFound, DuplicateUniqueProperty } from '../errors.js';
import type { Deps } from '../deps.js';
import { DEFAULT_ROLES } from '../access/default-roles.js';
import { mergePasswordPolicy, type PasswordPolicy, type PasswordPolicySettings } from '../password-policy.js';
import { insertEntity } from '../db/entity-store.js';
import { deleteCredentialIn, insertCredential, regenerateCredential, type Credential } from './credentials.js';
import { recordActivity } from './activities.js';
import type { Organization } from './organizations.js';
import { storeSettings } from './settings.js';
import { first, prepare } from '../db/run.js';

export type Application = typeof applications.$inferSelect;

/** What PUT /management/orgs/{org}/apps/{app} changes; `null` (or `false`) removes a setting. */
export interface ApplicationSettings {
  passwordPolicy?: PasswordPolicySettings | null;
  /** Clients may register at /connect/register without an initial access token (docs/api.md#dynamic-client-registration). */
  openClientRegistration?: boolean | null;
  /** Its users must have a second factor to sign in (docs/account.md#second-factor-required). */
  secondFactorRequired?: boolean | null;
}

const applicationBy = preparedFor((db) => {
  const { applications } = schemaOf(db);
  return {
    uuid: prepare(
      db
        .select()
        .from(applications)
        .where(and(eq(applications.orgUuid, sql.placeholder('org')), eq(applications.uuid, sql.placeholder('key')))),
    ),
    name: prepare(
      db
        .select()
        .from(applications)
        .where(and(eq(applications.orgUuid, sql.placeholder('org')), eq(applications.nameKey, sql.placeholder('key')))),
    ),
  };
});

export async function findApplicationIn(tx: Tx, org: Organization, id: string): Promise<Application | undefined> {
  const { applications } = schemaOf(tx);
  const by = isUuid(id) ? 'uuid' : 'name';
  const key = id.toLowerCase();
  return remembered(tx, `application:${org.uuid}:${by}:${key}`, [applications], () => applicationBy(tx)[by].get({ org: org.uuid, key }));
}

export async function findApplication(deps: Deps, org: Organization, id: string): Promise<Application> {
  const app = await findApplicationIn(deps.db, org, id);
  if (!app) throw ApplicationNotFound(`application '${id}' not found in organization '${org.name}'`);
  return app;
}

/** An application by its uuid alone, as tokens name it; undefined when it is gone. */
export async function findApplicationByUuid(deps: Deps, uuid: string): Promise<Application | undefined> {
  const { applications } = schemaOf(deps.db);
  return await first(deps.db.select().from(applications).where(eq(applications.uuid, uuid)));
}

export async function listApplications(deps: Deps, org: Organization): Promise<Application[]> {
  const { applications } = schemaOf(deps.db);
  return await deps.db.select().from(applications).where(eq(applications.orgUuid, org.uuid)).orderBy(asc(applications.created));
}

export async function insertApplication(tx: Tx, now: number, org: Organization, name: string, actorUuid: string | null): Promise<Application> {
  const { applications } = schemaOf(tx);
  if (await findApplicationIn(tx, org, name)) {
    throw DuplicateUniqueProperty(`application '${name}' already exists in organization '${org.name}'`, { fields: { name: 'already taken' } });
  }
  const app: Application = { uuid: newUuid(), orgUuid: org.uuid, name, nameKey: name.toLowerCase(), properties: {}, created: now, modified: now };
  await tx.insert(applications).values(app);
  await insertCredential(tx, now, 'application', app.uuid);
  for (const role of DEFAULT_ROLES) {
    await insertEntity(tx, {
      appUuid: app.uuid,
      collection: 'roles',
      type: 'role',
      name: role.name,
      properties: { roleName: role.name, title: role.title, permissions: [...role.permissions] },
      now,
    });
  }
  await recordActivity(tx, now, {
    orgUuid: org.uuid,
    actorUuid,
    verb: 'create',
    category: 'application',
    title: `application ${name} created`,
    objectType: 'application',
    objectUuid: app.uuid,
    objectName: name,
  });
  return app;
}

export async function createApplication(deps: Deps, org: Organization, name: string, actorUuid: string | null): Promise<Application> {
  return await deps.db.transaction(async (tx) => insertApplication(tx, deps.now(), org, name, actorUuid));
}

/** Deletes the application with all its data (entities and connections cascade). */
export async function deleteApplication(deps: Deps, org: Organization, app: Application, actorUuid: string | null): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const { applications } = schemaOf(tx);
    await deleteCredentialIn(tx, 'application', app.uuid);
    await tx.delete(applications).where(eq(applications.uuid, app.uuid));
    await recordActivity(tx, deps.now(), {
      orgUuid: org.uuid,
      actorUuid,
      verb: 'delete',
      category: 'application',
      title: `application ${app.name} deleted`,
      objectType: 'application',
      objectUuid: app.uuid,
      objectName: app.name,
    });
  });
}

export async function regenerateApplicationCredential(deps: Deps, org: Organization, app: Application, actorUuid: string | null): Promise<Credential> {
  return await regenerateCredential(deps, org.uuid, { type: 'application', uuid: app.uuid, name: app.name }, actorUuid);
}

/** The application's own password rules, stored in its properties; undefined when it has none. */
export function passwordPolicySettingsOf(app: Pick<Application, 'properties'>): PasswordPolicySettings | undefined {
  return app.properties.passwordPolicy as PasswordPolicySettings | undefined;
}

/** Whether clients may register at /connect/register without an initial access token (off unless set). */
export function allowsOpenClientRegistration(app: Pick<Application, 'properties'>): boolean {
  return app.properties.openClientRegistration === true;
}

/** The policy an application's users' new passwords follow: the server's, with the application's settings on top. */
export async function findAppPasswordPolicy(deps: Deps, appUuid: string): Promise<PasswordPolicy> {
  const { applications } = schemaOf(deps.db);
  const app = await first(deps.db.select({ properties: applications.properties }).from(applications).where(eq(applications.uuid, appUuid)));
  return mergePasswordPolicy(deps.config.passwordPolicy, app && passwordPolicySettingsOf(app));
}

/** Sets or removes the application's settings; a setting given replaces the one stored whole. */
export async function updateApplication(
  deps: Deps,
  org: Organization,
  app: Application,
  settings: ApplicationSettings,
  actorUuid: string | null,
): Promise<Application> {
  return await storeSettings(deps, 'application', org.uuid, app, settings, actorUuid);
}
