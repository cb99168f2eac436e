/**
 * The delivery queue's steps, as the worker takes them: record each attempt's answer as a
 * Receipt, expire what was not sent in time, and close notifications whose deliveries are all
 * done. The statements are db/push-store.ts's; each step runs inside the caller's transaction,
 * so a crash leaves either all of it or none.
 */
import { newUuid } from '../ids.js';
import type { DeliveryState, NotificationState } from '../db/schema.js';
import {
  countDeliveriesByState,
  closeNotification,
  expireDueDeliveries,
  finishDeliveries,
  hasPendingDeliveries,
  insertReceipts,
  registerReceipts,
  removeDeviceToken,
  requeueDelivery,
  type Delivery,
  type ReceiptRow,
} from '../db/push-store.js';
import type { Db } from '../db/open.js';
import type { PushOutcome } from './providers/types.js';
import { tokenProperty } from './notifiers.js';

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

function receiptRow(fields: ReceiptFields): ReceiptRow {
  const { delivery } = fields;
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
  return [newUuid(), delivery.appUuid, delivery.notificationUuid, delivery.deviceUuid, properties];
}

/**
 * Records the attempts, inside the caller's transaction on `db`: the delivery sent, failed or
 * back in the queue for a later retry, a Receipt for each attempt that changed its delivery, and
 * tokens the provider disowned removed from their devices.
 */
export async function recordAttempts(db: Db, attempts: readonly Attempt[], now: number): Promise<void> {
  await registerReceipts(
    db,
    attempts.map((attempt) => attempt.delivery.appUuid),
    now,
  );
  const changed = new Set<number>();
  const final: [number, DeliveryState][] = [];
  for (const { delivery, outcome, retryAt } of attempts) {
    if (retryAt === undefined) final.push([delivery.id, outcome.kind === 'sent' ? 'sent' : 'failed']);
    else if (await requeueDelivery(db, delivery, retryAt)) changed.add(delivery.id);
  }
  for (const id of await finishDeliveries(db, final, now)) changed.add(id);
  const receipts: ReceiptRow[] = [];
  for (const attempt of attempts) {
    const { delivery, outcome } = attempt;
    // Deleting marks the delivery done: an id answered twice in one batch gets one receipt.
    if (!changed.delete(delivery.id)) continue;
    const result = outcome.kind === 'sent' ? { sent: now } : { errorCode: outcome.code, errorMessage: outcome.message };
    receipts.push(receiptRow({ delivery, notifierName: attempt.notifierName, payload: attempt.payload, ...result }));
    // The device no longer has this token for the notifier (APNs 410, FCM UNREGISTERED).
    if (outcome.kind === 'unregistered') await removeDeviceToken(db, delivery.deviceUuid, tokenProperty(attempt.notifierName), delivery.token, now);
  }
  await insertReceipts(db, receipts, now);
}

/**
 * Deliveries still queued when their notification's `expire` passed are never sent: each gets
 * an EXPIRED receipt. Returns the notifications touched.
 */
export async function expireDeliveries(
  tx: Db,
  now: number,
  payloadOf: (delivery: Delivery) => Promise<{ notifierName: string; payload: unknown }>,
): Promise<string[]> {
  const expired = await expireDueDeliveries(tx, now);
  await registerReceipts(
    tx,
    expired.map((delivery) => delivery.appUuid),
    now,
  );
  const error = { errorCode: 'EXPIRED', errorMessage: 'not delivered before the notification expired' };
  // One after another: payloadOf may read the database, inside the caller's transaction.
  const receipts: ReceiptRow[] = [];
  for (const delivery of expired) receipts.push(receiptRow({ delivery, ...(await payloadOf(delivery)), ...error }));
  await insertReceipts(tx, receipts, now);
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
export async function finishNotifications(db: Db, uuids: Iterable<string>, now: number): Promise<void> {
  for (const uuid of uuids) {
    // Asked after every batch of answers; the counts below run once per notification.
    if (await hasPendingDeliveries(db, uuid)) continue;
    const counts = await countDeliveriesByState(db, uuid);
    const statistics = { sent: counts.get('sent') ?? 0, errors: (counts.get('failed') ?? 0) + (counts.get('expired') ?? 0) };
    await closeNotification(db, uuid, { state: finalState(counts), statistics }, now);
  }
}
