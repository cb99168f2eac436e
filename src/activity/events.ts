/**
 * Events (POST /{org}/{app}/events, CreateEvent; docs/api.md#activities-feeds-and-events): data,
 * not a delivery channel. An event is an entity of `events` with its `timestamp` in ms since the
 * epoch; Usergrid's 0 (or none in a client that sends it empty) means "now".
 */
import { IllegalArgument } from '../errors.js';
import type { Deps } from '../deps.js';
import { entityBodies, insertEntityFromBody, type CollectionRef } from '../data/entities.js';
import type { EntityRow } from '../db/entity-store.js';

export const EVENTS: CollectionRef = { name: 'events', type: 'event' };

function timestampOf(value: unknown, now: number): number {
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isFinite(number) || number < 0) {
    throw IllegalArgument('timestamp is required: ms since the epoch, or 0 for now', { fields: { timestamp: 'required' } });
  }
  return number === 0 ? now : Math.trunc(number);
}

export async function createEvents(deps: Deps, appUuid: string, body: unknown): Promise<EntityRow[]> {
  const items = entityBodies(body);
  return await deps.db.transaction(async (tx) => {
    const now = deps.now();
    const rows: EntityRow[] = [];
    for (const item of items) rows.push(await insertEntityFromBody(tx, appUuid, EVENTS, { ...item, timestamp: timestampOf(item.timestamp, now) }, now));
    return rows;
  });
}
