/**
 * The bulk import of a collection (POST of `application/x-ndjson`, docs/api.md#bulk-import): a
 * stream of entity bodies, one per line, stored in batches of their own transactions
 * (db/entity-import-store.ts), each validated as an entity of a POSTed array is. A refused line
 * ends the import: the batches before it stay stored, nothing of its own batch is, and the error
 * says where to resume.
 */
import type { Deps } from '../deps.js';
import { AppError, IllegalArgument } from '../errors.js';
import { insertEntity, type NewEntity } from '../db/entity-store.js';
import { importBatchSize, insertEntityBatch } from '../db/entity-import-store.js';
import { claimingName, entityBodies, newEntityOf, type CollectionRef } from './entities.js';
import { rulesOf } from './rules.js';

/** One non-blank line of the stream: its number (from 1), its size, and its parsed JSON or why it was refused. */
export type ImportLine = { readonly line: number; readonly size: number } & ({ readonly body: unknown } | { readonly error: AppError });

export interface ImportResult {
  /** Entities stored. */
  readonly stored: number;
  /** Lines read, blank ones included. */
  readonly lines: number;
}

/**
 * Bytes of JSON text a batch holds at most, besides its count of entities (config.ts
 * `importBatch`): large entities make smaller batches, so a batch's memory stays bounded.
 */
const BATCH_BYTES = 32 * 1024 * 1024;

/** The batch being filled: its entities, the line of each, and their size. */
interface Batch {
  entities: NewEntity[];
  lines: number[];
  bytes: number;
}

/**
 * Refuses an import into `collection`, for `why`: a collection whose writes do more than store
 * the entity (users' sign-in names, events' counters) takes POSTs of JSON arrays only.
 */
export function refuseImportInto(collection: string, why: string): never {
  throw IllegalArgument(`${collection} cannot be imported (${why}): POST them as JSON arrays instead`, { fields: { collection: 'not importable' } });
}

/**
 * Stores the entities of `lines` in `collection`, a batch at a time.
 * @throws the refusal of the first line refused (as a POST of that entity would be refused), with
 * the line, the entities stored and the line to resume from named in its message and `fields`.
 */
export async function importEntities(deps: Deps, appUuid: string, collection: CollectionRef, lines: AsyncIterable<ImportLine>): Promise<ImportResult> {
  if (rulesOf(collection.name).afterWrite !== undefined) refuseImportInto(collection.name, 'its writes do more than store entities');
  const batchSize = importBatchSize(deps.db, deps.config.importBatch);
  let stored = 0;
  let lastLine = 0;
  let batch: Batch = { entities: [], lines: [], bytes: 0 };
  const flush = async () => {
    if (batch.entities.length === 0) return;
    const refusal = await storeBatch(deps, collection, batch.entities);
    if (refusal !== undefined) throw refusedAt(refusal.error, batch.lines[refusal.index], stored, batch.lines[0]);
    stored += batch.entities.length;
    batch = { entities: [], lines: [], bytes: 0 };
  };
  for await (const item of lines) {
    lastLine = item.line;
    if ('error' in item) throw refusedAt(item.error, item.line, stored, batch.lines[0] ?? item.line);
    let entity: NewEntity;
    try {
      entity = newEntityOf(appUuid, collection, oneObject(item.body), deps.now());
    } catch (error) {
      if (error instanceof AppError) throw refusedAt(error, item.line, stored, batch.lines[0] ?? item.line);
      throw error;
    }
    batch.entities.push(entity);
    batch.lines.push(item.line);
    batch.bytes += item.size;
    if (batch.entities.length >= batchSize || batch.bytes >= BATCH_BYTES) await flush();
  }
  await flush();
  return { stored, lines: lastLine };
}

/** The line's JSON as one entity body, checked as an item of a POSTed array is. */
function oneObject(body: unknown) {
  if (Array.isArray(body)) throw IllegalArgument('a line must be one JSON object', { fields: { body: 'must be a JSON object' } });
  return entityBodies(body)[0];
}

/**
 * Stores a batch; when the database refuses it (a name taken, in the collection or twice in the
 * batch), nothing of it is stored, and the batch is tried again entity by entity in a transaction
 * rolled back at the end, to name the first entity refused and the plain POST's error.
 */
async function storeBatch(deps: Deps, collection: CollectionRef, entities: readonly NewEntity[]): Promise<{ index: number; error: AppError } | undefined> {
  try {
    await insertEntityBatch(deps.db, entities);
    return undefined;
  } catch (batchError) {
    let index = 0;
    const passed = new Error('every entity of the batch was stored');
    try {
      await deps.db.transaction(async (tx) => {
        for (; index < entities.length; index++) {
          const entity = entities[index];
          await claimingName(collection.name, entity.name ?? null, () => insertEntity(tx, entity));
        }
        throw passed;
      });
    } catch (error) {
      if (error instanceof AppError) return { index, error };
    }
    throw batchError;
  }
}

/** `error` of `line`, saying how many entities were stored before it and the line to resume from. */
function refusedAt(error: AppError, line: number, stored: number, resumeLine: number): AppError {
  return new AppError(error.status, error.error, `line ${line}: ${error.message} (${stored} entities stored; resume from line ${resumeLine})`, {
    fields: { ...error.fields, line: String(line), stored: String(stored), resume_line: String(resumeLine) },
    headers: error.headers,
  });
}
