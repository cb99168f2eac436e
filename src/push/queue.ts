/**
 * The delivery queue's storage (push_deliveries), used by the worker: lease due deliveries, put
 * back the leases of a worker that died, record each attempt's answer as a Receipt, expire what
 * was not sent in time, and close notifications whose deliveries are all done. Each function
 * runs inside the caller's transaction, so a crash leaves either all of a step or none of it.
 */
import { and, asc, eq, inArray, isNotNull, lte, sql } from 'drizzle-orm';
import { collections, connections, entities, pushDeliveries } from '../db/schema.js';
import type { Db } from '../db/open.js';
import type { Tx } from '../deps.js';
import { newUuid } from '../ids.js';
import type { CollectionRef } from '../data/entities.js';
import type { ProviderName, PushOutcome } from './providers/types.js';
import { UNSENT_STATES, type NotificationState } from './notifications.js';
import { tokenProperty } from './notifiers.js';

export type Delivery = typeof pushDeliveries.$inferSelect;

export const RECEIPTS: CollectionRef = { name: 'receipts', type: 'receipt' };

/** Notification → receipt and device → receipt (read back as …/{id}/receipts and …/[*]/receipts). */
export const RECEIPTS_RELATION = 'receipts';

/**
 * Leases up to `limit` due deliveries of one provider for `leaseMs`, and marks their
 * notifications STARTED. Nothing past its expiry is leased: the expiry sweep records those.
 */
export function leaseDeliveries(tx: Tx, provider: ProviderName, limit: number, now: number, owner: string, leaseMs: number): Delivery[] {
  const due = tx
    .select({ id: pushDeliveries.id })
    .from(pushDeliveries)
    .where(
      and(
        eq(pushDeliveries.state, 'queued'),
        eq(pushDeliveries.provider, provider),
        lte(pushDeliveries.dueAt, now),
        sql`(${pushDeliveries.expireAt} is null or ${pushDeliveries.expireAt} > ${now})`,
      ),
    )
    .orderBy(asc(pushDeliveries.dueAt))
    .limit(limit);
  const leased = tx
    .update(pushDeliveries)
    .set({ state: 'leased', leaseOwner: owner, leaseUntil: now + leaseMs, attempts: sql`${pushDeliveries.attempts} + 1` })
    .where(inArray(pushDeliveries.id, due))
    .returning()
    .all();
  const started = [...new Set(leased.map((delivery) => delivery.notificationUuid))];
  if (started.length > 0) {
    tx.update(entities)
      .set({ properties: sql`json_set(${entities.properties}, '$.state', 'STARTED', '$.started', ${now})`, modified: now })
      .where(and(inArray(entities.uuid, started), inArray(sql`json_extract(${entities.properties}, '$.state')`, [...UNSENT_STATES])))
      .run();
  }
  return leased;
}

/** Leases that ran out (their worker was killed or hung) go back to the queue. */
export function recoverExpiredLeases(tx: Tx, now: number): number {
  return tx
    .update(pushDeliveries)
    .set({ state: 'queued', leaseOwner: null, leaseUntil: null })
    .where(and(eq(pushDeliveries.state, 'leased'), lte(pushDeliveries.leaseUntil, now)))
    .run().changes;
}

/** What one attempt produced, as the worker hands it over. */
export interface Attempt {
  readonly delivery: Delivery;
  readonly outcome: PushOutcome;
  readonly notifierName: string;
  readonly payload: unknown;
  /** When to try again, for a retryable outcome with attempts left; else undefined. */
  readonly retryAt?: number;
}

interface ReceiptFields {
  readonly delivery: Delivery;
  readonly notifierName: string;
  readonly payload: unknown;
  readonly sent?: number;
  readonly errorCode?: string;
  readonly errorMessage?: string;
}

/**
 * The statements of the hot path, prepared once per database: a large send records a receipt,
 * two connections and a delivery update per device, and building each query anew would cost
 * more than running it.
 */
