/**
 * Files attached to entities (docs/api.md#assets): one row per stored file, its bytes either in
 * `asset_chunks` (the default, so every instance on one PostgreSQL database reads them) or in a
 * file of `--assets-dir` named by the asset's uuid.
 */
import { sql } from 'drizzle-orm';
import { sqliteTable, text, integer, blob, primaryKey, index } from 'drizzle-orm/sqlite-core';
import { entities } from './schema-core.js';

/**
 * An asset is written before the entity it belongs to is (the upload streams in first), so it
 * starts `pending`, without an entity; attaching it links the entity and records what the bytes
 * turned out to be. Deleting the entity unlinks the asset (`set null`), and a sweep removes
 * unlinked assets with their bytes: the bytes of a folder cannot be removed by a cascade.
 */
export const assets = sqliteTable(
  'assets',
  {
    uuid: text('uuid').primaryKey(),
    entityUuid: text('entity_uuid').references(() => entities.uuid, { onDelete: 'set null' }),
    state: text('state', { enum: ['pending', 'attached'] }).notNull(),
    storage: text('storage', { enum: ['database', 'folder'] }).notNull(),
    contentType: text('content_type').notNull(),
    size: integer('size').notNull(),
    /** MD5 of the bytes, hex, as Usergrid's `file-metadata.checksum`. */
    checksum: text('checksum').notNull(),
    created: integer('created').notNull(),
  },
  (t) => [
    index('assets_entity').on(t.entityUuid),
    index('assets_unlinked')
      .on(t.state, t.created)
      .where(sql`${t.entityUuid} is null`),
  ],
);

/** The bytes of an asset kept in the database, in pieces of ASSET_CHUNK_SIZE (the last one shorter). */
export const assetChunks = sqliteTable(
  'asset_chunks',
  {
    assetUuid: text('asset_uuid')
      .notNull()
      .references(() => assets.uuid, { onDelete: 'cascade' }),
    seq: integer('seq').notNull(),
    data: blob('data', { mode: 'buffer' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.assetUuid, t.seq] })],
);
