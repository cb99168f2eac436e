/**
 * The delivery queue's storage (push_deliveries), used by the worker: lease due deliveries, put
 * back the leases of a worker that died, record each attempt's answer as a Receipt, expire what
 * was not sent in time, and close notifications whose deliveries are all done. Each function
 * runs inside the caller's transaction, so a crash leaves either all of a step or none of it;
 * those that take the database handle (not the transaction) run prepared statements on it, which
 * on one connection are part of whatever transaction is open.
 */
import { and, eq, inArray, isNotNull, lte, sql } from 'drizzle-orm';
import { entities, pushDeliveries, type DeliveryState } from '../db/schema.js';
import { preparedFor } from '../db/prepared.js';
import type { Db } from '../db/open.js';
import type { Tx } from '../deps.js';
import { newUuid } from '../ids.js';
import type { CollectionRef } from '../data/entities.js';
import type { ProviderName, PushOutcome } from './providers/types.js';
import { UNSENT_STATES, type NotificationState } from './notifications.js';
import { tokenPath } from './notifiers.js';

export type Delivery = typeof pushDeliveries.$inferSelect;

export const RECEIPTS: CollectionRef = { name: 'receipts', type: 'receipt' };

/** Notification → receipt and device → receipt (read back as …/{id}/receipts and …/[*]/receipts). */
export const RECEIPTS_RELATION = 'receipts';

/**
 * Leases up to `limit` due deliveries of one provider for `leaseMs`, and marks their
 * notifications STARTED. Nothing past its expiry is leased: the expiry sweep records those.
 */
