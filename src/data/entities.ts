/**
 * Entities of an application's collections (POST /{org}/{app}/{entitytype}, GET/PUT/DELETE
 * …/{collection}/{entityId}; docs/api.md#entities). Every write runs in one transaction, so a
 * request that fails on its tenth entity stores none of them.
 */
import { remembered, type Tx, schemaOf } from '../db/open.js';
import { AppError, EntityNotFound, IllegalArgument, DuplicateUniqueProperty } from '../errors.js';
import { isUuid } from '../ids.js';
import type { Deps } from '../deps.js';
import {
  deleteEntityRows,
  findEntityByName,
  findEntityByUuid,
  findRelationNames,
  insertEntities,
  insertEntity,
  updateEntityRow,
  type EntityRow,
  type NewEntity,
} from '../db/entity-store.js';
import { rulesOf, SYSTEM_PROPERTIES, type Properties } from './rules.js';
import { isOwnedRelation } from './relations.js';
import { oneStatement } from '../db/run.js';

export type { EntityRow } from '../db/entity-store.js';

export interface CollectionRef {
  /** Plural, lower-case: `dogs`. */
  readonly name: string;
  /** Singular: `dog`. */
  readonly type: string;
  /** True when read from the application's collections: its row exists, and writes need not add it. */
  readonly stored?: boolean;
}

/** An entity with the relations Usergrid lists in its metadata. */
export interface EntityDescription {
  readonly row: EntityRow;
  /** Relations from this entity to others (`metadata.connections`). */
  readonly connections: readonly string[];
  /** Relations from others to this entity (`metadata.connecting`). */
  readonly connecting: readonly string[];
}

// Text neither database keeps: PostgreSQL's text and jsonb refuse NUL, and JSON text with a lone
// surrogate is not valid UTF-8. Refused on both databases alike.
// String.prototype.isWellFormed (ES2024, in Node 20) finds lone surrogates without a regex.
const unstorable = (text: string): boolean => text.includes('\u0000') || !(text as string & { isWellFormed(): boolean }).isWellFormed();

/** Whether a value holds unstorable text anywhere inside it, in a name or a string. */
function holdsUnstorable(value: unknown): boolean {
  // A stack of its own rather than recursion: no nesting, however deep, overflows the call stack.
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next === 'string') {
      if (unstorable(next)) return true;
    } else if (typeof next === 'object' && next !== null) {
      for (const [key, inner] of Object.entries(next)) {
        if (unstorable(key)) return true;
        pending.push(inner);
      }
    }
  }
  return false;
}

