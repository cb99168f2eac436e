/**
 * urn:ietf:params:oauth:grant-type:device_code (RFC 8628 3.4, 3.5): the device polls with its
 * device code until the user has allowed or denied it at /device. A poll sooner than the interval
 * it was told is `slow_down`, and the interval grows by five seconds; once allowed, the code is
 * exchanged once, for tokens that say how the user signed in, as the authorization code's do.
 */
import { and, eq } from 'drizzle-orm';

import type { Deps } from '../../deps.js';
import { AccessDenied, AuthorizationPending, DeviceCodeExpired, InvalidGrant, SlowDown } from '../../errors.js';
import { currentPrincipal } from '../tokens/access-tokens.js';
import { findDeviceAuthorizationByDeviceCode, type DeviceAuthorizationRow } from '../authorize/device-authorizations.js';
import { DEVICE_CODE_GRANT } from '../clients/find.js';
import { issueTokens } from '../tokens/issue.js';
import { insertTokenFamily, type TokenFamily } from '../sessions/token-families.js';
import { revokeTokenFamily } from '../tokens/revocations.js';
import { isScope } from '../scopes.js';
import { narrowResources } from '../tokens/resources.js';
import { requireParam, type GrantHandler } from './types.js';
import { schemaOf } from '../../db/open.js';
import { changes } from '../../db/run.js';

// RFC 8628 3.5: each slow_down adds five seconds to the interval.
const SLOW_DOWN_STEP = 5;

/** A poll before the user decided: pending, or slow_down for a device that did not wait. */
async function refusePoll(deps: Deps, row: DeviceAuthorizationRow): Promise<never> {
  const { deviceAuthorizations } = schemaOf(deps.db);
  const now = deps.now();
  const early = row.lastPolledAt !== null && now - row.lastPolledAt < row.interval * 1000;
  const interval = early ? row.interval + SLOW_DOWN_STEP : row.interval;
  await deps.db.update(deviceAuthorizations).set({ lastPolledAt: now, interval }).where(eq(deviceAuthorizations.id, row.id));
  if (early) throw SlowDown(`polling too fast: wait ${interval} s between requests`);
  throw AuthorizationPending('the user has not yet allowed or denied this device');
}

/** Marks an allowed authorization used and starts its token family, at once; null when it had been used. */
async function consume(deps: Deps, row: DeviceAuthorizationRow, resources: readonly string[]): Promise<TokenFamily | null> {
  const now = deps.now();
  return await deps.db.transaction(async (tx) => {
    const { deviceAuthorizations } = schemaOf(tx);
    const claimed = await tx
      .update(deviceAuthorizations)
      .set({ status: 'consumed' })
      .where(and(eq(deviceAuthorizations.id, row.id), eq(deviceAuthorizations.status, 'approved')));
    if (changes(claimed) !== 1) return null;
    return await insertTokenFamily(tx, now, {
      clientId: row.clientId,
      principal: row.principal!,
      scope: row.scope.split(' '),
      authTime: row.authTime!,
      amr: row.amr ?? undefined,
      resources,
    });
  });
}

export const deviceCodeGrant: GrantHandler = {
  grantType: DEVICE_CODE_GRANT,
  parameters: ['device_code'],
  async handle(deps, { client, params, jkt, resources: requested }) {
    const row = await findDeviceAuthorizationByDeviceCode(deps, requireParam(params, 'device_code'));
    if (!row) throw InvalidGrant('the device code is not valid');
    if (row.clientId !== client.clientId) throw InvalidGrant('the device code was issued to another client');
    if (row.status === 'consumed') throw InvalidGrant('the device code was already used');
    if (row.expiresAt <= deps.now()) throw DeviceCodeExpired('the device code has expired; start a new device authorization');
    if (row.status === 'denied') throw AccessDenied('the user denied this device');
    // RFC 8707 2.2: the resources of the device authorization request, narrowed; any, when it named
    // none. Checked before the user decides, so a device that asks too much hears it at once.
    const granted = row.resources ?? requested;
    const resources = narrowResources(requested, granted);
    if (row.status === 'pending') return refusePoll(deps, row);
    const family = await consume(deps, row, granted);
    if (!family) throw InvalidGrant('the device code was already used');
    try {
      const principal = await currentPrincipal(deps, family.principal);
      if (!principal) throw InvalidGrant('the account that allowed this device no longer exists or is disabled');
      // RFC 9449 5: a DPoP proof binds the tokens, and a public client's refresh tokens, as for every grant.
      return await issueTokens(deps, { client, principal, scope: family.scope.split(' ').filter(isScope), family, jkt, resources });
    } catch (error) {
      await revokeTokenFamily(deps, family.id);
      throw error;
    }
  },
};
