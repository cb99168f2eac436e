/**
 * Entities of an application's collections (seed: POST /{org}/{app}/{entitytype}, GET/PUT/DELETE
 * …/{collection}/{entityId}). Every write runs in one transaction, so a request that fails on
 * its tenth entity stores none of them.
 */
import { eq, sql } from 'drizzle-orm';
import { preparedFor } from '../db/prepared.js';
import { connections, entities } from '../db/schema.js';
import { EntityNotFound, IllegalArgument, DuplicateUniqueProperty } from '../errors.js';
import { isUuid } from '../ids.js';
import type { Deps, Tx } from '../deps.js';
import { deleteEntityRows, findEntityByName, findEntityByUuid, insertEntity, updateEntityRow, type EntityRow } from './store.js';
import { rulesOf, SYSTEM_PROPERTIES, type Properties } from './rules.js';
import { isOwnedRelation } from './relations.js';

export type { EntityRow } from './store.js';

export interface CollectionRef {
  /** Plural, lower-case: `dogs`. */
  readonly name: string;
  /** Singular: `dog`. */
  readonly type: string;
}

/** An entity with the relations Usergrid lists in its metadata. */
export interface EntityDescription {
  readonly row: EntityRow;
  /** Relations from this entity to others (`metadata.connections`). */
  readonly connections: readonly string[];
  /** Relations from others to this entity (`metadata.connecting`). */
  readonly connecting: readonly string[];
}

/** The JSON object(s) of a request body as new entities' properties. */
export function entityBodies(body: unknown): Properties[] {
  const items = Array.isArray(body) ? body : [body];
  if (items.length === 0) throw IllegalArgument('the request body is an empty array', { fields: { body: 'empty' } });
  return items.map((item, i) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      const where = Array.isArray(body) ? `item ${i} of the request body` : 'the request body';
      throw IllegalArgument(`${where} must be a JSON object`, { fields: { body: 'must be a JSON object' } });
    }
    return item as Properties;
  });
}

/** Drops what no request may write and refuses what only dedicated endpoints write. */
function writableProperties(collection: string, body: Properties): Properties {
  const rules = rulesOf(collection);
  const properties: Properties = {};
  for (const [key, value] of Object.entries(body)) {
    if (SYSTEM_PROPERTIES.has(key)) continue;
    if (rules.guarded.has(key)) {
      throw IllegalArgument(`'${key}' cannot be written here; use /${collection}/{id}/${key}`, { fields: { [key]: 'use its own endpoint' } });
    }
    properties[key] = value;
  }
  return properties;
}

function assertNameFree(tx: Tx, appUuid: string, collection: string, name: string | null, self?: string): void {
  if (name === null) return;
  const holder = findEntityByName(tx, appUuid, collection, name);
  if (holder !== undefined && holder.uuid !== self) {
    const field = rulesOf(collection).nameProperty;
    throw DuplicateUniqueProperty(`${collection} already has an entity with ${field} '${name}'`, { fields: { [field]: 'already taken' } });
  }
}

/** Inserts one entity of `collection` from request properties (inside the caller's transaction). */
export function insertEntityFromBody(tx: Tx, appUuid: string, collection: CollectionRef, body: Properties, now: number, uuid?: string): EntityRow {
  const rules = rulesOf(collection.name);
  const { name, properties } = rules.normalize(writableProperties(collection.name, body), true);
  assertNameFree(tx, appUuid, collection.name, name);
  const row = insertEntity(tx, { appUuid, collection: collection.name, type: collection.type, name, nameProperty: rules.nameProperty, properties, now, uuid });
  rules.afterWrite?.(tx, row);
  return row;
}

export async function createEntities(deps: Deps, appUuid: string, collection: CollectionRef, body: unknown): Promise<EntityRow[]> {
  const items = entityBodies(body);
  return deps.db.transaction((tx) => {
    const now = deps.now();
    return items.map((item) => insertEntityFromBody(tx, appUuid, collection, item, now));
  });
}