/** The top-level property whose value (or name) holds unstorable text, anywhere inside it. */
function unstorableText(item: object): string | undefined {
  return Object.entries(item).find(([key, value]) => unstorable(key) || holdsUnstorable(value))?.[0];
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
    const bad = unstorableText(item);
    if (bad !== undefined) {
      throw IllegalArgument(`'${bad}' holds text that cannot be stored: a NUL character or a lone surrogate`, { fields: { [bad]: 'NUL or lone surrogate' } });
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

function nameTaken(collection: string, name: string) {
  const field = rulesOf(collection).nameProperty;
  return DuplicateUniqueProperty(`${collection} already has an entity with ${field} '${name}'`, { fields: { [field]: 'already taken' } });
}

const NAME_INDEX = 'entities_app_collection_name';

/**
 * Whether the unique index of names refused a write: PostgreSQL's unique_violation on that index,
 * or SQLite's UNIQUE failure on its columns, maybe under drizzle's error. The index decides
 * alone, with no lookup before the write: on PostgreSQL a lookup would make concurrent creates
 * in one collection conflict (serializable transactions that read and then write the same index
 * page abort each other), and on SQLite it was one more statement per entity written.
 */
function isNameClash(error: unknown): boolean {
  const cause =
    (error as { cause?: { code?: unknown; constraint?: unknown; message?: unknown } }).cause ??
    (error as { code?: unknown; constraint?: unknown; message?: unknown });
  if (cause?.code === '23505') return cause.constraint === NAME_INDEX;
  return cause?.code === 'SQLITE_CONSTRAINT_UNIQUE' && String(cause.message).includes('entities.name_key');
}

/** `write`, with a clash on the unique index of names answered as a taken name. */
export async function claimingName<T>(collection: string, name: string | null, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (name !== null && isNameClash(error)) throw nameTaken(collection, name);
    throw error;
  }
}

/** The new entity of `collection` that request properties make, normalized by its collection's rules. */
export function newEntityOf(appUuid: string, collection: CollectionRef, body: Properties, now: number, uuid?: string): NewEntity {
  const rules = rulesOf(collection.name);
  const { name, properties } = rules.normalize(writableProperties(collection.name, body), true);
  return {
    appUuid,
    collection: collection.name,
    type: collection.type,
    collectionStored: collection.stored,
    name,
    nameProperty: rules.nameProperty,
    properties,
    now,
    uuid,
  };
}

/** Inserts one entity of `collection` from request properties (inside the caller's transaction). */
export async function insertEntityFromBody(
  tx: Tx,
  appUuid: string,
  collection: CollectionRef,
  body: Properties,
  now: number,
  uuid?: string,
): Promise<EntityRow> {
  const entity = newEntityOf(appUuid, collection, body, now, uuid);
  const row = await claimingName(collection.name, entity.name ?? null, () => insertEntity(tx, entity));
  await rulesOf(collection.name).afterWrite?.(tx, row);
  return row;
}

export async function createEntities(deps: Deps, appUuid: string, collection: CollectionRef, body: unknown): Promise<EntityRow[]> {
  const items = entityBodies(body);
  if (items.length === 1 && collection.stored && rulesOf(collection.name).afterWrite === undefined) {
    // Nothing but the entity's insert.
    return [await oneStatement(deps.db, (tx) => insertEntityFromBody(tx, appUuid, collection, items[0], deps.now()))];
  }
  if (items.length > 1 && rulesOf(collection.name).afterWrite === undefined) {
    // The bulk path (insertEntities): the entities in statements of many. A request it refuses
    // (a name taken, a property refused) is rolled back whole and run again entity by entity
    // below, which refuses it for the same first entity the plain path names.
    try {
      return await deps.db.transaction(async (tx) => {
        const now = deps.now();
        return await insertEntities(
          tx,
          items.map((item) => newEntityOf(appUuid, collection, item, now)),
        );
      });
    } catch (error) {
      if (!(error instanceof AppError) && !isNameClash(error)) throw error;
    }
  }
  return await deps.db.transaction(async (tx) => {
    const now = deps.now();
    const rows: EntityRow[] = [];
    for (const item of items) rows.push(await insertEntityFromBody(tx, appUuid, collection, item, now));
    return rows;
  });
}

/** An entity of `collection` by uuid or by name (case-insensitive). */
export async function findEntityIn(tx: Tx, appUuid: string, collection: string, id: string): Promise<EntityRow | undefined> {
  if (isUuid(id)) {
    const row = await findEntityByUuid(tx, appUuid, id);
    return row?.collection === collection ? row : undefined;
  }
  return findEntityByName(tx, appUuid, collection, id);
}

export async function requireEntity(tx: Tx, appUuid: string, collection: string, id: string): Promise<EntityRow> {
  const row = await findEntityIn(tx, appUuid, collection, id);
  if (row === undefined) throw EntityNotFound(`${collection} '${id}' not found`, { fields: { entity: id } });
  return row;
}

/**
 * PUT merges `body` into the entity's properties: a key with `null` removes the property; the
 * system properties (uuid, type, created, modified, metadata) are never overwritten.
 */
export async function updateEntityIn(tx: Tx, row: EntityRow, body: Properties, now: number): Promise<EntityRow> {
  const rules = rulesOf(row.collection);
  const merged: Properties = { ...row.properties };
  for (const [key, value] of Object.entries(writableProperties(row.collection, body))) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  const { name, properties } = rules.normalize(merged, false);
  const updated = await claimingName(row.collection, name, () => updateEntityRow(tx, row, properties, name, now));
  await rules.afterWrite?.(tx, updated);
  return updated;
}

export async function updateEntity(deps: Deps, row: EntityRow, body: unknown): Promise<EntityRow> {
  const [properties] = entityBodies(body);
  if (Array.isArray(body)) throw IllegalArgument('PUT on an entity takes one JSON object', { fields: { body: 'must be a JSON object' } });
  return await deps.db.transaction(async (tx) => updateEntityIn(tx, row, properties, deps.now()));
}

/**
 * The body of a PUT that creates the entity its path names (Usergrid's upsert by name): one
 * object, named by the path whatever the body says.
 */
export function namedEntityBody(collection: string, body: unknown, name: string): Properties {
  const [properties] = entityBodies(body);
  if (Array.isArray(body)) throw IllegalArgument('PUT on an entity takes one JSON object', { fields: { body: 'must be a JSON object' } });
  return { ...properties, [rulesOf(collection).nameProperty]: name };
}

/** Deletes entities with their connections and whatever their collection keeps beside them. */
export async function deleteEntitiesIn(tx: Tx, rows: readonly EntityRow[]): Promise<void> {
  for (const row of rows) await rulesOf(row.collection).beforeDelete?.(tx, row);
  await deleteEntityRows(
    tx,
    rows.map((row) => row.uuid),
  );
}

export async function deleteEntity(deps: Deps, row: EntityRow): Promise<void> {
  await deps.db.transaction(async (tx) => deleteEntitiesIn(tx, [row]));
}

/**
 * Rows a request has just inserted, under uuids made for them, described without a query: no
 * connection can touch them yet, since connections are made only between entities that exist.
 */
export function describeCreated(rows: readonly EntityRow[]): EntityDescription[] {
  return rows.map((row) => ({ row, connections: [], connecting: [] }));
}

/** The relation names Usergrid shows in an entity's metadata. */
type Relations = Pick<EntityDescription, 'connections' | 'connecting'>;

/** The relations of each of `rows`, by uuid, in one query. */
async function readRelations(tx: Tx, rows: readonly EntityRow[]): Promise<Map<string, Relations>> {
  const relations = await findRelationNames(
    tx,
    rows.map((row) => row.uuid),
  );
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
  const out = group(relations.filter(({ outgoing, uuid, relation }) => outgoing === 1 && !isOwnedRelation(collectionOf.get(uuid) ?? '', relation)));
  const into = group(relations.filter(({ outgoing, relation, sourceCollection }) => outgoing !== 1 && !isOwnedRelation(sourceCollection ?? '', relation)));
  return new Map(rows.map((row) => [row.uuid, { connections: [...(out.get(row.uuid) ?? [])].sort(), connecting: [...(into.get(row.uuid) ?? [])].sort() }]));
}

/** Rows with the relation names Usergrid shows in metadata, for a page of entities at once. */
export async function describeEntities(tx: Tx, rows: readonly EntityRow[]): Promise<EntityDescription[]> {
  const { connections } = schemaOf(tx);
  if (rows.length === 0) return [];
  if (rows.length === 1) {
    // One entity's relations (a GET of it, the answer to a PUT) are remembered until a connection
    // changes: the collection of a connection's source never changes, and deleting an entity
    // deletes its connections.
    const row = rows[0]!;
    const relations = await remembered(tx, `relations:${row.uuid}`, [connections], async () => (await readRelations(tx, rows)).get(row.uuid)!);
    return [{ row, ...relations }];
  }
  const relations = await readRelations(tx, rows);
  return rows.map((row) => ({ row, ...relations.get(row.uuid)! }));
}
