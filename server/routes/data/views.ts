/**
 * Entities of the data API as Usergrid returned them: `uuid`, `type`, `created`, `modified`,
 * the properties, and `metadata` with the entity's path, its connections, the connections to it
 * and its sub-collections. Users also carry the User model's fields (docs/api.md#envelope); nothing written only
 * through dedicated endpoints (permissions) is shown, and password hashes are never properties.
 */
import type { Application } from '../../../src/management/applications.js';
import type { Organization } from '../../../src/management/organizations.js';
import type { EntityDescription } from '../../../src/data/entities.js';
import type { CollectionSummary } from '../../../src/data/collections.js';
import { rulesOf } from '../../../src/data/rules.js';
import { entityRecord } from '../../../src/data/find.js';
import { projectEntity, type PropertyPath } from '../../../src/data/query/index.js';
import { applicationView, displayEmailOf, escapeHtml, gravatar } from '../../views.js';

export interface AppScope {
  readonly org: Organization;
  readonly app: Application;
}

function links(base: string, relations: readonly string[], infix = ''): Record<string, string> | undefined {
  if (relations.length === 0) return undefined;
  return Object.fromEntries(relations.map((relation) => [relation, `${base}${infix}/${relation}`]));
}

/** The User model's fields of an app user. */
function userFields(scope: AppScope, properties: Record<string, unknown>, path: string) {
  const email = typeof properties.email === 'string' ? properties.email : null;
  const displayEmail = displayEmailOf(String(properties.name ?? properties.username ?? ''), email);
  return {
    applicationId: scope.app.uuid,
    organization: scope.org.name,
    email: email ?? '',
    displayEmail,
    htmldisplayEmail: escapeHtml(displayEmail),
    picture: properties.picture ?? gravatar(email),
    uri: path,
    path,
    activated: properties.activated !== false,
    disabled: properties.disabled === true,
    adminUser: false,
  };
}

export function entityView(scope: AppScope, entity: EntityDescription, select: readonly PropertyPath[] | null = null) {
  const { row } = entity;
  const rules = rulesOf(row.collection);
  const path = `/${row.collection}/${row.uuid}`;
  if (select !== null) return projectEntity(entityRecord(row), select);
  const properties = Object.fromEntries(Object.entries(row.properties).filter(([key]) => !rules.guarded.has(key)));
  return {
    uuid: row.uuid,
    type: row.type,
    created: row.created,
    modified: row.modified,
    ...(row.collection === 'users' && userFields(scope, properties, path)),
    ...properties,
    metadata: {
      path,
      ...(entity.connections.length > 0 && { connections: links(path, entity.connections) }),
      ...(entity.connecting.length > 0 && { connecting: links(path, entity.connecting, '/connecting') }),
      ...(rules.subCollections.length > 0 && { collections: links(path, rules.subCollections) }),
      ...(rules.guarded.has('permissions') && { sets: { permissions: `${path}/permissions` } }),
    },
  };
}

/** GET /{org}/{app}: the application with its collections (Usergrid's `metadata.collections`). */
export function applicationEntityView(scope: AppScope, collections: readonly CollectionSummary[]) {
  const { org, app } = scope;
  return {
    ...applicationView(org, app),
    metadata: {
      path: `/${org.name}/${app.name}`,
      collections: Object.fromEntries(
        collections.map((collection) => [
          collection.name,
          { name: collection.name, type: collection.type, title: collection.name[0].toUpperCase() + collection.name.slice(1), count: collection.count },
        ]),
      ),
    },
  };
}
