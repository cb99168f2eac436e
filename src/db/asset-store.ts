/**
 * The rows of assets and of the bytes kept in the database (schema-assets.ts); what they mean
 * is decided in src/data/assets.ts.
 */
import { and, eq, isNull, lt, ne, or } from 'drizzle-orm';
import { type Tx, schemaOf } from './open.js';
import type { assets } from './schema.js';

export type AssetRow = typeof assets.$inferSelect;

/** What the bytes of an asset turned out to be, known once they are all written. */
export interface AssetFacts {
  readonly contentType: string;
  readonly size: number;
  readonly checksum: string;
}

/** Records an asset whose bytes are about to be written, linked to no entity yet. */
export async function insertPendingAsset(tx: Tx, uuid: string, storage: AssetRow['storage'], now: number): Promise<void> {
  const { assets } = schemaOf(tx);
  await tx.insert(assets).values({ uuid, entityUuid: null, state: 'pending', storage, contentType: '', size: 0, checksum: '', created: now });
}

export async function insertAssetChunk(tx: Tx, assetUuid: string, seq: number, data: Buffer): Promise<void> {
  const { assetChunks } = schemaOf(tx);
  await tx.insert(assetChunks).values({ assetUuid, seq, data });
}

export async function findAssetChunk(tx: Tx, assetUuid: string, seq: number): Promise<Buffer | undefined> {
  const { assetChunks } = schemaOf(tx);
  const [row] = await tx
    .select({ data: assetChunks.data })
    .from(assetChunks)
    .where(and(eq(assetChunks.assetUuid, assetUuid), eq(assetChunks.seq, seq)));
  return row?.data;
}

export async function findAssetOfEntity(tx: Tx, entityUuid: string): Promise<AssetRow | undefined> {
  const { assets } = schemaOf(tx);
  const [row] = await tx
    .select()
    .from(assets)
    .where(and(eq(assets.entityUuid, entityUuid), eq(assets.state, 'attached')))
    .limit(1);
  return row;
}

/**
 * Links the asset to the entity with what its bytes are, and unlinks the asset the entity had
 * before (the sweep removes it, `findUnlinkedAssets`).
 */
export async function linkAsset(tx: Tx, assetUuid: string, entityUuid: string, facts: AssetFacts): Promise<void> {
  const { assets } = schemaOf(tx);
  await tx
    .update(assets)
    .set({ entityUuid: null })
    .where(and(eq(assets.entityUuid, entityUuid), ne(assets.uuid, assetUuid)));
  await tx
    .update(assets)
    .set({ entityUuid, state: 'attached', contentType: facts.contentType, size: facts.size, checksum: facts.checksum })
    .where(eq(assets.uuid, assetUuid));
}

/**
 * Assets no entity holds: those whose entity was deleted or given another asset, and uploads
 * still pending since before `pendingBefore` (a server stopped in the middle of one).
 */
export async function findUnlinkedAssets(tx: Tx, pendingBefore: number, limit: number): Promise<AssetRow[]> {
  const { assets } = schemaOf(tx);
  return await tx
    .select()
    .from(assets)
    .where(and(isNull(assets.entityUuid), or(eq(assets.state, 'attached'), lt(assets.created, pendingBefore))))
    .limit(limit);
}

/** Deletes an asset's row, and with it (cascade) the bytes kept in the database. */
export async function deleteAssetRow(tx: Tx, uuid: string): Promise<void> {
  const { assets } = schemaOf(tx);
  await tx.delete(assets).where(eq(assets.uuid, uuid));
}
