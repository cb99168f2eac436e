/**
 * A collection's settings (docs/api.md#collection-settings), read and changed by the
 * application's administrators at `/{org}/{app}/{collection}/_settings`: `unindexed`, the
 * property paths the property index leaves out (large blobs, say), each with every path below
 * it. Queries on them still answer, by reading the collection (docs/design.md#the-property-index).
 */
import type { Deps } from '../deps.js';
import { IllegalArgument } from '../errors.js';
import { findUnindexedPaths, replaceUnindexedPaths } from '../db/property-index-store.js';
import { requireCollection } from './collections.js';
import { INDEXED_DEPTH, INDEXED_PATH_LENGTH, isIndexedPath } from './query/properties.js';

export interface CollectionSettings {
  readonly unindexed: readonly string[];
}

/** A bound on what one write re-indexes or deletes. */
const MAX_UNINDEXED = 100;

/** @throws AppError `entity_not_found` (404) when the collection does not exist. */
export async function readCollectionSettings(deps: Pick<Deps, 'db'>, appUuid: string, segment: string): Promise<CollectionSettings> {
  const collection = await requireCollection(deps.db, appUuid, segment);
  return { unindexed: await findUnindexedPaths(deps.db, appUuid, collection.name) };
}

/**
 * Replaces the settings `body` names, in one transaction with the index rows they add or remove.
 * @throws AppError `illegal_argument` (400) for a malformed body, `entity_not_found` (404).
 */
export async function changeCollectionSettings(deps: Pick<Deps, 'db'>, appUuid: string, segment: string, body: unknown): Promise<CollectionSettings> {
  const settings = parseSettings(body);
  return await deps.db.transaction(async (tx) => {
    const collection = await requireCollection(tx, appUuid, segment);
    await replaceUnindexedPaths(tx, appUuid, collection.name, settings.unindexed);
    return settings;
  });
}

function parseSettings(body: unknown): CollectionSettings {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw IllegalArgument('the settings body must be a JSON object', { fields: { body: 'not an object' } });
  const unknown = Object.keys(body).filter((key) => key !== 'unindexed');
  if (unknown.length > 0) throw IllegalArgument(`unknown collection setting '${unknown[0]}'`, { fields: { [unknown[0]]: 'not a setting' } });
  const paths = (body as { unindexed?: unknown }).unindexed ?? [];
  if (!Array.isArray(paths) || paths.length > MAX_UNINDEXED) {
    throw IllegalArgument(`unindexed must be an array of at most ${MAX_UNINDEXED} property paths`, { fields: { unindexed: 'not an array of paths' } });
  }
  paths.forEach((path: unknown, i) => {
    if (typeof path !== 'string' || !isIndexedPath(path)) {
      throw IllegalArgument(
        `unindexed[${i}] is not a property path the index holds: identifiers joined by dots, at most ${INDEXED_DEPTH} deep and ${INDEXED_PATH_LENGTH} characters`,
        {
          fields: { unindexed: 'not a property path' },
        },
      );
    }
  });
  return { unindexed: [...new Set(paths as string[])].sort() };
}
