/**
 * Domain rows → the API's response models (docs/api.md#envelope: field names exactly as the API
 * specification writes them; where its casing differs from Usergrid's or OAuth's, both names are
 * present).
 */
import { createHash } from 'node:crypto';
import type { Organization } from '../src/management/organizations.js';
import { allowsOpenClientRegistration, passwordPolicySettingsOf, type Application } from '../src/management/applications.js';
import type { AdminUser } from '../src/management/admin-users.js';
import type { Credential } from '../src/management/credentials.js';
import type { ManagementActivity } from '../src/management/activities.js';
import { MANAGEMENT_APPLICATION_UUID } from '../src/management/constants.js';

/** `Name <email>`, as Usergrid showed users; empty without an email. */
export function displayEmailOf(name: string, email: string | null): string {
  return email ? `${name} <${email}>` : '';
}

function displayEmail(user: AdminUser): string {
  return displayEmailOf(user.name || user.username, user.email);
}

export function escapeHtml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
}

export function gravatar(email: string | null): string {
  // Usergrid's `picture`: the Gravatar of the email (md5 is Gravatar's key, not a security use).
  const hash = createHash('md5')
    .update((email ?? '').trim().toLowerCase())
    .digest('hex');
  return `https://www.gravatar.com/avatar/${hash}`;
}

/** AppData: members "<org>/<app>": "<uuid>". */
export function appDataOf(org: Organization, apps: Application[]): Record<string, string> {
  return Object.fromEntries(apps.map((app) => [`${org.name}/${app.name}`, app.uuid]));
}

/** The management path of an application, by uuids: the base of its resources' `metadata.path`. */
export function applicationPath(orgUuid: string, appUuid: string): string {
  return `/management/orgs/${orgUuid}/apps/${appUuid}`;
}

export function applicationView(org: Organization, app: Application) {
  return {
    uuid: app.uuid,
    type: 'application',
    name: `${org.name}/${app.name}`,
    applicationName: app.name,
    organization: org.name,
    created: app.created,
    modified: app.modified,
    [`${org.name}/${app.name}`]: app.uuid,
    ...(passwordPolicySettingsOf(app) && { passwordPolicy: passwordPolicySettingsOf(app) }),
    ...(allowsOpenClientRegistration(app) && { openClientRegistration: true }),
    metadata: { path: applicationPath(org.uuid, app.uuid) },
  };
}

export function adminUserView(user: AdminUser, orgs: Organization[]) {
  return {
    uuid: user.uuid,
    type: 'user',
    applicationId: MANAGEMENT_APPLICATION_UUID,
    username: user.username,
    name: user.name,
    email: user.email ?? '',
    displayEmail: displayEmail(user),
    htmldisplayEmail: escapeHtml(displayEmail(user)),
    organization: orgs[0]?.name ?? '',
    organizations: Object.fromEntries(orgs.map((org) => [org.name, org.uuid])),
    picture: gravatar(user.email),
    uri: `/management/users/${user.uuid}`,
    path: `/management/users/${user.uuid}`,
    activated: user.activated,
    disabled: user.disabled,
    adminUser: true,
    ...(user.sysadmin && { sysadmin: true }),
    ...user.properties,
    created: user.created,
    modified: user.modified,
    metadata: { path: `/management/users/${user.uuid}` },
  };
}

/** Organization: the organization with its owner's data (docs/api.md#envelope). */
export function organizationView(org: Organization, owner: AdminUser | undefined, apps: Application[]) {
  return {
    uuid: org.uuid,
    type: 'organization',
    orgname: org.name,
    orguuId: org.uuid,
    orgUuid: org.uuid,
    applicationId: MANAGEMENT_APPLICATION_UUID,
    username: owner?.username ?? '',
    name: owner?.name ?? '',
    email: owner?.email ?? '',
    displayEmail: owner ? displayEmail(owner) : '',
    htmldisplayEmail: owner ? escapeHtml(displayEmail(owner)) : '',
    adminUser: owner !== undefined,
    activated: org.activated,
    disabled: org.disabled,
    applicationdata: appDataOf(org, apps),
    created: org.created,
    modified: org.modified,
    metadata: { path: `/management/orgs/${org.uuid}` },
  };
}

/** An organization in the list of every organization: its own fields, without its owner and applications. */
export function organizationListView(org: Organization) {
  return {
    uuid: org.uuid,
    type: 'organization',
    name: org.name,
    orgname: org.name,
    orguuId: org.uuid,
    orgUuid: org.uuid,
    activated: org.activated,
    disabled: org.disabled,
    created: org.created,
    modified: org.modified,
    metadata: { path: `/management/orgs/${org.uuid}` },
  };
}

export function credentialView(credential: Credential) {
  return { client_Id: credential.clientId, client_id: credential.clientId, client_secret: credential.clientSecret };
}

/** ActivityFeed entries of the management feed. */
export function managementActivityView(activity: ManagementActivity) {
  return {
    uuid: activity.uuid,
    type: 'activity',
    verb: activity.verb,
    category: activity.category,
    title: activity.title,
    published: activity.created,
    created: activity.created,
    actor: activity.actorUuid ? { objecttype: 'user', objectuuId: activity.actorUuid, objectUuid: activity.actorUuid, entitytype: 'user' } : null,
    object: {
      displayname: activity.objectName,
      objecttype: activity.objectType,
      objectuuId: activity.objectUuid,
      objectUuid: activity.objectUuid,
      entitytype: activity.objectType,
    },
    metadata: { path: `/management/feed/${activity.uuid}` },
  };
}
