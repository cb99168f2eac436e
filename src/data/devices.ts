/**
 * Devices (POST /{org}/{app}/devices; docs/api.md#push-notifications: a device holds its push
 * token in `<notifierName>.notifier.id`). A device registers itself by PUT to its own uuid, as
 * Usergrid's SDKs do, and the guest role allows exactly that (`put:/devices/*`): the first PUT
 * creates the device, later ones update it.
 */
import { IllegalArgument } from '../errors.js';
import type { Deps } from '../deps.js';
import { entityBodies, insertEntityFromBody, updateEntityIn, type CollectionRef } from './entities.js';
import { findEntityByUuid, isEntityUuidTaken, type EntityRow } from '../db/entity-store.js';

export const DEVICES: CollectionRef = { name: 'devices', type: 'device' };

export async function putDevice(deps: Deps, appUuid: string, uuid: string, body: unknown): Promise<EntityRow> {
  const [properties] = entityBodies(body);
  return await deps.db.transaction(async (tx) => {
    const now = deps.now();
    const existing = await findEntityByUuid(tx, appUuid, uuid);
    if (existing !== undefined && existing.collection !== DEVICES.name) {
      throw IllegalArgument(`${uuid} is the uuid of a ${existing.type}, not of a device`, { fields: { uuid: 'taken' } });
    }
    if (existing !== undefined) return updateEntityIn(tx, existing, properties, now);
    // Another application's entity: refused like one of this application's, without saying whose.
    if (await isEntityUuidTaken(tx, uuid))
      throw IllegalArgument(`${uuid} is already taken; a device registers under a uuid of its own`, { fields: { uuid: 'taken' } });
    return insertEntityFromBody(tx, appUuid, DEVICES, properties, now, uuid.toLowerCase());
  });
}
