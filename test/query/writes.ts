/**
 * Writes to the test collection as the storage layer makes them — whole properties, one property
 * set or removed in SQL (push-store.ts), deletes, moves to another collection — applied both to
 * the database and to a model of what it holds, for the tests of the derived tables (the
 * property index, the word index) after any sequence of writes.
 */
import type { QueryDatabase } from './database.js';
import { APP, COLLECTION } from './database.js';
import type { GeneratedEntity } from './arbitraries.js';
import { TEST_DATABASE_URL } from '../database.js';

/** One write; `pick` chooses among the stored entities (modulo their count). */
export type Write =
  | { kind: 'insert'; entity: GeneratedEntity }
  | { kind: 'replace'; pick: number; properties: Record<string, unknown> }
  | { kind: 'set'; pick: number; key: string; value: unknown }
  | { kind: 'remove'; pick: number; key: string }
  | { kind: 'delete'; pick: number }
  | { kind: 'move'; pick: number };

/** The model: uuid → entity, with the collection it is in (COLLECTION or `cats`). */
export type StoredEntities = Map<string, { entity: GeneratedEntity; collection: string }>;

const postgres = TEST_DATABASE_URL !== undefined;
const setProperty = postgres ? `jsonb_set(properties, CAST(? AS text[]), CAST(? AS jsonb))` : `json_set(properties, ?, json(?))`;
const removeProperty = postgres ? `properties #- CAST(? AS text[])` : `json_remove(properties, ?)`;
const jsonPath = (key: string): string => (postgres ? `{${key}}` : `$.${key}`);

/** Empties the test collection and `cats`, and returns an empty model. */
export async function emptyCollections(database: QueryDatabase): Promise<StoredEntities> {
  await database.replaceEntities([]);
  await database.handle.driver.run('DELETE FROM entities WHERE app_uuid = ? AND collection = ?', [APP, 'cats']);
  return new Map();
}

export async function applyWrite(database: QueryDatabase, write: Write, stored: StoredEntities): Promise<void> {
  const driver = database.handle.driver;
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
      await driver.run('UPDATE entities SET properties = ? WHERE uuid = ?', [JSON.stringify(write.properties), picked]);
      update(write.properties);
      return;
    case 'set':
      if (current === undefined) return;
      await driver.run(`UPDATE entities SET properties = ${setProperty} WHERE uuid = ?`, [jsonPath(write.key), JSON.stringify(write.value), picked]);
      update({ ...current.entity.properties, [write.key]: write.value });
      return;
    case 'remove': {
      if (current === undefined) return;
      await driver.run(`UPDATE entities SET properties = ${removeProperty} WHERE uuid = ?`, [jsonPath(write.key), picked]);
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
      await driver.run('UPDATE entities SET collection = ? WHERE uuid = ?', [collection, picked]);
      stored.set(picked!, { ...current, collection });
      return;
    }
  }
}
