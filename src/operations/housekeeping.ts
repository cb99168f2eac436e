/**
 * Housekeeping: every instance forgets, now and then, the rows that can no longer be used —
 * refresh tokens and token families whose every token has expired, authorization codes and pushed
 * authorization requests past their use, password-guessing counts that have decayed, JWT IDs whose
 * JWT has expired (jti-replay.ts), back-channel logout deliveries finished a week ago, uploaded files no entity holds — so the tables that grow with every sign-in
 * stay as large as what is live (docs/operations.md#housekeeping). The other expiring rows
 * (browser sessions, revocations, mailed links, captcha solutions, federation requests, device
 * authorizations) are dropped by the writes that add them. Running on several instances at once
 * is harmless: each delete only removes what nothing can use.
 */
import type { Deps } from '../deps.js';
import { pruneTokenFamilies } from '../identity/sessions/token-families.js';
import { removeUnlinkedAssets } from '../data/assets.js';
import { prunePushedRequests } from '../identity/authorize/pushed-request-store.js';
import { pruneJtiClaims } from '../identity/tokens/jti-replay.js';
import { pruneLogoutDeliveries } from '../db/logout-store.js';

export type Pruned = Record<
  | 'refresh_tokens'
  | 'token_families'
  | 'authorization_codes'
  | 'pushed_authorization_requests'
  | 'login_throttle'
  | 'jti_replay'
  | 'logout_deliveries'
  | 'assets',
  number
>;

/** How long a finished back-channel logout delivery is kept, for operators to look into: a week. */
const LOGOUT_DELIVERIES_KEPT_MS = 7 * 24 * 60 * 60 * 1000;

/** How often `idp serve` runs housekeeping: the growth it allows is one hour of sign-ins. */
export const HOUSEKEEPING_INTERVAL_MS = 60 * 60 * 1000;

/** Forgets every row that can no longer be used, as of `deps.now()`; returns how many per table. */
export async function pruneExpired(deps: Deps): Promise<Pruned> {
  const now = deps.now();
  const tokens = await deps.db.transaction((tx) => pruneTokenFamilies(tx, now, deps.config.accessTokenTtl * 1000));
  const pruned: Pruned = {
    refresh_tokens: tokens.refreshTokens,
    token_families: tokens.tokenFamilies,
    authorization_codes: tokens.authorizationCodes,
    pushed_authorization_requests: await prunePushedRequests(deps, now),
    login_throttle: await deps.throttle.prune(now),
    jti_replay: await pruneJtiClaims(deps.db, now),
    logout_deliveries: await pruneLogoutDeliveries(deps.db, now - LOGOUT_DELIVERIES_KEPT_MS),
    // Also after every upload and delete; here for the uploads a crash cut off.
    assets: await removeUnlinkedAssets(deps),
  };
  for (const [table, count] of Object.entries(pruned)) if (count > 0) deps.metrics.pruned.inc({ table }, count);
  if (Object.values(pruned).some((count) => count > 0)) deps.logger.info({ event: 'housekeeping', pruned }, 'expired rows forgotten');
  return pruned;
}

/**
 * Runs housekeeping every `intervalMs` (the first run after one interval, so a start-up is not
 * slowed) until the returned stop is called. A failed run is logged and the next one tries again.
 */
export function startHousekeeping(deps: Deps, intervalMs = HOUSEKEEPING_INTERVAL_MS): { stop(): Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    running = pruneExpired(deps).catch((error: unknown) => deps.logger.error({ event: 'housekeeping', err: error }, 'housekeeping failed'));
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
