/**
 * Notifications (Usergrid's CreateNotification, ScheduleNotification, SetExpiration, CancelMSG;
 * docs/api.md#push-notifications). Accepting one stores the notification entity and one queued
 * delivery per device and notifier in the same transaction, before the request is answered; the
 * delivery worker (worker.ts) does the rest. States:
 *
 *   CREATED ─┬─ worker claims a delivery ─→ STARTED ─→ FINISHED (some sent) | FAILED (none sent)
 *   SCHEDULED┘                                       └→ EXPIRED (nothing sent before `expire`)
 *   CREATED | SCHEDULED ─ PUT {canceled: true} ─→ CANCELED
 */
import { UNSENT_STATES, type NotificationState } from '../db/schema.js';
import { cancelQueuedDeliveries, hasSentDeliveries, queueDeliveries } from '../db/push-store.js';
import { updateEntityRow } from '../db/entity-store.js';
import { Forbidden, IllegalArgument, RequiredProperty } from '../errors.js';
import type { Deps } from '../deps.js';
import { deleteEntitiesIn, insertEntityFromBody, requireEntity, type CollectionRef, type EntityRow } from '../data/entities.js';
import { findNotifier, tokenProperty } from './notifiers.js';
import type { Tx } from '../db/open.js';
import { targetDevices, type NotificationTarget } from './targets.js';

export const NOTIFICATIONS: CollectionRef = { name: 'notifications', type: 'notification' };

/** Properties the server keeps; a request cannot set them. */
const SERVER_PROPERTIES: ReadonlySet<string> = new Set(['state', 'queued', 'started', 'finished', 'canceled', 'expectedCount', 'statistics', 'errorMessage']);

/** ms since the epoch as a number or a numeric string (ScheduleNotification's `timestamp`). */
function timeOf(body: Record<string, unknown>, field: 'deliver' | 'expire'): number | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  const number = typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isSafeInteger(number) || number < 0) {
    throw IllegalArgument(`${field} must be a number: milliseconds since the epoch`, { fields: { [field]: 'must be a number (ms since the epoch)' } });
  }
  return number;
}

interface Payload {
  readonly notifier: EntityRow;
  readonly message: unknown;
}

async function payloadsOf(tx: Tx, appUuid: string, body: Record<string, unknown>): Promise<Payload[]> {
  const payloads = body.payloads;
  if (payloads === undefined || payloads === null)
    throw RequiredProperty('payloads is required: {notifierName: message}', { fields: { payloads: 'required' } });
  if (typeof payloads !== 'object' || Array.isArray(payloads))
    throw IllegalArgument('payloads must be an object: {notifierName: message}', { fields: { payloads: 'must be an object' } });
  const entries = Object.entries(payloads as Record<string, unknown>);
  if (entries.length === 0) throw IllegalArgument('payloads names no notifier', { fields: { payloads: 'must name at least one notifier' } });
  // One after another: the lookups run inside the caller's transaction.
  const found: Payload[] = [];
  for (const [name, message] of entries) {
    const notifier = await findNotifier(tx, appUuid, name);
    if (notifier === undefined) throw IllegalArgument(`notifier '${name}' not found`, { fields: { payloads: `notifier '${name}' not found` } });
    const isObject = typeof message === 'object' && message !== null && !Array.isArray(message);
    if (typeof message !== 'string' && !isObject) {
      throw IllegalArgument(`the payload for '${name}' must be a text or an object`, { fields: { [`payloads.${name}`]: 'must be a text or an object' } });
    }
    found.push({ notifier, message });
  }
  return found;
}

/**
 * Validates a CreateNotification body, finds the target's devices and stores the notification
 * with its deliveries. @throws AppError 400 for a bad body, 404 for an unknown target.
 */