/** An entity of `collection` by uuid or by name (case-insensitive). */
export function findEntityIn(tx: Tx, appUuid: string, collection: string, id: string): EntityRow | undefined {
  if (isUuid(id)) {
    const row = findEntityByUuid(tx, appUuid, id);
    return row?.collection === collection ? row : undefined;
  }
  return findEntityByName(tx, appUuid, collection, id);
}

export function requireEntity(tx: Tx, appUuid: string, collection: string, id: string): EntityRow {
  const row = findEntityIn(tx, appUuid, collection, id);
  if (row === undefined) throw EntityNotFound(`${collection} '${id}' not found`, { fields: { entity: id } });
  return row;
}

/**
 * PUT merges `body` into the entity's properties: a key with `null` removes the property; the
 * system properties (uuid, type, created, modified, metadata) are never overwritten.
 */
export function updateEntityIn(tx: Tx, row: EntityRow, body: Properties, now: number): EntityRow {
  const rules = rulesOf(row.collection);
  const merged: Properties = { ...row.properties };
  for (const [key, value] of Object.entries(writableProperties(row.collection, body))) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  const { name, properties } = rules.normalize(merged, false);
  assertNameFree(tx, row.appUuid, row.collection, name, row.uuid);
  const updated = updateEntityRow(tx, row, properties, name, now);
  rules.afterWrite?.(tx, updated);
  return updated;
}

export async function updateEntity(deps: Deps, row: EntityRow, body: unknown): Promise<EntityRow> {
  const [properties] = entityBodies(body);
  if (Array.isArray(body)) throw IllegalArgument('PUT on an entity takes one JSON object', { fields: { body: 'must be a JSON object' } });
  return deps.db.transaction((tx) => updateEntityIn(tx, row, properties, deps.now()));
}

/** Deletes entities with their connections and whatever their collection keeps beside them. */
export function deleteEntitiesIn(tx: Tx, rows: readonly EntityRow[]): void {
  for (const row of rows) rulesOf(row.collection).beforeDelete?.(tx, row);
  deleteEntityRows(tx, rows.map((row) => row.uuid));
}

export async function deleteEntity(deps: Deps, row: EntityRow): Promise<void> {
  deps.db.transaction((tx) => deleteEntitiesIn(tx, [row]));
}

// The uuids go in as one JSON array, so one prepared statement serves a page of any size.
const relationsOf = preparedFor((db) => ({
  outgoing: db
    .selectDistinct({ uuid: connections.sourceUuid, relation: connections.relation })
    .from(connections)
    .where(sql`${connections.sourceUuid} in (select value from json_each(${sql.placeholder('uuids')}))`)
    .prepare(),
  incoming: db
    .selectDistinct({ uuid: connections.targetUuid, relation: connections.relation, sourceCollection: entities.collection })
    .from(connections)
    .innerJoin(entities, eq(entities.uuid, connections.sourceUuid))
    .where(sql`${connections.targetUuid} in (select value from json_each(${sql.placeholder('uuids')}))`)
    .prepare(),
}));

/** Rows with the relation names Usergrid shows in metadata, for a page of entities at once. */
export function describeEntities(tx: Tx, rows: readonly EntityRow[]): EntityDescription[] {
  if (rows.length === 0) return [];
  const uuids = JSON.stringify(rows.map((row) => row.uuid));
  const statements = relationsOf(tx);
  const outgoing = statements.outgoing.all({ uuids });
  const incoming = statements.incoming.all({ uuids });
  const collectionOf = new Map(rows.map((row) => [row.uuid, row.collection]));
  const group = (pairs: { uuid: string; relation: string }[]) => {
    const byUuid = new Map<string, Set<string>>();
    for (const { uuid, relation } of pairs) {
      const set = byUuid.get(uuid) ?? new Set<string>();
      set.add(relation);
      byUuid.set(uuid, set);
    }
    return byUuid;
  };
  const out = group(outgoing.filter(({ uuid, relation }) => !isOwnedRelation(collectionOf.get(uuid) ?? '', relation)));
  const into = group(incoming.filter(({ relation, sourceCollection }) => !isOwnedRelation(sourceCollection, relation)));
  return rows.map((row) => ({
    row,
    connections: [...(out.get(row.uuid) ?? [])].sort(),
    connecting: [...(into.get(row.uuid) ?? [])].sort(),
  }));
}
