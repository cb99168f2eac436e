/**
 * Writes to the test collection as the storage layer makes them — whole properties, one property
 * set or removed in SQL (push-store.ts), deletes, moves to another collection — and an UPDATE of
 * `created` in SQL, applied both to the database and to a model of what it holds, for the tests
 * of the derived tables (the property index, the word index) after any sequence of writes.
 */
import type { QueryDatabase } from './database.js';
import { APP, COLLECTION } from './database.js';
import type { GeneratedEntity } from './arbitraries.js';
import { sql } from 'drizzle-orm';
import { execute } from '../../src/db/run.js';
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
  const { db } = database.handle;
  const uuids = [...stored.keys()];
  const picked = write.kind === 'insert' || uuids.length === 0 ? undefined : uuids[write.pick % uuids.length];
  const current = picked === undefined ? undefined : stored.get(picked)!;
  const update = (properties: Record<string, unknown>): void => {
    const { uuid, type, created, modified } = current!.entity.record;
    stored.set(picked!, { ...current!, entity: { properties, record: { ...properties, uuid, type, created, modified } } });
  };
  switch (write.kind) {
    case 'insert':
      if (stored.has(write.entity.record.uuid)) return;
      await database.insertEntity(write.entity);
      stored.set(write.entity.record.uuid, { entity: write.entity, collection: COLLECTION });
      return;
    case 'replace':
      if (current === undefined) return;
      await execute(db, sql`UPDATE entities SET properties = ${JSON.stringify(write.properties)} WHERE uuid = ${picked}`);
      update(write.properties);
      return;
    case 'set':
      if (current === undefined) return;
      await execute(db, sql`UPDATE entities SET properties = ${setProperty(write.key, write.value)} WHERE uuid = ${picked}`);
      update({ ...current.entity.properties, [write.key]: write.value });
      return;
    case 'remove': {
      if (current === undefined) return;
      await execute(db, sql`UPDATE entities SET properties = ${removeProperty(write.key)} WHERE uuid = ${picked}`);
      const rest = { ...current.entity.properties };
      delete rest[write.key];
      update(rest);
      return;
    }
    case 'delete':
      if (current === undefined) return;
      await database.deleteEntity(picked!);
      stored.delete(picked!);
      return;
    case 'move': {
      if (current === undefined) return;
      const collection = current.collection === COLLECTION ? 'cats' : COLLECTION;
      await execute(db, sql`UPDATE entities SET collection = ${collection} WHERE uuid = ${picked}`);
      stored.set(picked!, { ...current, collection });
      return;
    }
    case 'date': {
      if (current === undefined) return;
      await execute(db, sql`UPDATE entities SET created = ${write.created} WHERE uuid = ${picked}`);
      const { entity } = current;
      stored.set(picked!, { ...current, entity: { ...entity, record: { ...entity.record, created: write.created } } });
      return;
    }
  }
}
