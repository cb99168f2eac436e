/**
 * The devices a notification goes to (POST …/devices/{deviceId}/notifications,
 * …/devices/[*]/notifications, …/devices?ql=, …/users/{userId}/notifications,
 * …/groups/{path}/notifications): one device, every device or those a query matches, a user's
 * devices, or the devices of every member of a group.
 */
import { and, eq, type SQL } from 'drizzle-orm';
import { alias } from 'drizzle-orm/sqlite-core';
import { connections, entities } from '../db/schema.js';
import { dialectOf, type Tx } from '../db/open.js';
import { requireEntity } from '../data/entities.js';
import { requireUser } from '../data/users.js';
import { compileQuery, parseQuery } from '../data/query/index.js';

export type NotificationTarget =
  | { readonly kind: 'device'; readonly id: string }
  /** Every device, or with `ql` those the query matches (Usergrid's targeting by location). */
  | { readonly kind: 'devices'; readonly ql?: string }
  | { readonly kind: 'user'; readonly id: string; readonly caller?: string }
  | { readonly kind: 'group'; readonly id: string };

const DEVICES = 'devices';

// What the fan-out reads of a device: its id and the properties that hold its push tokens.
const DEVICE_COLUMNS = { uuid: entities.uuid, properties: entities.properties };

/** The devices of one user, or of every member of one group, each once. */
function devicesOf(tx: Tx, appUuid: string, owner: { user: string } | { group: string }): SQL {
  const owned = alias(connections, 'owned');
  const member = alias(connections, 'member');
  const isDevice = and(eq(owned.relation, DEVICES), eq(entities.appUuid, appUuid), eq(entities.collection, DEVICES));
  const query = tx.selectDistinct(DEVICE_COLUMNS);
  if ('user' in owner) {
    return query.from(owned).innerJoin(entities, eq(entities.uuid, owned.targetUuid)).where(and(eq(owned.sourceUuid, owner.user), isDevice)).getSQL();
  }
  return query
    .from(member)
    .innerJoin(owned, eq(owned.sourceUuid, member.targetUuid))
    .innerJoin(entities, eq(entities.uuid, owned.targetUuid))
    .where(and(eq(member.sourceUuid, owner.group), eq(member.relation, 'users'), isDevice))
    .getSQL();
}

/**
 * The target's devices as a query of (uuid, properties), each device once, for the fan-out to
 * select from: a send to 100,000 devices then never brings them into JavaScript.
 * @throws AppError 404 for an unknown device, user or group; 400 for a bad query.
 */
export async function targetDevices(tx: Tx, appUuid: string, target: NotificationTarget): Promise<SQL> {
  switch (target.kind) {
    case 'device': {
      const device = await requireEntity(tx, appUuid, DEVICES, target.id);
      return tx.select(DEVICE_COLUMNS).from(entities).where(eq(entities.uuid, device.uuid)).getSQL();
    }
    case 'devices': {
      const where = target.ql === undefined || target.ql.trim() === '' ? undefined : compileQuery(parseQuery(target.ql), { dialect: dialectOf(tx) }).where;
      return tx
        .select(DEVICE_COLUMNS)
        .from(entities)
        .where(and(eq(entities.appUuid, appUuid), eq(entities.collection, DEVICES), where))
        .getSQL();
    }
    case 'user':
      return devicesOf(tx, appUuid, { user: (await requireUser(tx, appUuid, target.id, target.caller)).uuid });
    case 'group':
      return devicesOf(tx, appUuid, { group: (await requireEntity(tx, appUuid, 'groups', target.id)).uuid });
  }
}
