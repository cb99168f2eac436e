/**
 * The delivery queue's storage (push_deliveries), used by the worker: lease due deliveries, put
 * back the leases of a worker that died, record each attempt's answer as a Receipt, expire what
 * was not sent in time, and close notifications whose deliveries are all done. Each function
 * runs inside the caller's transaction, so a crash leaves either all of a step or none of it;
 * those that take the database handle (not the transaction) run raw statements through its
 * driver, which runs them in the transaction of the async call chain (see db/driver.ts).
 */
import { and, eq, inArray, isNotNull, lte, sql } from 'drizzle-orm';
import { entities, pushDeliveries, type DeliveryState } from '../db/schema.js';
import { changes } from '../db/changes.js';
import type { DialectName } from '../db/driver.js';
import { dialectOf, type Db, type Tx } from '../db/open.js';
import { newUuid } from '../ids.js';
import type { CollectionRef } from '../data/entities.js';
import type { ProviderName, PushOutcome } from './providers/types.js';
import { UNSENT_STATES, type NotificationState } from './notifications.js';
import { tokenProperty } from './notifiers.js';
import { jsonText, jsonWith, jsonWithout } from '../db/sql.js';

export type Delivery = typeof pushDeliveries.$inferSelect;

export const RECEIPTS: CollectionRef = { name: 'receipts', type: 'receipt' };

/** Notification → receipt and device → receipt (read back as …/{id}/receipts and …/[*]/receipts). */
export const RECEIPTS_RELATION = 'receipts';

/**
 * Leases up to `limit` due deliveries of one provider for `leaseMs`, and marks their
 * notifications STARTED. Nothing past its expiry is leased: the expiry sweep records those.
 */
export async function leaseDeliveries(db: Db, provider: ProviderName, limit: number, now: number, owner: string, leaseMs: number): Promise<Delivery[]> {
  const statements = statementsOf(db);
  // Often nothing is due (a provider without sends, the end of a send): a read of the index
  // answers that, where an update with the same condition cost SQLite some 40 times as much even
  // when it changed nothing.
  const due = await db.$client.query<{ id: number }>(statements.due, [provider, now, now, limit]);
  if (due.length === 0) return [];
  const leased = await db.$client.query<Delivery>(statements.lease, [owner, now + leaseMs, JSON.stringify(due.map((row) => row.id))]);
  const started = [...new Set(leased.map((delivery) => delivery.notificationUuid))];
  if (started.length > 0) await db.$client.run(statements.started, [now, now, JSON.stringify(started)]);
  return leased;
}

/**
 * Whether any delivery is queued or leased. When none is, nothing is due, no lease can run out
 * and nothing can expire: an idle worker asks this instead of opening its transactions.
 */
export async function hasUnfinishedDeliveries(db: Db): Promise<boolean> {
  // SQLite answers 0 or 1, PostgreSQL a boolean.
  return Boolean(await firstValue(db, statementsOf(db).unfinished, []));
}

