/**
 * The audit trail of second factors (docs/api.md#second-factors): enrolling, activating and
 * removing a factor, new recovery codes, and each use of one at a sign-in (a TOTP code, a
 * recovery code, a passkey, a wrong code or a failed passkey), as Duende's events are. Each is
 * one log line, and an entry where the user's administrators read what happened: an app user's
 * in the application's `events` collection, an admin user's in their management feed. They say
 * who, which factor and how, never a secret or a code.
 */
import type { Deps } from '../../deps.js';
import { insertEntity } from '../../db/entity-store.js';
import { recordActivity } from '../../management/activities.js';
import { ADMIN_REALM } from '../sign-in/throttle.js';

export type FactorEvent =
  | 'factor_enrolled'
  | 'factor_activated'
  | 'factor_removed'
  | 'second_factor_used'
  | 'recovery_code_used'
  | 'second_factor_failed'
  | 'recovery_codes_regenerated'
  | 'passkey_sign_in'
  | 'passkey_failed';

const TITLES: Record<FactorEvent, string> = {
  factor_enrolled: 'enrolled a second factor',
  factor_activated: 'activated a second factor',
  factor_removed: 'second factor removed',
  second_factor_used: 'signed in with a second factor',
  recovery_code_used: 'signed in with a recovery code',
  second_factor_failed: 'a wrong one-time code was given at sign-in',
  recovery_codes_regenerated: 'new recovery codes replaced the old ones',
  passkey_sign_in: 'signed in with a passkey, without a password',
  passkey_failed: 'a passkey was refused at sign-in',
};

export interface FactorEventFacts {
  /** `admin`, or the uuid of the application whose user this is. */
  realm: string;
  userUuid: string;
  factor?: { id: string; type: string };
  /** Where a code was given: a password grant, or the sign-in page. */
  via?: 'grant' | 'page';
  /** The client's address, for the log line only. */
  address?: string;
}

/** Writes the log line and the administrators' entry of one factor event. */
export async function recordFactorEvent(deps: Deps, event: FactorEvent, facts: FactorEventFacts): Promise<void> {
  const { realm, userUuid, factor, via } = facts;
  const details = { ...(factor && { factor: factor.id, factor_type: factor.type }), ...(via && { via }) };
  const level = event === 'second_factor_failed' || event === 'passkey_failed' ? 'warn' : 'info';
  deps.logger[level]({ event, realm, subject: userUuid, ...details, ...(facts.address && { address: facts.address }) }, TITLES[event]);
  const now = deps.now();
  if (realm === ADMIN_REALM) {
    await recordActivity(deps.db, now, {
      orgUuid: null,
      actorUuid: null,
      verb: event,
      category: 'admin',
      title: TITLES[event],
      objectType: 'user',
      objectUuid: userUuid,
      objectName: factor?.type ?? via ?? '',
    });
    return;
  }
  await insertEntity(deps.db, {
    appUuid: realm,
    collection: 'events',
    type: 'event',
    properties: { timestamp: now, category: 'security', action: event, title: TITLES[event], user: userUuid, ...details },
    now,
  });
}
