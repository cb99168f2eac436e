/**
 * The settings of applications and organizations, kept in their `properties`
 * (PUT /management/orgs/{org}[/apps/{app}]; docs/api.md#passwords, docs/api.md#second-factors).
 */
import { eq } from 'drizzle-orm';

import type { Deps } from '../deps.js';
import { recordActivity } from './activities.js';
import { schemaOf } from '../db/open.js';

interface Settled {
  uuid: string;
  name: string;
  properties: Record<string, unknown>;
  modified: number;
}

/** `properties` with `settings` applied: a setting given replaces the one stored whole, `null` or `false` removes it. */
export function withSettings(properties: Record<string, unknown>, settings: object): Record<string, unknown> {
  const updated = { ...properties };
  for (const [name, value] of Object.entries(settings) as [string, unknown][]) {
    if (value === null || value === false) delete updated[name];
    else if (value !== undefined) updated[name] = value;
  }
  return updated;
}

/** Whether the users an application or organization holds must have a second factor (docs/account.md#second-factor-required). */
export function requiresSecondFactor(owner: { properties: Record<string, unknown> }): boolean {
  return owner.properties.secondFactorRequired === true;
}

/**
 * Stores `settings` on an organization or application (withSettings), with an `update` activity in
 * the organization's feed; returns it as now stored.
 */
export async function storeSettings<T extends Settled>(
  deps: Deps,
  kind: 'organization' | 'application',
  orgUuid: string,
  target: T,
  settings: object,
  actorUuid: string | null,
): Promise<T> {
  const { applications, organizations } = schemaOf(deps.db);
  const properties = withSettings(target.properties, settings);
  const now = deps.now();
  const table = kind === 'organization' ? organizations : applications;
  await deps.db.transaction(async (tx) => {
    await tx.update(table).set({ properties, modified: now }).where(eq(table.uuid, target.uuid));
    await recordActivity(tx, now, {
      orgUuid,
      actorUuid,
      verb: 'update',
      category: kind,
      title: `${kind} ${target.name} updated`,
      objectType: kind,
      objectUuid: target.uuid,
      objectName: target.name,
    });
  });
  return { ...target, properties, modified: now };
}
