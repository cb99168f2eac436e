/**
 * Tables of push notifications beside the entities they serve. Notifiers,
 * notifications and receipts are entities (collections `notifiers`, `notifications`,
 * `receipts`) so the query language reaches them; what is not an entity lives here: the
 * notifiers' secrets, kept out of entity properties so no query or view can return them, and the
 * durable delivery queue, one row per device and notifier of a notification.
 */
import { sql } from 'drizzle-orm';
import { sqliteTable, text, integer, index } from 'drizzle-orm/sqlite-core';
import { entities } from './schema-core.js';

/** A notifier's credentials: the APNs `.p8` key or the FCM service-account JSON. */
export const pushNotifierSecrets = sqliteTable('push_notifier_secrets', {
  notifierUuid: text('notifier_uuid')
    .primaryKey()
    .references(() => entities.uuid, { onDelete: 'cascade' }),
  secret: text('secret', { mode: 'json' }).$type<Record<string, string>>().notNull(),
});

/** The collection of receipts: one entity per attempt that changed a delivery. */
export const RECEIPTS = { name: 'receipts', type: 'receipt' } as const;

/** Notification → receipt and device → receipt (read back as …/{id}/receipts and …/[*]/receipts). */
export const RECEIPTS_RELATION = 'receipts';

/** The `state` property of a notification entity (docs/api.md#push-notifications). */
export const NOTIFICATION_STATES = ['CREATED', 'SCHEDULED', 'STARTED', 'FINISHED', 'FAILED', 'EXPIRED', 'CANCELED'] as const;
export type NotificationState = (typeof NOTIFICATION_STATES)[number];
/** States in which nothing has been handed to a provider yet. */
export const UNSENT_STATES: readonly NotificationState[] = ['CREATED', 'SCHEDULED'];

export const DELIVERY_STATES = ['queued', 'leased', 'sent', 'failed', 'expired', 'canceled'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/**
 * The delivery queue. A row is `queued` until a worker leases it (`leased`, with `lease_until`);
 * a lease that runs out without an answer recorded — the worker was killed — goes back to
 * `queued`. `sent`, `failed`, `expired` and `canceled` are final. The device's push token is
 * copied in when the notification is accepted, so sending reads only this table.
 */
export const pushDeliveries = sqliteTable(
  'push_deliveries',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    appUuid: text('app_uuid').notNull(),
    notificationUuid: text('notification_uuid')
      .notNull()
      .references(() => entities.uuid, { onDelete: 'cascade' }),
    deviceUuid: text('device_uuid').notNull(),
    notifierUuid: text('notifier_uuid').notNull(),
    provider: text('provider').notNull(),
    token: text('token').notNull(),
    state: text('state', { enum: DELIVERY_STATES }).notNull(),
    attempts: integer('attempts').notNull().default(0),
    /** When the next attempt may start: the notification's `deliver`, or a retry's back-off. */
    dueAt: integer('due_at').notNull(),
    /** The notification's `expire`: not sent by then, never sent. */
    expireAt: integer('expire_at'),
    leaseOwner: text('lease_owner'),
    leaseUntil: integer('lease_until'),
    finished: integer('finished'),
  },
  (t) => [
    index('push_deliveries_due')
      .on(t.provider, t.dueAt)
      .where(sql`state = 'queued'`),
    index('push_deliveries_lease')
      .on(t.leaseUntil)
      .where(sql`state = 'leased'`),
    index('push_deliveries_expire')
      .on(t.expireAt)
      .where(sql`state = 'queued' and expire_at is not null`),
    index('push_deliveries_notification').on(t.notificationUuid, t.state),
  ],
);
