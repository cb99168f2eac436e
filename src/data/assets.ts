/**
 * Files attached to entities, as Usergrid's assets (docs/api.md#assets): the bytes stream in and
 * out in pieces, never whole in memory, kept in the database (`asset_chunks`, so every instance
 * on one PostgreSQL database serves them) or, with `--assets-dir`, in a file named by the
 * asset's uuid. The entity carries what they are in its `file-metadata` property.
 *
 * An upload is written before the entity it belongs to (the request's other form fields may
 * follow the file), so it starts pending; attaching it to the entity is one transaction with the
 * entity's write, and whatever fails before then removes it again. What no entity holds any more
 * (deleted, replaced, or an upload cut off by a stopped server) is removed by
 * `removeUnlinkedAssets`, which also deletes the files a cascade cannot reach.
 */
import { createHash } from 'node:crypto';
import { mkdir, open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fileTypeFromBuffer } from 'file-type';
import type { Deps } from '../deps.js';
import type { Tx } from '../db/open.js';
import { Internal, PayloadTooLarge } from '../errors.js';
import { newUuid } from '../ids.js';
import {
  deleteAssetRow,
  findAssetChunk,
  findAssetOfEntity,
  findUnlinkedAssets,
  insertAssetChunk,
  insertPendingAsset,
  linkAsset,
  type AssetFacts,
  type AssetRow,
} from '../db/asset-store.js';
import { updateEntityRow, type EntityRow } from '../db/entity-store.js';

export type { AssetRow } from '../db/asset-store.js';

/** Bytes per row of `asset_chunks`: big enough that a 50 MiB file is 200 rows, small enough to hold one in memory per transfer. */
export const ASSET_CHUNK_SIZE = 256 * 1024;

/** The entity property that describes its asset, Usergrid's name. */
const FILE_METADATA = 'file-metadata';

/** What bytes that file-type does not recognize are served as: something to save, never to run. */
const UNKNOWN_TYPE = 'application/octet-stream';

// A day: far longer than any upload within the size limit takes, so only a server stopped in the
// middle of one leaves a pending asset this old.
const PENDING_TTL_MS = 24 * 3600 * 1000;
const SWEEP_BATCH = 100;

/** An asset whose bytes are all written, not attached yet. */
export interface StoredAsset extends AssetFacts {
  readonly uuid: string;
  readonly storage: AssetRow['storage'];
}

/** Where the bytes of one upload go. */
interface Sink {
  write(chunk: Buffer, seq: number): Promise<void>;
  finish(): Promise<void>;
  abort(): Promise<void>;
}

function databaseSink(deps: Deps, uuid: string): Sink {
  return {
    write: (chunk, seq) => insertAssetChunk(deps.db, uuid, seq, chunk),
    finish: async () => undefined,
    // Deleting the asset's row deletes its chunks.
    abort: async () => undefined,
  };
}

async function writeAll(handle: FileHandle, chunk: Buffer): Promise<void> {
  for (let offset = 0; offset < chunk.length;) offset += (await handle.write(chunk, offset)).bytesWritten;
}

/** A file written under a temporary name and renamed once complete, so no reader sees part of one. */
async function folderSink(dir: string, uuid: string): Promise<Sink> {
  await mkdir(dir, { recursive: true });
  const partial = join(dir, `${uuid}.part`);
  const handle = await open(partial, 'wx', 0o600);
  return {
    write: (chunk) => writeAll(handle, chunk),
    async finish() {
      await handle.sync();
      await handle.close();
      await rename(partial, join(dir, uuid));
    },
    async abort() {
      await handle.close().catch(() => undefined);
      await unlink(partial).catch(() => undefined);
    },
  };
}

/** The content type of bytes by what they begin with; never the type the uploader declared. */
async function sniffContentType(head: Buffer): Promise<string> {
  return (await fileTypeFromBuffer(head))?.mime ?? UNKNOWN_TYPE;
}

/**
 * Writes the bytes of `source` as a new pending asset, in chunks of ASSET_CHUNK_SIZE.
 * @throws 413 `payload_too_large` past `--max-asset-size`; whatever failed, nothing of the
 * asset is left behind.
 */
export async function storeAsset(deps: Deps, source: AsyncIterable<Uint8Array>): Promise<StoredAsset> {
  const { maxAssetSize, assetsDir } = deps.config;
  const uuid = newUuid();
  const storage = assetsDir === undefined ? 'database' : 'folder';
  await insertPendingAsset(deps.db, uuid, storage, deps.now());
  const hash = createHash('md5');
  let [size, seq, waiting, head] = [0, 0, [] as Buffer[], undefined as Buffer | undefined];
  let sink: Sink | undefined;
  try {
    sink = assetsDir === undefined ? databaseSink(deps, uuid) : await folderSink(assetsDir, uuid);
    const flush = async (chunk: Buffer) => {
      head ??= chunk;
      if (chunk.length > 0) await sink!.write(chunk, seq++);
    };
    let waitingSize = 0;
    for await (const piece of source) {
      size += piece.byteLength;
      if (size > maxAssetSize) throw PayloadTooLarge(`the file is larger than the limit of ${maxAssetSize} bytes`);
      const bytes = Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
      hash.update(bytes);
      waiting.push(bytes);
      waitingSize += bytes.length;
      while (waitingSize >= ASSET_CHUNK_SIZE) {
        const all = Buffer.concat(waiting);
        await flush(all.subarray(0, ASSET_CHUNK_SIZE));
        waiting = [all.subarray(ASSET_CHUNK_SIZE)];
        waitingSize -= ASSET_CHUNK_SIZE;
      }
    }
    await flush(Buffer.concat(waiting));
    await sink.finish();
    return { uuid, storage, size, checksum: hash.digest('hex'), contentType: await sniffContentType(head ?? Buffer.alloc(0)) };
  } catch (error) {
    await sink?.abort();
    await discardAsset(deps, { uuid, storage });
    throw error;
  }
}

