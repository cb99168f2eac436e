/**
 * Writes to the test collection as the storage layer makes them — whole properties, one property
 * set or removed in SQL (push-store.ts), deletes, moves to another collection — and an UPDATE of
 * `created` in SQL, applied both to the database and to a model of what it holds, for the tests
 * of the derived tables (the property index, the word index) after any sequence of writes, one
 * after another or started together (`applyWritesTogether`).
 */
import type { QueryDatabase } from './database.js';
import { APP, COLLECTION } from './database.js';
import type { GeneratedEntity } from './arbitraries.js';
import { sql } from 'drizzle-orm';
import { execute } from '../../src/db/run.js';
import { insertEntity } from '../../src/db/entity-store.js';
import { TEST_DATABASE_URL } from '../database.js';

/** One write; `pick` chooses among the stored entities (modulo their count). */
export type Write =
  | { kind: 'insert'; entity: GeneratedEntity }
  | { kind: 'replace'; pick: number; properties: Record<string, unknown> }
  | { kind: 'set'; pick: number; key: string; value: unknown }
  | { kind: 'remove'; pick: number; key: string }
  | { kind: 'delete'; pick: number }
  | { kind: 'move'; pick: number }
  | { kind: 'date'; pick: number; created: number };

/** The model: uuid → entity, with the collection it is in (COLLECTION or `cats`). */
export type StoredEntities = Map<string, { entity: GeneratedEntity; collection: string }>;

const postgres = TEST_DATABASE_URL !== undefined;
const jsonPath = (key: string): string => (postgres ? `{${key}}` : `$.${key}`);
const setProperty = (key: string, value: unknown) =>
  postgres
    ? sql`jsonb_set(properties, CAST(${jsonPath(key)} AS text[]), CAST(${JSON.stringify(value)} AS jsonb))`
    : sql`json_set(properties, ${jsonPath(key)}, json(${JSON.stringify(value)}))`;
const removeProperty = (key: string) => (postgres ? sql`properties #- CAST(${jsonPath(key)} AS text[])` : sql`json_remove(properties, ${jsonPath(key)})`);

/** Empties the test collection and `cats`, and returns an empty model. */
export async function emptyCollections(database: QueryDatabase): Promise<StoredEntities> {
  await database.replaceEntities([]);
  await execute(database.handle.db, sql`DELETE FROM entities WHERE app_uuid = ${APP} AND collection = 'cats'`);
  return new Map();
}

export async function applyWrite(database: QueryDatabase, write: Write, stored: StoredEntities): Promise<void> {
  await planWrite(database, write, stored, false)?.();
}

/**
 * What `write` does to the database, to run, with the model changed at once as it will be (the
 * entity picked among `stored` as they are now); undefined when it does nothing. `together`: an
 * insert is a create on its own (see applyWritesTogether), anything else a transaction of its own.
 */
function planWrite(database: QueryDatabase, write: Write, stored: StoredEntities, together: boolean): (() => Promise<unknown>) | undefined {
  const { db } = database.handle;
  const uuids = [...stored.keys()];
  const picked = write.kind === 'insert' || uuids.length === 0 ? undefined : uuids[write.pick % uuids.length];
  const current = picked === undefined ? undefined : stored.get(picked)!;
  const run = (statement: () => Promise<unknown>) => (together ? () => db.transaction(statement) : statement);
  const update = (properties: Record<string, unknown>): void => {
    const { uuid, type, created, modified } = current!.entity.record;
    stored.set(picked!, { ...current!, entity: { properties, record: { ...properties, uuid, type, created, modified } } });
  };
  switch (write.kind) {
    case 'insert': {
      const { record, properties } = write.entity;
      if (stored.has(record.uuid)) return undefined;
      if (!together) {
        stored.set(record.uuid, { entity: write.entity, collection: COLLECTION });
        return () => database.insertEntity(write.entity);
      }
      const now = record.created;
      stored.set(record.uuid, { entity: { properties, record: { ...record, modified: now } }, collection: COLLECTION });
      return () => insertEntity(db, { appUuid: APP, collection: COLLECTION, type: record.type, collectionStored: true, properties, now, uuid: record.uuid });
    }
    case 'replace':
      if (current === undefined) return undefined;
      update(write.properties);
      return run(() => execute(db, sql`UPDATE entities SET properties = ${JSON.stringify(write.properties)} WHERE uuid = ${picked}`));
    case 'set':
      if (current === undefined) return undefined;
      update({ ...current.entity.properties, [write.key]: write.value });
      return run(() => execute(db, sql`UPDATE entities SET properties = ${setProperty(write.key, write.value)} WHERE uuid = ${picked}`));
    case 'remove': {
      if (current === undefined) return undefined;
      const rest = { ...current.entity.properties };
      delete rest[write.key];
      update(rest);
      return run(() => execute(db, sql`UPDATE entities SET properties = ${removeProperty(write.key)} WHERE uuid = ${picked}`));
    }
    case 'delete':
      if (current === undefined) return undefined;
      stored.delete(picked!);
      return run(() => database.deleteEntity(picked!));
    case 'move': {
      if (current === undefined) return undefined;
      const collection = current.collection === COLLECTION ? 'cats' : COLLECTION;
      stored.set(picked!, { ...current, collection });
      return run(() => execute(db, sql`UPDATE entities SET collection = ${collection} WHERE uuid = ${picked}`));
    }
    case 'date': {
      if (current === undefined) return undefined;
      const { entity } = current;
      stored.set(picked!, { ...current, entity: { ...entity, record: { ...entity.record, created: write.created } } });
      return run(() => execute(db, sql`UPDATE entities SET created = ${write.created} WHERE uuid = ${picked}`));
    }
  }
}

/**
 * `writes` started together, as requests arriving at once make them: each insert as a create on
 * its own (entity-store.ts `insertEntity` outside a transaction: on SQLite a unit of a group commit
 * whose indexing waits for the end of its group, docs/design.md#indexing-at-the-end-of-a-group; on
 * PostgreSQL create batching), every other write in a transaction of its own. SQLite runs the units
 * of a group in the order they started, so a write may follow another on the same entity; on
 * PostgreSQL they run side by side on pooled connections, so a write is left out there when an
 * earlier one of the batch touched its entity.
 */
export async function applyWritesTogether(database: QueryDatabase, writes: readonly Write[], stored: StoredEntities): Promise<void> {
  const touched = new Set<string>();
  const started: Promise<unknown>[] = [];
  for (const write of writes) {
    const before = new Map(stored);
    const run = planWrite(database, write, stored, true);
    if (run === undefined) continue;
    const changed = [...new Set([...before.keys(), ...stored.keys()])].filter((uuid) => before.get(uuid) !== stored.get(uuid));
    if (postgres && changed.some((uuid) => touched.has(uuid))) {
      stored.clear();
      for (const [uuid, entry] of before) stored.set(uuid, entry);
      continue;
    }
    for (const uuid of changed) touched.add(uuid);
    started.push(run());
  }
  await Promise.all(started);
}