export async function createNotification(deps: Deps, appUuid: string, target: NotificationTarget, body: unknown): Promise<EntityRow> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw IllegalArgument('the request body must be a JSON object with payloads', { fields: { body: 'must be a JSON object' } });
  }
  const input = body as Record<string, unknown>;
  return await deps.db.transaction(async (tx) => {
    const now = deps.now();
    const payloads = await payloadsOf(tx, appUuid, input);
    const deliver = timeOf(input, 'deliver');
    const expire = timeOf(input, 'expire');
    if (deliver !== undefined && deliver < now) throw IllegalArgument('deliver is in the past', { fields: { deliver: 'must be in the future' } });
    if (expire !== undefined && expire <= (deliver ?? now)) {
      throw IllegalArgument(deliver === undefined ? 'expire is in the past' : 'expire is not after deliver', {
        fields: { expire: 'must be after deliver and now' },
      });
    }
    const devices = await targetDevices(tx, appUuid, target);
    const extra = Object.fromEntries(Object.entries(input).filter(([key]) => !SERVER_PROPERTIES.has(key)));
    const notification = await insertEntityFromBody(tx, appUuid, NOTIFICATIONS, { ...extra, state: 'CREATED' }, now);
    let queued = 0;
    for (const { notifier } of payloads) {
      queued += await queueDeliveries(tx, {
        appUuid,
        notificationUuid: notification.uuid,
        notifierUuid: notifier.uuid,
        provider: String(notifier.properties.provider),
        tokenProperty: tokenProperty(notifier.name ?? ''),
        devices,
        dueAt: deliver ?? now,
        expireAt: expire,
      });
    }
    const state: NotificationState = queued === 0 ? 'FINISHED' : deliver !== undefined && deliver > now ? 'SCHEDULED' : 'CREATED';
    const properties = {
      ...notification.properties,
      state,
      queued: now,
      expectedCount: queued,
      statistics: { sent: 0, errors: 0 },
      ...(state === 'FINISHED' && { started: now, finished: now }),
    };
    return await updateEntityRow(tx, notification, properties, notification.name, now);
  });
}

export async function requireNotification(tx: Tx, appUuid: string, id: string): Promise<EntityRow> {
  return await requireEntity(tx, appUuid, NOTIFICATIONS.name, id);
}

function stateOf(row: EntityRow): NotificationState {
  return row.properties.state as NotificationState;
}

/**
 * CancelMSG: a notification nothing of which has been sent becomes CANCELED and its deliveries
 * are dropped; once the worker has started it, 403 as in Usergrid.
 */
export async function cancelNotification(deps: Deps, appUuid: string, id: string, body: unknown): Promise<EntityRow> {
  const canceled = typeof body === 'object' && body !== null ? (body as Record<string, unknown>).canceled : undefined;
  if (canceled === undefined) throw RequiredProperty('canceled is required: {"canceled": true}', { fields: { canceled: 'required' } });
  if (canceled !== true) throw IllegalArgument('canceled can only be set to true', { fields: { canceled: 'must be true' } });
  return await deps.db.transaction(async (tx) => {
    const row = await requireNotification(tx, appUuid, id);
    const state = stateOf(row);
    if (state === 'CANCELED') return row;
    if (!UNSENT_STATES.includes(state)) throw Forbidden(`notification ${row.uuid} is ${state}: only an unsent notification can be canceled`);
    const now = deps.now();
    await cancelQueuedDeliveries(tx, row.uuid, now);
    return await updateEntityRow(tx, row, { ...row.properties, state: 'CANCELED', canceled: true, finished: now }, row.name, now);
  });
}

/** Deletes a notification nothing of which was sent (with its queued deliveries); else 403. */
export async function deleteNotification(deps: Deps, appUuid: string, id: string): Promise<EntityRow> {
  return await deps.db.transaction(async (tx) => {
    const row = await requireNotification(tx, appUuid, id);
    if (stateOf(row) === 'STARTED' || (await hasSentDeliveries(tx, row.uuid))) {
      throw Forbidden(`notification ${row.uuid} has been sent: only unsent notifications can be deleted`);
    }
    await deleteEntitiesIn(tx, [row]);
    return row;
  });
}