function prepareWrites(db: Db) {
  const receipt = db
    .insert(entities)
    .values({
      uuid: sql.placeholder('uuid'),
      appUuid: sql.placeholder('appUuid'),
      collection: RECEIPTS.name,
      type: RECEIPTS.type,
      name: null,
      nameKey: null,
      properties: sql.placeholder('properties'),
      created: sql.placeholder('now'),
      modified: sql.placeholder('now'),
    })
    .prepare();
  const connection = db
    .insert(connections)
    .values({ appUuid: sql.placeholder('appUuid'), sourceUuid: sql.placeholder('source'), relation: RECEIPTS_RELATION, targetUuid: sql.placeholder('target'), created: sql.placeholder('now') })
    .onConflictDoNothing()
    .prepare();
  // Only a delivery that is not final yet changes: if a lease ran out while its answer was on
  // the way and a second attempt was made, the first answer recorded wins and the other is dropped.
  const open = and(eq(pushDeliveries.id, sql.placeholder('id')), inArray(pushDeliveries.state, ['leased', 'queued']));
  const finish = db.update(pushDeliveries).set({ state: sql`${sql.placeholder('state')}`, leaseOwner: null, leaseUntil: null, finished: sql`${sql.placeholder('now')}` }).where(open).prepare();
  const retry = db
    .update(pushDeliveries)
    .set({ state: 'queued', dueAt: sql`${sql.placeholder('dueAt')}`, leaseOwner: null, leaseUntil: null })
    .where(and(open, eq(pushDeliveries.attempts, sql.placeholder('attempts'))))
    .prepare();
  return { receipt, connection, finish, retry };
}

const prepared = new WeakMap<Db, ReturnType<typeof prepareWrites>>();

function writesOf(db: Db) {
  let writes = prepared.get(db);
  if (writes === undefined) {
    writes = prepareWrites(db);
    prepared.set(db, writes);
  }
  return writes;
}

/** One Receipt entity per attempt, connected from its notification and its device. */
function insertReceipt(db: Db, fields: ReceiptFields, now: number): void {
  const { delivery } = fields;
  const writes = writesOf(db);
  const uuid = newUuid();
  const properties = {
    payloads: { [fields.notifierName]: fields.payload },
    ...(fields.sent !== undefined && { sent: fields.sent }),
    ...(fields.errorCode !== undefined && { errorCode: fields.errorCode, errorMessage: fields.errorMessage ?? '' }),
    notifier: delivery.notifierUuid,
    notifierName: fields.notifierName,
    device: delivery.deviceUuid,
    notification: delivery.notificationUuid,
    attempt: delivery.attempts,
  };
  writes.receipt.run({ uuid, appUuid: delivery.appUuid, properties, now });
  for (const source of [delivery.notificationUuid, delivery.deviceUuid]) writes.connection.run({ appUuid: delivery.appUuid, source, target: uuid, now });
}

/** The device no longer has this token for the notifier (APNs 410, FCM UNREGISTERED). */
function forgetDeviceToken(db: Db, delivery: Delivery, notifierName: string, now: number): void {
  const path = `$."${tokenProperty(notifierName)}"`;
  db.update(entities)
    .set({ properties: sql`json_remove(${entities.properties}, ${path})`, modified: now })
    .where(and(eq(entities.uuid, delivery.deviceUuid), eq(sql`json_extract(${entities.properties}, ${path})`, delivery.token)))
    .run();
}

function registerReceipts(db: Db, appUuids: Iterable<string>, now: number): void {
  for (const appUuid of new Set(appUuids)) db.insert(collections).values({ appUuid, name: RECEIPTS.name, type: RECEIPTS.type, created: now }).onConflictDoNothing().run();
}

/**
 * Records the attempts, inside the caller's transaction on `db`: the delivery sent, failed or
 * back in the queue for a later retry, a Receipt for each attempt that changed its delivery, and
 * tokens the provider disowned removed from their devices.
 */
