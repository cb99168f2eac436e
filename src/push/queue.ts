/**
 * The delivery queue's storage (push_deliveries), used by the worker: lease due deliveries, put
 * back the leases of a worker that died, record each attempt's answer as a Receipt, expire what
 * was not sent in time, and close notifications whose deliveries are all done. Each function
 * runs inside the caller's transaction, so a crash leaves either all of a step or none of it.
 */
import { and, asc, eq, inArray, isNotNull, lte, sql } from 'drizzle-orm';
import { entities, pushDeliveries } from '../db/schema.js';
import type { Tx } from '../deps.js';
import { insertEntity } from '../data/store.js';
import { connectIn } from '../data/connections.js';
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

/** One Receipt entity per attempt, connected from its notification and its device. */
function insertReceipt(tx: Tx, fields: ReceiptFields, now: number): void {
  const { delivery } = fields;
  const receipt = insertEntity(tx, {
    appUuid: delivery.appUuid,
    collection: RECEIPTS.name,
    type: RECEIPTS.type,
    properties: {
      payloads: { [fields.notifierName]: fields.payload },
      ...(fields.sent !== undefined && { sent: fields.sent }),
      ...(fields.errorCode !== undefined && { errorCode: fields.errorCode, errorMessage: fields.errorMessage ?? '' }),
      notifier: delivery.notifierUuid,
      notifierName: fields.notifierName,
      device: delivery.deviceUuid,
      notification: delivery.notificationUuid,
      attempt: delivery.attempts,
    },
    now,
  });
  connectIn(
    tx,
    delivery.appUuid,
    [
      { sourceUuid: delivery.notificationUuid, relation: RECEIPTS_RELATION, targetUuid: receipt.uuid },
      { sourceUuid: delivery.deviceUuid, relation: RECEIPTS_RELATION, targetUuid: receipt.uuid },
    ],
    now,
  );
}

/** The device no longer has this token for the notifier (APNs 410, FCM UNREGISTERED). */
function forgetDeviceToken(tx: Tx, delivery: Delivery, notifierName: string, now: number): void {
  const path = `$."${tokenProperty(notifierName)}"`;
  tx.update(entities)
    .set({ properties: sql`json_remove(${entities.properties}, ${path})`, modified: now })
    .where(and(eq(entities.uuid, delivery.deviceUuid), eq(sql`json_extract(${entities.properties}, ${path})`, delivery.token)))
    .run();
}

/**
 * Records the attempts: a Receipt for each, the delivery sent, failed or back in the queue for a
 * later retry, and tokens the provider disowned removed from their devices.
 */
export function recordAttempts(tx: Tx, attempts: readonly Attempt[], now: number): void {
  for (const attempt of attempts) {
    const { delivery, outcome } = attempt;
    const sent = outcome.kind === 'sent';
    insertReceipt(
      tx,
      {
        delivery,
        notifierName: attempt.notifierName,
        payload: attempt.payload,
        ...(sent ? { sent: now } : { errorCode: outcome.code, errorMessage: outcome.message }),
      },
      now,
    );
    if (outcome.kind === 'unregistered') forgetDeviceToken(tx, delivery, attempt.notifierName, now);
    const retry = attempt.retryAt !== undefined;
    tx.update(pushDeliveries)
      .set(
        retry
          ? { state: 'queued', dueAt: attempt.retryAt, leaseOwner: null, leaseUntil: null }
          : { state: sent ? 'sent' : 'failed', leaseOwner: null, leaseUntil: null, finished: now },
      )
      .where(eq(pushDeliveries.id, delivery.id))
      .run();
  }
}

/**
 * Deliveries still queued when their notification's `expire` passed are never sent: each gets
 * an EXPIRED receipt. Returns the notifications touched.
 */
export function expireDeliveries(tx: Tx, now: number, payloadOf: (delivery: Delivery) => { notifierName: string; payload: unknown }): string[] {
  const expired = tx
    .update(pushDeliveries)
    .set({ state: 'expired', finished: now })
    .where(and(eq(pushDeliveries.state, 'queued'), isNotNull(pushDeliveries.expireAt), lte(pushDeliveries.expireAt, now)))
    .returning()
    .all();
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
