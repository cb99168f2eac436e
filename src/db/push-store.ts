/**
 * The storage of push notifications: notifiers' secrets, the target devices as queries, the
 * delivery queue (push_deliveries) and what its steps write to the notification, receipt and
 * device entities. The queue's logic — what an answer
 * means, when to retry, what a receipt says — is in src/push/; this module only reads and
 * writes. Each function runs inside the caller's transaction, so a crash leaves either all of a
 * step or none of it; those that take the database handle (not the transaction) run raw
 * statements through its driver, which runs them in the transaction of the async call chain
 * (see driver.ts).
 */
import { and, asc, eq, getTableColumns, gt, inArray, isNotNull, lte, sql, type SQL } from 'drizzle-orm';
import { alias } from 'drizzle-orm/sqlite-core';
import type { DialectName } from './driver.js';
import { skippingUnreadable, type EntityRow, type Guard } from './entity-store.js';
import { dialectOf, type Db, type Tx, schemaOf } from './open.js';
import { RECEIPTS, RECEIPTS_RELATION, UNSENT_STATES, type pushDeliveries, type DeliveryState, type NotificationState } from './schema.js';
import { isJsonText, jsonText, jsonWith, jsonWithout } from './sql.js';
import { changes, execute, first } from './run.js';

export type Delivery = typeof pushDeliveries.$inferSelect;

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
 * keeps it. Parameters are positional (`?` here, `$1…$n` in PostgreSQL's); the comment above
 * each names them in order.
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
      where state = 'queued' and provider = $1 and due_at <= $2 and (expire_at is null or expire_at > $3)
      order by due_at limit $4
      for update skip locked`,
  lease: `update push_deliveries
      set state = 'leased', lease_owner = $1, lease_until = $2, attempts = attempts + 1
      where id in (select jsonb_array_elements_text($3::jsonb)::bigint) and state = 'queued'
      returning ${DELIVERY_COLUMNS}`,
  finish: `update push_deliveries
      set state = answer.value ->> 1, lease_owner = null, lease_until = null, finished = $1
      from jsonb_array_elements($2::jsonb) as answer(value)
      where push_deliveries.id = (answer.value ->> 0)::bigint and push_deliveries.state in ('leased', 'queued')
      returning push_deliveries.id`,
  retry: `update push_deliveries
      set state = 'queued', due_at = $1, lease_owner = null, lease_until = null
      where id = $2 and state in ('leased', 'queued') and attempts = $3`,
  receipts: `insert into entities (uuid, app_uuid, collection, type, name, name_key, properties, created, modified)
      select value ->> 0, value ->> 1, '${RECEIPTS.name}', '${RECEIPTS.type}', null, null, value -> 4, $1::bigint, $2::bigint
      from jsonb_array_elements($3::jsonb) as receipt(value)`,
  started: `update entities
      set properties = properties || jsonb_build_object('state', 'STARTED', 'started', $1::bigint), modified = $2
      where uuid in (select jsonb_array_elements_text($3::jsonb))
        and properties ->> 'state' in (${UNSENT_STATES.map((state) => `'${state}'`).join(', ')})`,
  collection: `insert into collections (app_uuid, name, type, created)
      values ($1, '${RECEIPTS.name}', '${RECEIPTS.type}', $2) on conflict do nothing`,
  pending: `select 1 from push_deliveries where notification_uuid = $1 and state in ('queued', 'leased') limit 1`,
  connections: `insert into connections (app_uuid, source_uuid, relation, target_uuid, created)
      select value ->> 1, value ->> 2, '${RECEIPTS_RELATION}', value ->> 0, $1::bigint from jsonb_array_elements($2::jsonb) as receipt(value)
      union all
      select value ->> 1, value ->> 3, '${RECEIPTS_RELATION}', value ->> 0, $3::bigint from jsonb_array_elements($4::jsonb) as receipt(value)
      on conflict do nothing`,
};

const STATEMENTS: { readonly [Dialect in DialectName]: Statements } = { sqlite: SQLITE, postgres: POSTGRES };

function statementsOf(db: Db): Statements {
  return STATEMENTS[dialectOf(db)];
}

/** The first column of the first row a query returns; undefined without a row. */
async function firstValue(db: Db, text: string, params: readonly unknown[]): Promise<unknown> {
  const [row] = await db.$client.query(text, params);
  return row === undefined ? undefined : Object.values(row)[0];
}

/** Stores a notifier's credentials, replacing those it had. */
export async function writeNotifierSecret(tx: Tx, notifierUuid: string, secret: Record<string, string>): Promise<void> {
  const { pushNotifierSecrets } = schemaOf(tx);
  await tx.insert(pushNotifierSecrets).values({ notifierUuid, secret }).onConflictDoUpdate({ target: pushNotifierSecrets.notifierUuid, set: { secret } });
}

/** A notifier's credentials; empty when it has none. */
export async function readNotifierSecret(tx: Tx, notifierUuid: string): Promise<Record<string, string>> {
  const { pushNotifierSecrets } = schemaOf(tx);
  return (await first(tx.select().from(pushNotifierSecrets).where(eq(pushNotifierSecrets.notifierUuid, notifierUuid))))?.secret ?? {};
}

// Devices are entities of this collection, connected from their user by a relation of this name.
const DEVICES = 'devices';

// What the fan-out reads of a device: its id and the properties that hold its push tokens.
function deviceColumns(tx: Tx) {
  const { entities } = schemaOf(tx);
  return { uuid: entities.uuid, properties: entities.properties };
}

/**
 * The target devices of a send as a query of (uuid, properties) for the fan-out to select from,
 * its conditions on device properties kept by `guard` to the rows the database can read
 * (entity-store.ts, skippingUnreadable).
 */
export type DeviceQuery = (guard: Guard) => SQL;

/** One device. */
export function selectDevice(tx: Tx, uuid: string): DeviceQuery {
  const { entities } = schemaOf(tx);
  return () => tx.select(deviceColumns(tx)).from(entities).where(eq(entities.uuid, uuid)).getSQL();
}

/** Every device of an application, or those `where` (a query's condition on their properties) matches. */
export function selectAppDevices(tx: Tx, appUuid: string, where: SQL | undefined): DeviceQuery {
  const { entities } = schemaOf(tx);
  return (guard) =>
    tx
      .select(deviceColumns(tx))
      .from(entities)
      .where(and(eq(entities.appUuid, appUuid), eq(entities.collection, DEVICES), where && guard(where)))
      .getSQL();
}

/** The devices of one user, or of every member of one group, each once. */
export function selectDevicesOf(tx: Tx, appUuid: string, owner: { user: string } | { group: string }): DeviceQuery {
  const { connections, entities } = schemaOf(tx);
  const owned = alias(connections, 'owned');
  const member = alias(connections, 'member');
  const isDevice = and(eq(owned.relation, DEVICES), eq(entities.appUuid, appUuid), eq(entities.collection, DEVICES));
  const query = tx.selectDistinct(deviceColumns(tx));
  if ('user' in owner) {
    const statement = query
      .from(owned)
      .innerJoin(entities, eq(entities.uuid, owned.targetUuid))
      .where(and(eq(owned.sourceUuid, owner.user), isDevice))
      .getSQL();
    return () => statement;
  }
  const statement = query
    .from(member)
    .innerJoin(owned, eq(owned.sourceUuid, member.targetUuid))
    .innerJoin(entities, eq(entities.uuid, owned.targetUuid))
    .where(and(eq(member.sourceUuid, owner.group), eq(member.relation, 'users'), isDevice))
    .getSQL();
  return () => statement;
}

/** What a notification sends to each device that has a token for one of its notifiers. */
export interface FanOut {
  readonly appUuid: string;
  readonly notificationUuid: string;
  readonly notifierUuid: string;
  readonly provider: string;
  /** The device property that holds the notifier's push token. */
  readonly tokenProperty: string;
  /** The target devices. */
  readonly devices: DeviceQuery;
  readonly dueAt: number;
  readonly expireAt?: number;
}

/**
 * Queues a delivery for each target device that has a token (a non-empty text) for the
 * notifier, the token copied in: one INSERT … SELECT, without a row passing through JavaScript.
 * Returns how many were queued.
 */
export async function queueDeliveries(tx: Tx, fanOut: FanOut): Promise<number> {
  const { pushDeliveries } = schemaOf(tx);
  const properties = sql`device.properties`;
  const token = jsonText(tx, properties, fanOut.tokenProperty);
  const isText = isJsonText(tx, properties, fanOut.tokenProperty);
  // PostgreSQL types the parameters of a SELECT list by their values, not by the columns.
  const [due, expireAt] =
    dialectOf(tx) === 'postgres'
      ? [sql`${fanOut.dueAt}::bigint`, sql`${fanOut.expireAt ?? null}::bigint`]
      : [sql`${fanOut.dueAt}`, sql`${fanOut.expireAt ?? null}`];
  // A device whose stored JSON SQLite cannot read is passed over, not a failure of the whole send.
  const { result } = await skippingUnreadable((guard) =>
    execute(
      tx,
      sql`insert into ${pushDeliveries} (app_uuid, notification_uuid, device_uuid, notifier_uuid, provider, token, state, due_at, expire_at)
    select ${fanOut.appUuid}, ${fanOut.notificationUuid}, device.uuid, ${fanOut.notifierUuid}, ${fanOut.provider}, ${token}, 'queued', ${due}, ${expireAt}
    from (${fanOut.devices(guard)}) as device
    where ${guard(sql`${isText} and ${token} <> ''`, properties)}`,
    ),
  );
  return result;
}

/** Drops the deliveries of a notification still queued (it was canceled). */
export async function cancelQueuedDeliveries(tx: Tx, notificationUuid: string, now: number): Promise<void> {
  const { pushDeliveries } = schemaOf(tx);
  await tx
    .update(pushDeliveries)
    .set({ state: 'canceled', finished: now })
    .where(and(eq(pushDeliveries.notificationUuid, notificationUuid), eq(pushDeliveries.state, 'queued')));
}

/** Whether any delivery of a notification was sent or is being sent. */
export async function hasSentDeliveries(tx: Tx, notificationUuid: string): Promise<boolean> {
  const { pushDeliveries } = schemaOf(tx);
  const sent = await first(
    tx
      .select({ one: sql<number>`1` })
      .from(pushDeliveries)
      .where(and(eq(pushDeliveries.notificationUuid, notificationUuid), inArray(pushDeliveries.state, ['sent', 'leased'])))
      .limit(1),
  );
  return sent !== undefined;
}

/** Up to `limit` deliveries of a notification still to be sent after the one with id `after`, in queue order, with their devices. */
export async function findUnsentDeliveries(tx: Tx, notificationUuid: string, after: number, limit: number): Promise<{ id: number; entity: EntityRow }[]> {
  const { entities, pushDeliveries } = schemaOf(tx);
  return await tx
    .select({ id: pushDeliveries.id, entity: getTableColumns(entities) })
    .from(pushDeliveries)
    .innerJoin(entities, eq(entities.uuid, pushDeliveries.deviceUuid))
    .where(and(eq(pushDeliveries.notificationUuid, notificationUuid), inArray(pushDeliveries.state, ['queued', 'leased']), gt(pushDeliveries.id, after)))
    .orderBy(asc(pushDeliveries.id))
    .limit(limit);
}

/**
 * Leases up to `limit` due deliveries of one provider for `leaseMs`, and marks their
 * notifications STARTED. Nothing past its expiry is leased: the expiry sweep records those.
 */
export async function leaseDeliveries(db: Db, provider: string, limit: number, now: number, owner: string, leaseMs: number): Promise<Delivery[]> {
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

/** Unfinished deliveries of one provider in one state, and the earliest due time among those due. */
export interface QueueCount {
  provider: string;
  state: 'queued' | 'leased';
  count: number;
  /** Of `queued` rows due by `now`: the earliest `due_at`; null when none is due. */
  oldestDue: number | null;
}

/** The queue as an operator watches it (metrics): what waits or is being sent, per provider. */
export async function countQueuedDeliveries(db: Db, now: number): Promise<QueueCount[]> {
  const { pushDeliveries } = schemaOf(db);
  const rows = await db
    .select({
      provider: pushDeliveries.provider,
      state: pushDeliveries.state,
      count: sql<number>`count(*)`,
      oldestDue: sql<number | null>`min(case when ${pushDeliveries.dueAt} <= ${now} then ${pushDeliveries.dueAt} end)`,
    })
    .from(pushDeliveries)
    .where(inArray(pushDeliveries.state, ['queued', 'leased']))
    .groupBy(pushDeliveries.provider, pushDeliveries.state);
  // PostgreSQL's count and min come back as text (bigint).
  return rows.map((row) => ({
    provider: row.provider,
    state: row.state as QueueCount['state'],
    count: Number(row.count),
    oldestDue: row.oldestDue === null ? null : Number(row.oldestDue),
  }));
}

/** Leases that ran out (their worker was killed or hung) go back to the queue. */
export async function recoverExpiredLeases(tx: Tx, now: number): Promise<number> {
  const { pushDeliveries } = schemaOf(tx);
  return changes(
    await tx
      .update(pushDeliveries)
      .set({ state: 'queued', leaseOwner: null, leaseUntil: null })
      .where(and(eq(pushDeliveries.state, 'leased'), lte(pushDeliveries.leaseUntil, now))),
  );
}

/** Puts a delivery back in the queue until `dueAt`; false if another attempt was made or recorded since. */
export async function requeueDelivery(db: Db, delivery: Delivery, dueAt: number): Promise<boolean> {
  return (await db.$client.run(statementsOf(db).retry, [dueAt, delivery.id, delivery.attempts])) > 0;
}

/** Gives deliveries their final state; returns the ids of those that were not final yet. */
export async function finishDeliveries(db: Db, final: readonly (readonly [id: number, state: DeliveryState])[], now: number): Promise<number[]> {
  if (final.length === 0) return [];
  return (await db.$client.query<{ id: number }>(statementsOf(db).finish, [now, JSON.stringify(final)])).map(({ id }) => id);
}

/** Deliveries still queued when their notification's `expire` passed become `expired`; returns them. */
export async function expireDueDeliveries(db: Db, now: number): Promise<Delivery[]> {
  const { pushDeliveries } = schemaOf(db);
  return await db
    .update(pushDeliveries)
    .set({ state: 'expired', finished: now })
    .where(and(eq(pushDeliveries.state, 'queued'), isNotNull(pushDeliveries.expireAt), lte(pushDeliveries.expireAt, now)))
    .returning();
}

export type ReceiptRow = [uuid: string, appUuid: string, notificationUuid: string, deviceUuid: string, properties: Record<string, unknown>];

/** Registers the receipts collection in each application that gets a receipt. */
export async function registerReceipts(db: Db, appUuids: Iterable<string>, now: number): Promise<void> {
  const statements = statementsOf(db);
  for (const appUuid of new Set(appUuids)) await db.$client.run(statements.collection, [appUuid, now]);
}

/** Receipt entities, each connected from its notification and its device, in two statements. */
export async function insertReceipts(db: Db, rows: readonly ReceiptRow[], now: number): Promise<void> {
  if (rows.length === 0) return;
  const statements = statementsOf(db);
  const receipts = JSON.stringify(rows);
  await db.$client.run(statements.receipts, [now, now, receipts]);
  await db.$client.run(statements.connections, [now, receipts, now, receipts]);
}

/** Removes a push token from a device's property, if the device still holds that token there. */
export async function removeDeviceToken(db: Db, deviceUuid: string, property: string, token: string, now: number): Promise<void> {
  const { entities } = schemaOf(db);
  await db
    .update(entities)
    .set({ properties: jsonWithout(db, entities.properties, property), modified: now })
    .where(and(eq(entities.uuid, deviceUuid), eq(jsonText(db, entities.properties, property), token)));
}

/** Whether a notification has a delivery still queued or leased. */
export async function hasPendingDeliveries(db: Db, notificationUuid: string): Promise<boolean> {
  // Asked after every batch of answers, so a constant text.
  return (await firstValue(db, statementsOf(db).pending, [notificationUuid])) !== undefined;
}

/** How many deliveries of a notification are in each state. */
export async function countDeliveriesByState(db: Db, notificationUuid: string): Promise<Map<string, number>> {
  const { pushDeliveries } = schemaOf(db);
  const rows = await db
    .select({ state: pushDeliveries.state, count: sql<number>`count(*)` })
    .from(pushDeliveries)
    .where(eq(pushDeliveries.notificationUuid, notificationUuid))
    .groupBy(pushDeliveries.state);
  return new Map(rows.map((row) => [row.state as string, row.count]));
}

/** States a notification is closed from; a canceled one stays canceled. */
const OPEN_STATES: readonly NotificationState[] = [...UNSENT_STATES, 'STARTED'];

/** Writes a notification's final state, time and statistics, unless it is already final. */
export async function closeNotification(
  db: Db,
  uuid: string,
  close: { state: NotificationState; statistics: Record<string, number> },
  now: number,
): Promise<void> {
  const { entities } = schemaOf(db);
  await db
    .update(entities)
    .set({
      properties: jsonWith(db, entities.properties, { state: close.state, finished: now, statistics: close.statistics }),
      modified: now,
    })
    .where(and(eq(entities.uuid, uuid), inArray(jsonText(db, entities.properties, 'state'), [...OPEN_STATES])));
}