/** Removes an asset and its bytes, wherever they are. */
export async function discardAsset(deps: Deps, asset: Pick<AssetRow, 'uuid' | 'storage'>): Promise<void> {
  if (asset.storage === 'folder' && deps.config.assetsDir !== undefined) {
    await unlink(join(deps.config.assetsDir, asset.uuid)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
  }
  await deleteAssetRow(deps.db, asset.uuid);
}

/**
 * Removes the assets no entity holds any more, with their bytes. Assets in a folder are left to
 * a server that has the folder.
 */
export async function removeUnlinkedAssets(deps: Deps): Promise<number> {
  let removed = 0;
  for (;;) {
    const rows = await findUnlinkedAssets(deps.db, deps.now() - PENDING_TTL_MS, SWEEP_BATCH);
    const removable = rows.filter((row) => row.storage === 'database' || deps.config.assetsDir !== undefined);
    for (const row of removable) await discardAsset(deps, row);
    removed += removable.length;
    if (rows.length < SWEEP_BATCH || removable.length === 0) return removed;
  }
}

/** Usergrid's description of an entity's asset (docs/api.md#assets). */
function fileMetadata(asset: AssetFacts, now: number): Record<string, unknown> {
  return {
    'content-type': asset.contentType,
    'content-length': asset.size,
    checksum: asset.checksum,
    etag: `"${asset.checksum}"`,
    'last-modified': now,
  };
}

/** Attaches the asset to the entity in place of the one it had, inside the caller's transaction. */
async function attachAssetIn(tx: Tx, row: EntityRow, asset: StoredAsset, now: number): Promise<EntityRow> {
  await linkAsset(tx, asset.uuid, row.uuid, asset);
  return await updateEntityRow(tx, row, { ...row.properties, [FILE_METADATA]: fileMetadata(asset, now) }, row.name, now);
}

/**
 * Runs `write` (which creates or updates one entity) and attaches `asset` to the entity it
 * returns, in one transaction; if anything fails the asset is removed, so a refused upload leaves
 * neither an entity nor bytes. The asset the entity had before is removed once this one is in.
 */
export async function attachingAsset(deps: Deps, asset: StoredAsset | undefined, write: () => Promise<EntityRow[]>): Promise<EntityRow[]> {
  if (asset === undefined) return await write();
  let rows: EntityRow[];
  try {
    rows = await deps.db.transaction(async (tx) => {
      const [row, ...others] = await write();
      return [await attachAssetIn(tx, row!, asset, deps.now()), ...others];
    });
  } catch (error) {
    await discardAsset(deps, asset);
    throw error;
  }
  await removeUnlinkedAssets(deps);
  return rows;
}

export function findAssetOf(deps: Deps, row: EntityRow): Promise<AssetRow | undefined> {
  return findAssetOfEntity(deps.db, row.uuid);
}

/** The bytes `start` to `end` (inclusive) of an asset in the database, a chunk at a time. */
async function* databaseBytes(deps: Deps, asset: AssetRow, start: number, end: number): AsyncGenerator<Uint8Array> {
  for (let seq = Math.floor(start / ASSET_CHUNK_SIZE); seq <= Math.floor(end / ASSET_CHUNK_SIZE); seq++) {
    const chunk = await findAssetChunk(deps.db, asset.uuid, seq);
    // Replaced or deleted while it was being read: the answer ends short, as a dropped connection would.
    if (chunk === undefined) throw new Error(`asset ${asset.uuid} has no chunk ${seq} any more`);
    const offset = seq * ASSET_CHUNK_SIZE;
    yield chunk.subarray(Math.max(0, start - offset), Math.min(chunk.length, end - offset + 1));
  }
}

/**
 * The bytes `start` to `end` (inclusive) of an asset, read as they are sent.
 * @throws 500 when the asset is in a folder this server was not given.
 */
export async function readAsset(deps: Deps, asset: AssetRow, start: number, end: number): Promise<AsyncIterable<Uint8Array>> {
  if (end < start) return Readable.from([]);
  if (asset.storage === 'database') return databaseBytes(deps, asset, start, end);
  if (deps.config.assetsDir === undefined) throw Internal('this asset is kept in a folder (--assets-dir) that this server was not given');
  const handle = await open(join(deps.config.assetsDir, asset.uuid), 'r');
  return handle.createReadStream({ start, end });
}
