/**
 * The lowest layer of entity storage, shared by every module that writes entities (data API,
 * default roles of a new application, fixtures). Keeps the rule that `name` lives both in its
 * column (for uniqueness and lookup) and in `properties` (for queries) in one place.
 */
import { and, eq } from 'drizzle-orm';
import { entities } from '../db/schema.js';
import { newUuid } from '../ids.js';
import type { Tx } from '../deps.js';

export type EntityRow = typeof entities.$inferSelect;

export interface NewEntity {
  appUuid: string;
  collection: string;
  type: string;
  name?: string | null;
  properties: Record<string, unknown>;
  now: number;
  uuid?: string;
}

export function nameKeyOf(name: string | null | undefined): string | null {
  return name === undefined || name === null ? null : name.toLowerCase();
}

export function insertEntity(tx: Tx, entity: NewEntity): EntityRow {
  const name = entity.name ?? null;
  const row: EntityRow = {
    uuid: entity.uuid ?? newUuid(),
    appUuid: entity.appUuid,
    collection: entity.collection,
    type: entity.type,
    name,
    nameKey: nameKeyOf(name),
    properties: name === null ? entity.properties : { ...entity.properties, name },
    created: entity.now,
    modified: entity.now,
  };
  tx.insert(entities).values(row).run();
  return row;
}

export function findEntityByName(tx: Tx, appUuid: string, collection: string, name: string): EntityRow | undefined {
  return tx
    .select()
    .from(entities)
    .where(and(eq(entities.appUuid, appUuid), eq(entities.collection, collection), eq(entities.nameKey, name.toLowerCase())))
    .get();
}