export function recordAttempts(db: Db, attempts: readonly Attempt[], now: number): void {
  const writes = writesOf(db);
  registerReceipts(db, attempts.map((attempt) => attempt.delivery.appUuid), now);
  for (const attempt of attempts) {
    const { delivery, outcome } = attempt;
    const sent = outcome.kind === 'sent';
    const changed =
      attempt.retryAt !== undefined
        ? writes.retry.run({ id: delivery.id, attempts: delivery.attempts, dueAt: attempt.retryAt }).changes
        : writes.finish.run({ id: delivery.id, state: sent ? 'sent' : 'failed', now }).changes;
    if (changed === 0) continue;
    const result = sent ? { sent: now } : { errorCode: outcome.code, errorMessage: outcome.message };
    insertReceipt(db, { delivery, notifierName: attempt.notifierName, payload: attempt.payload, ...result }, now);
    if (outcome.kind === 'unregistered') forgetDeviceToken(db, delivery, attempt.notifierName, now);
  }
}

/**
 * Deliveries still queued when their notification's `expire` passed are never sent: each gets
 * an EXPIRED receipt. Returns the notifications touched.
 */
export function expireDeliveries(tx: Db, now: number, payloadOf: (delivery: Delivery) => { notifierName: string; payload: unknown }): string[] {
  const expired = tx
    .update(pushDeliveries)
    .set({ state: 'expired', finished: now })
    .where(and(eq(pushDeliveries.state, 'queued'), isNotNull(pushDeliveries.expireAt), lte(pushDeliveries.expireAt, now)))
    .returning()
    .all();
  registerReceipts(tx, expired.map((delivery) => delivery.appUuid), now);
  for (const delivery of expired) {
    insertReceipt(tx, { delivery, ...payloadOf(delivery), errorCode: 'EXPIRED', errorMessage: 'not delivered before the notification expired' }, now);
  }
  return [...new Set(expired.map((delivery) => delivery.notificationUuid))];
}

/** The final state of a notification whose deliveries are all done. */
function finalState(counts: Map<string, number>): NotificationState {
  if ((counts.get('sent') ?? 0) > 0) return 'FINISHED';
  if ((counts.get('failed') ?? 0) > 0) return 'FAILED';
  if ((counts.get('expired') ?? 0) > 0) return 'EXPIRED';
  return 'FINISHED';
}

/** Notifications among `uuids` with nothing left queued or leased get their final state and statistics. */
export function finishNotifications(tx: Tx, uuids: Iterable<string>, now: number): void {
  for (const uuid of uuids) {
    const pending = tx
      .select({ id: pushDeliveries.id })
      .from(pushDeliveries)
      .where(and(eq(pushDeliveries.notificationUuid, uuid), inArray(pushDeliveries.state, ['queued', 'leased'])))
      .limit(1)
      .get();
    if (pending !== undefined) continue;
    const counts = new Map(
      tx
        .select({ state: pushDeliveries.state, count: sql<number>`count(*)` })
        .from(pushDeliveries)
        .where(eq(pushDeliveries.notificationUuid, uuid))
        .groupBy(pushDeliveries.state)
        .all()
        .map((row) => [row.state as string, row.count]),
    );
    const statistics = { sent: counts.get('sent') ?? 0, errors: (counts.get('failed') ?? 0) + (counts.get('expired') ?? 0) };
    const state = finalState(counts);
    tx.update(entities)
      .set({
        properties: sql`json_set(${entities.properties}, '$.state', ${state}, '$.finished', ${now}, '$.statistics', json(${JSON.stringify(statistics)}))`,
        modified: now,
      })
      .where(and(eq(entities.uuid, uuid), inArray(sql`json_extract(${entities.properties}, '$.state')`, ['CREATED', 'SCHEDULED', 'STARTED'])))
      .run();
  }
}
