/**
 * Reads of the push API beyond plain collection queries (GET /{notificationId}/[*]/queue,
 * /{deviceId}/[*]/receipts, /{notificationId}/[*]/receipts, /{receiptId}/[*]/notifications).
 */
import { RECEIPTS, RECEIPTS_RELATION } from '../db/schema.js';
import { findUnsentDeliveries } from '../db/push-store.js';
import { EntityNotFound, IllegalArgument } from '../errors.js';
import type { Tx } from '../db/open.js';
import { findEntityIn, type EntityRow } from '../data/entities.js';
import { findEntities, type EntityPage, type FindOptions } from '../data/find.js';
import { parseLimit } from '../data/query/limit.js';
import { findEntityByUuid } from '../db/entity-store.js';
import { isUuid } from '../ids.js';
import { NOTIFICATIONS } from './notifications.js';

/** An entity of one of `collections` by uuid, or by name in the first collection that has it. */
export async function requireEntityAmong(tx: Tx, appUuid: string, collections: readonly string[], id: string): Promise<EntityRow> {
  const row = isUuid(id) ? await findEntityByUuid(tx, appUuid, id) : await findByNameAmong(tx, appUuid, collections, id);
  if (row === undefined || !collections.includes(row.collection)) {
    throw EntityNotFound(`no ${collections.join(' or ')} entity '${id}'`, { fields: { entity: id } });
  }
  return row;
}

/** By name, in the first of `collections` that has it: asked one after another, in that order. */
async function findByNameAmong(tx: Tx, appUuid: string, collections: readonly string[], id: string): Promise<EntityRow | undefined> {
  for (const collection of collections) {
    const row = await findEntityIn(tx, appUuid, collection, id);
    if (row !== undefined) return row;
  }
  return undefined;
}

/** Receipts of a device or a notification, with the query language and paging. */
export async function findReceiptsOf(tx: Tx, owner: EntityRow, options: FindOptions): Promise<EntityPage> {
  return await findEntities(
    tx,
    owner.appUuid,
    { kind: 'related', uuid: owner.uuid, view: { direction: 'out', relation: RECEIPTS_RELATION, collection: RECEIPTS.name } },
    options,
  );
}

/** The notification a receipt belongs to. */
export async function findNotificationsOfReceipt(tx: Tx, receipt: EntityRow, options: FindOptions): Promise<EntityPage> {
  return await findEntities(
    tx,
    receipt.appUuid,
    { kind: 'related', uuid: receipt.uuid, view: { direction: 'in', relation: RECEIPTS_RELATION, collection: NOTIFICATIONS.name } },
    options,
  );
}

function decodeQueueCursor(cursor: string | undefined): number {
  if (cursor === undefined || cursor === '') return 0;
  const text = /^[A-Za-z0-9_-]+$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  const id = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(id)) throw IllegalArgument('cursor is not one this endpoint returned', { fields: { cursor: 'malformed' } });
  return id;
}

/** Devices a notification has still to be sent to, in queue order, with an opaque cursor. */
export async function findQueuedDevices(tx: Tx, notification: EntityRow, options: FindOptions): Promise<EntityPage> {
  const limit = parseLimit(options.limit);
  const after = decodeQueueCursor(options.cursor);
  const rows = await findUnsentDeliveries(tx, notification.uuid, after, limit + 1);
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    rows: page.map((row) => row.entity),
    cursor: rows.length > limit ? Buffer.from(String(last.id)).toString('base64url') : undefined,
    select: null,
  };
}
