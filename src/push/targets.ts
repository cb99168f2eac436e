/**
 * The devices a notification goes to (POST …/devices/{deviceId}/notifications,
 * …/devices/[*]/notifications, …/devices?ql=, …/users/{userId}/notifications,
 * …/groups/{path}/notifications): one device, every device or those a query matches, a user's
 * devices, or the devices of every member of a group.
 */
import { dialectOf, type Tx } from '../db/open.js';
import { selectAppDevices, selectDevice, selectDevicesOf, type DeviceQuery } from '../db/push-store.js';
import { requireEntity } from '../data/entities.js';
import { DEVICES } from '../data/devices.js';
import { requireUser } from '../data/users.js';
import { compileQuery, parseQuery } from '../data/query/index.js';

export type NotificationTarget =
  | { readonly kind: 'device'; readonly id: string }
  /** Every device, or with `ql` those the query matches (Usergrid's targeting by location). */
  | { readonly kind: 'devices'; readonly ql?: string }
  | { readonly kind: 'user'; readonly id: string; readonly caller?: string }
  | { readonly kind: 'group'; readonly id: string };

/**
 * The target's devices as a query of (uuid, properties), each device once, for the fan-out to
 * select from: a send to 100,000 devices then never brings them into JavaScript.
 * @throws AppError 404 for an unknown device, user or group; 400 for a bad query.
 */
export async function targetDevices(tx: Tx, appUuid: string, target: NotificationTarget): Promise<DeviceQuery> {
  switch (target.kind) {
    case 'device':
      return selectDevice(tx, (await requireEntity(tx, appUuid, DEVICES.name, target.id)).uuid);
    case 'devices': {
      const where = target.ql === undefined || target.ql.trim() === '' ? undefined : compileQuery(parseQuery(target.ql), { dialect: dialectOf(tx) }).where;
      return selectAppDevices(tx, appUuid, where);
    }
    case 'user':
      return selectDevicesOf(tx, appUuid, { user: (await requireUser(tx, appUuid, target.id, target.caller)).uuid });
    case 'group':
      return selectDevicesOf(tx, appUuid, { group: (await requireEntity(tx, appUuid, 'groups', target.id)).uuid });
  }
}