export function leaseDeliveries(db: Db, provider: ProviderName, limit: number, now: number, owner: string, leaseMs: number): Delivery[] {
  const leased = statementsOf(db).lease.all({ provider, limit, now, owner, leaseUntil: now + leaseMs }) as Delivery[];
  const started = [...new Set(leased.map((delivery) => delivery.notificationUuid))];
  if (started.length > 0) statementsOf(db).started.run({ notifications: JSON.stringify(started), now });
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

// The columns of a delivery under the names of `Delivery`, for statements that return rows.
const DELIVERY_COLUMNS = `id, app_uuid as appUuid, notification_uuid as notificationUuid, device_uuid as deviceUuid,
  notifier_uuid as notifierUuid, provider, token, state, attempts, due_at as dueAt, expire_at as expireAt,
  lease_owner as leaseOwner, lease_until as leaseUntil, finished`;

/**
 * The statements of the hot path, prepared once per database on the driver itself: a large send
 * leases, finishes and receipts hundreds of deliveries per transaction, and one statement per
 * batch (its rows in a JSON parameter, unpacked by json_each) costs a fraction of one statement
 * per delivery, and of building the SQL each time.
 */
const statementsOf = preparedFor((db: Db) => {
  const client = db.$client;
  return {
    lease: client.prepare(`update push_deliveries
      set state = 'leased', lease_owner = @owner, lease_until = @leaseUntil, attempts = attempts + 1
      where id in (
        select id from push_deliveries
        where state = 'queued' and provider = @provider and due_at <= @now and (expire_at is null or expire_at > @now)
        order by due_at limit @limit)
      returning ${DELIVERY_COLUMNS}`),
    // Only a delivery that is not final yet changes: if a lease ran out while its answer was on
    // the way and a second attempt was made, the first answer recorded wins and the other is
    // dropped. Rows are [id, final state]; the ids returned are those that changed.
    finish: client.prepare(`update push_deliveries
      set state = answer.value ->> 1, lease_owner = null, lease_until = null, finished = @now
      from json_each(@answers) as answer
      where push_deliveries.id = answer.value ->> 0 and push_deliveries.state in ('leased', 'queued')
      returning push_deliveries.id`),
    // A retry goes back only if no other attempt has been made or recorded since this one.
    retry: client.prepare(`update push_deliveries
      set state = 'queued', due_at = @dueAt, lease_owner = null, lease_until = null
      where id = @id and state in ('leased', 'queued') and attempts = @attempts`),
    // Receipts are rows [uuid, appUuid, notificationUuid, deviceUuid, properties].
    receipts: client.prepare(`insert into entities (uuid, app_uuid, collection, type, name, name_key, properties, created, modified)
      select value ->> 0, value ->> 1, '${RECEIPTS.name}', '${RECEIPTS.type}', null, null, value -> 4, @now, @now from json_each(@receipts)`),
    // Only the first lease of an unsent notification starts it; later ones find it STARTED.
    started: client.prepare(`update entities
      set properties = json_set(properties, '$.state', 'STARTED', '$.started', @now), modified = @now
      where uuid in (select value from json_each(@notifications))
        and json_extract(properties, '$.state') in (${UNSENT_STATES.map((state) => `'${state}'`).join(', ')})`),
    collection: client.prepare(`insert into collections (app_uuid, name, type, created)
      values (@appUuid, '${RECEIPTS.name}', '${RECEIPTS.type}', @now) on conflict do nothing`),
    pending: client.prepare(`select 1 from push_deliveries where notification_uuid = ? and state in ('queued', 'leased') limit 1`).pluck(),
    connections: client.prepare(`insert into connections (app_uuid, source_uuid, relation, target_uuid, created)
      select value ->> 1, value ->> 2, '${RECEIPTS_RELATION}', value ->> 0, @now from json_each(@receipts)
      union all
      select value ->> 1, value ->> 3, '${RECEIPTS_RELATION}', value ->> 0, @now from json_each(@receipts)
      where true on conflict do nothing`),
  };
});

type ReceiptRow = [uuid: string, appUuid: string, notificationUuid: string, deviceUuid: string, properties: Record<string, unknown>];

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

/** Receipt entities, each connected from its notification and its device, in two statements. */
function insertReceipts(db: Db, rows: readonly ReceiptRow[], now: number): void {
  if (rows.length === 0) return;
  const statements = statementsOf(db);
  const receipts = JSON.stringify(rows);
  statements.receipts.run({ receipts, now });
  statements.connections.run({ receipts, now });
}

/** The device no longer has this token for the notifier (APNs 410, FCM UNREGISTERED). */
function forgetDeviceToken(db: Db, delivery: Delivery, notifierName: string, now: number): void {
  const path = tokenPath(notifierName);
  db.update(entities)
    .set({ properties: sql`json_remove(${entities.properties}, ${path})`, modified: now })
    .where(and(eq(entities.uuid, delivery.deviceUuid), eq(sql`json_extract(${entities.properties}, ${path})`, delivery.token)))
    .run();
}

function registerReceipts(db: Db, appUuids: Iterable<string>, now: number): void {
  for (const appUuid of new Set(appUuids)) statementsOf(db).collection.run({ appUuid, now });
}

/**
 * Records the attempts, inside the caller's transaction on `db`: the delivery sent, failed or
 * back in the queue for a later retry, a Receipt for each attempt that changed its delivery, and
 * tokens the provider disowned removed from their devices.
 */
export function recordAttempts(db: Db, attempts: readonly Attempt[], now: number): void {
  const statements = statementsOf(db);
  registerReceipts(db, attempts.map((attempt) => attempt.delivery.appUuid), now);
  const changed = new Set<number>();
  const final: [number, DeliveryState][] = [];
  for (const { delivery, outcome, retryAt } of attempts) {
    if (retryAt === undefined) final.push([delivery.id, outcome.kind === 'sent' ? 'sent' : 'failed']);
    else if (statements.retry.run({ id: delivery.id, attempts: delivery.attempts, dueAt: retryAt }).changes > 0) changed.add(delivery.id);
  }
  if (final.length > 0) {
    for (const { id } of statements.finish.all({ answers: JSON.stringify(final), now }) as { id: number }[]) changed.add(id);
  }
  const receipts: ReceiptRow[] = [];
  for (const attempt of attempts) {
    const { delivery, outcome } = attempt;
    // Deleting marks the delivery done: an id answered twice in one batch gets one receipt.
    if (!changed.delete(delivery.id)) continue;
    const result = outcome.kind === 'sent' ? { sent: now } : { errorCode: outcome.code, errorMessage: outcome.message };
    receipts.push(receiptRow({ delivery, notifierName: attempt.notifierName, payload: attempt.payload, ...result }));
    if (outcome.kind === 'unregistered') forgetDeviceToken(db, delivery, attempt.notifierName, now);
  }
  insertReceipts(db, receipts, now);
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
  const error = { errorCode: 'EXPIRED', errorMessage: 'not delivered before the notification expired' };
  insertReceipts(tx, expired.map((delivery) => receiptRow({ delivery, ...payloadOf(delivery), ...error })), now);
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
export function finishNotifications(db: Db, uuids: Iterable<string>, now: number): void {
  for (const uuid of uuids) {
    // Asked after every batch of answers, so prepared once; the counts below run once per notification.
    if (statementsOf(db).pending.get(uuid) !== undefined) continue;
    const counts = new Map(
      db
        .select({ state: pushDeliveries.state, count: sql<number>`count(*)` })
        .from(pushDeliveries)
        .where(eq(pushDeliveries.notificationUuid, uuid))
        .groupBy(pushDeliveries.state)
        .all()
        .map((row) => [row.state as string, row.count]),
    );
    const statistics = { sent: counts.get('sent') ?? 0, errors: (counts.get('failed') ?? 0) + (counts.get('expired') ?? 0) };
    const state = finalState(counts);
    db.update(entities)
      .set({
        properties: sql`json_set(${entities.properties}, '$.state', ${state}, '$.finished', ${now}, '$.statistics', json(${JSON.stringify(statistics)}))`,
        modified: now,
      })
      .where(and(eq(entities.uuid, uuid), inArray(sql`json_extract(${entities.properties}, '$.state')`, ['CREATED', 'SCHEDULED', 'STARTED'])))
      .run();
  }
}
