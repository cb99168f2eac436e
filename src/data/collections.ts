/**
 * The collections of an application. The first entity of a type creates its collection
 * (docs/api.md#entities): POST /dog and POST /dogs both write to `dogs`. The collections every
 * application has from the start exist without that.
 */
import { and, count, eq, or, sql } from 'drizzle-orm';
import { preparedFor } from '../db/prepared.js';
import { remembered, type Tx, schemaOf } from '../db/open.js';

import { EntityNotFound, IllegalArgument } from '../errors.js';
import type { Deps } from '../deps.js';
import { checkCollectionName, isPlural, pluralize, singularize } from './names.js';
import type { CollectionRef } from './entities.js';
import { prepare } from '../db/run.js';

export const BUILT_IN_COLLECTIONS: readonly CollectionRef[] = [
  { name: 'users', type: 'user' },
  { name: 'groups', type: 'group' },
  { name: 'roles', type: 'role' },
  { name: 'devices', type: 'device' },
  { name: 'activities', type: 'activity' },
  { name: 'events', type: 'event' },
];

export interface CollectionSummary extends CollectionRef {
  readonly count: number;
}

const collectionBy = preparedFor((db) => {
  const { collections } = schemaOf(db);
  return prepare(
    db
      .select({ name: collections.name, type: collections.type })
      .from(collections)
      .where(
        and(eq(collections.appUuid, sql.placeholder('app')), or(eq(collections.name, sql.placeholder('key')), eq(collections.type, sql.placeholder('key')))),
      ),
  );
});

/** The collection a path segment names, by collection name or entity type, if it exists. */
export async function findCollectionIn(tx: Tx, appUuid: string, segment: string): Promise<CollectionRef | undefined> {
  const { collections } = schemaOf(tx);
  const key = segment.toLowerCase();
  const builtIn = BUILT_IN_COLLECTIONS.find((collection) => collection.name === key || collection.type === key);
  if (builtIn !== undefined) return builtIn;
  return remembered(tx, `collection:${appUuid}:${key}`, [collections], async () => {
    const row = await collectionBy(tx).get({ app: appUuid, key });
    return row && { ...row, stored: true };
  });
}

/** @throws AppError `entity_not_found` (404) for a collection the application never created. */
export async function requireCollection(tx: Tx, appUuid: string, segment: string): Promise<CollectionRef> {
  const found = await findCollectionIn(tx, appUuid, segment);
  if (found === undefined) throw EntityNotFound(`collection '${segment}' not found`, { fields: { collection: segment } });
  return found;
}

/**
 * The collection an entity posted to `segment` goes to: an existing one, or a new one named by
 * the plural of the type. @throws AppError `illegal_argument` (400) for a malformed or reserved name.
 */
/**
 * Collections whose entities only their own service creates (push, docs/api.md#entities): the
 * generic entity routes may read them but never create in them, or anyone allowed to POST under
 * their own user could forge receipts and notifications.
 */
const SERVICE_COLLECTIONS: ReadonlyMap<string, string> = new Map([
  ['notifications', 'send notifications through …/devices, …/users/{user} or …/groups/{group}/notifications'],
  ['receipts', 'receipts are written by the push service'],
  ['notifiers', 'create notifiers with POST …/notifiers'],
]);

export async function collectionForWrite(tx: Tx, appUuid: string, segment: string): Promise<CollectionRef> {
  const name = checkCollectionName(segment);
  const existing = await findCollectionIn(tx, appUuid, name);
  const collection = existing ?? (isPlural(name) ? { name, type: singularize(name) } : { name: pluralize(name), type: name });
  const service = SERVICE_COLLECTIONS.get(collection.name);
  if (service !== undefined) {
    throw IllegalArgument(`entities of '${collection.name}' cannot be created here: ${service}`, { fields: { collection: 'created by the push service' } });
  }
  return collection;
}

/** Every collection of the application with its entity count, built-in ones first. */
export async function listCollections(deps: Deps, appUuid: string): Promise<CollectionSummary[]> {
  const { collections, entities } = schemaOf(deps.db);
  const counts = new Map(
    (await deps.db.select({ name: entities.collection, count: count() }).from(entities).where(eq(entities.appUuid, appUuid)).groupBy(entities.collection)).map(
      (row) => [row.name, row.count],
    ),
  );
  const created = (
    await deps.db.select({ name: collections.name, type: collections.type }).from(collections).where(eq(collections.appUuid, appUuid)).orderBy(collections.name)
  ).filter((row) => !BUILT_IN_COLLECTIONS.some((builtIn) => builtIn.name === row.name));
  return [...BUILT_IN_COLLECTIONS, ...created].map((collection) => ({ ...collection, count: counts.get(collection.name) ?? 0 }));
}