/** Leases that ran out (their worker was killed or hung) go back to the queue. */
export async function recoverExpiredLeases(tx: Tx, now: number): Promise<number> {
  return changes(
    await tx
      .update(pushDeliveries)
      .set({ state: 'queued', leaseOwner: null, leaseUntil: null })
      .where(and(eq(pushDeliveries.state, 'leased'), lte(pushDeliveries.leaseUntil, now)))
      .run(),
  );
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

// The columns of a delivery under the names of `Delivery`, for statements that return rows. The
// aliases are quoted: PostgreSQL folds unquoted names to lower case.
const DELIVERY_COLUMNS = `id, app_uuid as "appUuid", notification_uuid as "notificationUuid", device_uuid as "deviceUuid",
  notifier_uuid as "notifierUuid", provider, token, state, attempts, due_at as "dueAt", expire_at as "expireAt",
  lease_owner as "leaseOwner", lease_until as "leaseUntil", finished`;

/**
 * The statements of the hot path, run by the driver itself: a large send leases, finishes and
 * receipts hundreds of deliveries per transaction, and one statement per batch (its rows in a
 * JSON parameter, unpacked by json_each) costs a fraction of one statement per delivery, and of
 * building the SQL each time. The texts are constants, so the driver compiles each once and
 * keeps it. Parameters are positional (`?`); the comment above each names them in order.
 */
const SQLITE = {
  // Whether anything is queued or leased: each half a lookup in its state's partial index.
  unfinished: `select (exists (select 1 from push_deliveries where state = 'queued')
      or exists (select 1 from push_deliveries where state = 'leased')) as unfinished`,
  // provider, now, now, limit
  due: `select id from push_deliveries
      where state = 'queued' and provider = ? and due_at <= ? and (expire_at is null or expire_at > ?)
      order by due_at limit ?`,
  // Rows are the ids `due` found, in the same transaction.
  // owner, leaseUntil, ids
  lease: `update push_deliveries
      set state = 'leased', lease_owner = ?, lease_until = ?, attempts = attempts + 1
      where id in (select value from json_each(?)) and state = 'queued'
      returning ${DELIVERY_COLUMNS}`,
  // Only a delivery that is not final yet changes: if a lease ran out while its answer was on
  // the way and a second attempt was made, the first answer recorded wins and the other is
  // dropped. Rows are [id, final state]; the ids returned are those that changed.
  // now, answers
  finish: `update push_deliveries
      set state = answer.value ->> 1, lease_owner = null, lease_until = null, finished = ?
      from json_each(?) as answer
      where push_deliveries.id = answer.value ->> 0 and push_deliveries.state in ('leased', 'queued')
      returning push_deliveries.id`,
  // A retry goes back only if no other attempt has been made or recorded since this one.
  // dueAt, id, attempts
  retry: `update push_deliveries
      set state = 'queued', due_at = ?, lease_owner = null, lease_until = null
      where id = ? and state in ('leased', 'queued') and attempts = ?`,
  // Receipts are rows [uuid, appUuid, notificationUuid, deviceUuid, properties].
  // now, now, receipts
  receipts: `insert into entities (uuid, app_uuid, collection, type, name, name_key, properties, created, modified)
      select value ->> 0, value ->> 1, '${RECEIPTS.name}', '${RECEIPTS.type}', null, null, value -> 4, ?, ? from json_each(?)`,
  // Only the first lease of an unsent notification starts it; later ones find it STARTED.
  // now, now, notifications
  started: `update entities
      set properties = json_set(properties, '$.state', 'STARTED', '$.started', ?), modified = ?
      where uuid in (select value from json_each(?))
        and json_extract(properties, '$.state') in (${UNSENT_STATES.map((state) => `'${state}'`).join(', ')})`,
  // appUuid, now
  collection: `insert into collections (app_uuid, name, type, created)
      values (?, '${RECEIPTS.name}', '${RECEIPTS.type}', ?) on conflict do nothing`,
  // notificationUuid
  pending: `select 1 from push_deliveries where notification_uuid = ? and state in ('queued', 'leased') limit 1`,
  // now, receipts, now, receipts
  connections: `insert into connections (app_uuid, source_uuid, relation, target_uuid, created)
      select value ->> 1, value ->> 2, '${RECEIPTS_RELATION}', value ->> 0, ? from json_each(?)
      union all
      select value ->> 1, value ->> 3, '${RECEIPTS_RELATION}', value ->> 0, ? from json_each(?)
      where true on conflict do nothing`,
} as const;

/** The queue's statements in one database's SQL, by name; every dialect has all of them. */
type Statements = { readonly [Name in keyof typeof SQLITE]: string };

/**
 * PostgreSQL: the same statements with jsonb. Instances share the queue, so a lease locks the
 * rows it finds due and skips those another instance is taking (FOR UPDATE SKIP LOCKED), until
 * its transaction ends: each due delivery goes to exactly one of them, and one that dies leaves
 * leases that expire.
 */
const POSTGRES: Statements = {
  unfinished: SQLITE.unfinished,
  due: `select id from push_deliveries
      where state = 'queued' and provider = ? and due_at <= ? and (expire_at is null or expire_at > ?)
      order by due_at limit ?
      for update skip locked`,
  lease: `update push_deliveries
      set state = 'leased', lease_owner = ?, lease_until = ?, attempts = attempts + 1
      where id in (select jsonb_array_elements_text(?::jsonb)::bigint) and state = 'queued'
      returning ${DELIVERY_COLUMNS}`,
  finish: `update push_deliveries
      set state = answer.value ->> 1, lease_owner = null, lease_until = null, finished = ?
      from jsonb_array_elements(?::jsonb) as answer(value)
      where push_deliveries.id = (answer.value ->> 0)::bigint and push_deliveries.state in ('leased', 'queued')
      returning push_deliveries.id`,
  retry: SQLITE.retry,
  receipts: `insert into entities (uuid, app_uuid, collection, type, name, name_key, properties, created, modified)
      select value ->> 0, value ->> 1, '${RECEIPTS.name}', '${RECEIPTS.type}', null, null, value -> 4, ?::bigint, ?::bigint
      from jsonb_array_elements(?::jsonb) as receipt(value)`,
  started: `update entities
      set properties = properties || jsonb_build_object('state', 'STARTED', 'started', ?::bigint), modified = ?
      where uuid in (select jsonb_array_elements_text(?::jsonb))
        and properties ->> 'state' in (${UNSENT_STATES.map((state) => `'${state}'`).join(', ')})`,
  collection: SQLITE.collection,
  pending: SQLITE.pending,
  connections: `insert into connections (app_uuid, source_uuid, relation, target_uuid, created)
      select value ->> 1, value ->> 2, '${RECEIPTS_RELATION}', value ->> 0, ?::bigint from jsonb_array_elements(?::jsonb) as receipt(value)
      union all
      select value ->> 1, value ->> 3, '${RECEIPTS_RELATION}', value ->> 0, ?::bigint from jsonb_array_elements(?::jsonb) as receipt(value)
      on conflict do nothing`,
};

const STATEMENTS: { readonly [Dialect in DialectName]: Statements } = { sqlite: SQLITE, postgres: POSTGRES };

export function statementsFor(dialect: DialectName): Statements {
  return STATEMENTS[dialect];
}

function statementsOf(db: Db): Statements {
  return statementsFor(dialectOf(db));
}

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
async function insertReceipts(db: Db, rows: readonly ReceiptRow[], now: number): Promise<void> {
  if (rows.length === 0) return;
  const statements = statementsOf(db);
  const receipts = JSON.stringify(rows);
  await db.$client.run(statements.receipts, [now, now, receipts]);
  await db.$client.run(statements.connections, [now, receipts, now, receipts]);
}

/** The device no longer has this token for the notifier (APNs 410, FCM UNREGISTERED). */
async function forgetDeviceToken(db: Db, delivery: Delivery, notifierName: string, now: number): Promise<void> {
  const property = tokenProperty(notifierName);
  await db.update(entities)
    .set({ properties: jsonWithout(db, entities.properties, property), modified: now })
    .where(and(eq(entities.uuid, delivery.deviceUuid), eq(jsonText(db, entities.properties, property), delivery.token)))
    .run();
}

async function registerReceipts(db: Db, appUuids: Iterable<string>, now: number): Promise<void> {
  const statements = statementsOf(db);
  for (const appUuid of new Set(appUuids)) await db.$client.run(statements.collection, [appUuid, now]);
}

/**
 * Records the attempts, inside the caller's transaction on `db`: the delivery sent, failed or
 * back in the queue for a later retry, a Receipt for each attempt that changed its delivery, and
 * tokens the provider disowned removed from their devices.
 */
export async function recordAttempts(db: Db, attempts: readonly Attempt[], now: number): Promise<void> {
  const statements = statementsOf(db);
  await registerReceipts(db, attempts.map((attempt) => attempt.delivery.appUuid), now);
  const changed = new Set<number>();
  const final: [number, DeliveryState][] = [];
  for (const { delivery, outcome, retryAt } of attempts) {
    if (retryAt === undefined) final.push([delivery.id, outcome.kind === 'sent' ? 'sent' : 'failed']);
    else if ((await db.$client.run(statements.retry, [retryAt, delivery.id, delivery.attempts])) > 0) changed.add(delivery.id);
  }
  if (final.length > 0) {
    for (const { id } of await db.$client.query<{ id: number }>(statements.finish, [now, JSON.stringify(final)])) changed.add(id);
  }
  const receipts: ReceiptRow[] = [];
  for (const attempt of attempts) {
    const { delivery, outcome } = attempt;
    // Deleting marks the delivery done: an id answered twice in one batch gets one receipt.
    if (!changed.delete(delivery.id)) continue;
    const result = outcome.kind === 'sent' ? { sent: now } : { errorCode: outcome.code, errorMessage: outcome.message };
    receipts.push(receiptRow({ delivery, notifierName: attempt.notifierName, payload: attempt.payload, ...result }));
    if (outcome.kind === 'unregistered') await forgetDeviceToken(db, delivery, attempt.notifierName, now);
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
  const expired = await tx
    .update(pushDeliveries)
    .set({ state: 'expired', finished: now })
    .where(and(eq(pushDeliveries.state, 'queued'), isNotNull(pushDeliveries.expireAt), lte(pushDeliveries.expireAt, now)))
    .returning()
    .all();
  await registerReceipts(tx, expired.map((delivery) => delivery.appUuid), now);
  const error = { errorCode: 'EXPIRED', errorMessage: 'not delivered before the notification expired' };
  // One after another: payloadOf may read the database, inside the caller's transaction.
  const receipts: ReceiptRow[] = [];
  for (const delivery of expired) receipts.push(receiptRow({ delivery, ...(await payloadOf(delivery)), ...error }));
  await insertReceipts(tx, receipts, now);
  return [...new Set(expired.map((delivery) => delivery.notificationUuid))];
}

/** The first column of the first row a query returns; undefined without a row. */
async function firstValue(db: Db, text: string, params: readonly unknown[]): Promise<unknown> {
  const [row] = await db.$client.query(text, params);
  return row === undefined ? undefined : Object.values(row)[0];
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
  const statements = statementsOf(db);
  for (const uuid of uuids) {
    // Asked after every batch of answers, so a constant text; the counts below run once per notification.
    if ((await firstValue(db, statements.pending, [uuid])) !== undefined) continue;
    const counts = new Map(
      (await db
        .select({ state: pushDeliveries.state, count: sql<number>`count(*)` })
        .from(pushDeliveries)
        .where(eq(pushDeliveries.notificationUuid, uuid))
        .groupBy(pushDeliveries.state)
        .all())
        .map((row) => [row.state as string, row.count]),
    );
    const statistics = { sent: counts.get('sent') ?? 0, errors: (counts.get('failed') ?? 0) + (counts.get('expired') ?? 0) };
    const state = finalState(counts);
    await db.update(entities)
      .set({
        properties: jsonWith(db, entities.properties, { state, finished: now, statistics }),
        modified: now,
      })
      .where(and(eq(entities.uuid, uuid), inArray(jsonText(db, entities.properties, 'state'), ['CREATED', 'SCHEDULED', 'STARTED'])))
      .run();
  }
}
