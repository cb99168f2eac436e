/**
 * The devices a notification goes to (seed: POST …/devices/{deviceId}/notifications,
 * …/devices/[*]/notifications, …/devices?ql=, …/users/{userId}/notifications,
 * …/groups/{path}/notifications): one device, every device or those a query matches, a user's
 * devices, or the devices of every member of a group.
 */
import { and, eq, getTableColumns } from 'drizzle-orm';
import { alias } from 'drizzle-orm/sqlite-core';
import { connections, entities } from '../db/schema.js';
import type { Tx } from '../deps.js';
import { requireEntity, type EntityRow } from '../data/entities.js';
import { requireUser } from '../data/users.js';
import { compileQuery, parseQuery } from '../data/query/index.js';

export type NotificationTarget =
  | { readonly kind: 'device'; readonly id: string }
  /** Every device, or with `ql` those the query matches (the seed's location targeting). */
  | { readonly kind: 'devices'; readonly ql?: string }
  | { readonly kind: 'user'; readonly id: string; readonly caller?: string }
  | { readonly kind: 'group'; readonly id: string };

const DEVICES = 'devices';

/** The devices of one user, or of every member of one group, each once. */
function devicesOf(tx: Tx, appUuid: string, owner: { user: string } | { group: string }): EntityRow[] {
  const owned = alias(connections, 'owned');
  const member = alias(connections, 'member');
  const isDevice = and(eq(owned.relation, DEVICES), eq(entities.appUuid, appUuid), eq(entities.collection, DEVICES));
  const query = tx.selectDistinct(getTableColumns(entities));
  if ('user' in owner) {
    return query.from(owned).innerJoin(entities, eq(entities.uuid, owned.targetUuid)).where(and(eq(owned.sourceUuid, owner.user), isDevice)).all();
  }
  return query
    .from(member)
    .innerJoin(owned, eq(owned.sourceUuid, member.targetUuid))
    .innerJoin(entities, eq(entities.uuid, owned.targetUuid))
    .where(and(eq(member.sourceUuid, owner.group), eq(member.relation, 'users'), isDevice))
    .all();
}

/** @throws AppError 404 for an unknown device, user or group; 400 for a bad query. */
export function resolveTargetDevices(tx: Tx, appUuid: string, target: NotificationTarget): EntityRow[] {
  switch (target.kind) {
    case 'device':
      return [requireEntity(tx, appUuid, DEVICES, target.id)];
    case 'devices': {
      const where = target.ql === undefined || target.ql.trim() === '' ? undefined : compileQuery(parseQuery(target.ql), { dialect: 'sqlite' }).where;
      return tx
        .select()
        .from(entities)
        .where(and(eq(entities.appUuid, appUuid), eq(entities.collection, DEVICES), where))
        .all();
    }
    case 'user':
      return devicesOf(tx, appUuid, { user: requireUser(tx, appUuid, target.id, target.caller).uuid });
    case 'group':
      return devicesOf(tx, appUuid, { group: requireEntity(tx, appUuid, 'groups', target.id).uuid });
  }
}
