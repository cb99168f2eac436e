/**
 * The back-channel logout worker inside `idp serve` (OIDC Back-Channel Logout 1.0 2.5,
 * docs/api.md#logout): leases due deliveries from the queue (db/logout-store.ts), posts each
 * client a fresh logout token, and records the answer. As the push queue does, a delivery the RP
 * could not take (a 5xx, 429, timeout or network error) goes back to the queue with exponential
 * back-off until its attempts run out; a lease whose worker died runs out and is taken again; and
 * only the lease that made an attempt records it, so an answer is never recorded twice.
 *
 * The HTTP itself is the caller's (`post`): the core makes no connections of its own.
 */
import type { Deps } from '../../deps.js';
import { createSleeper } from '../../sleeper.js';
import { hasUnfinishedLogoutDeliveries, leaseLogoutDeliveries, recordLogoutAttempt, recoverLogoutLeases, type LogoutDelivery } from '../../db/logout-store.js';
import { findClient } from '../clients/find.js';
import { signLogoutToken } from '../tokens/logout-tokens.js';

/**
 * Posts a form body to a client's back-channel logout URI without following redirects, within
 * `timeoutMs`; resolves to the HTTP status, rejects on a network error or timeout.
 */
export type LogoutPost = (url: string, form: string, timeoutMs: number) => Promise<number>;

export interface LogoutWorkerOptions {
  /** How often an idle worker looks for due deliveries. */
  readonly pollMs: number;
  /** How long a lease lasts; more than `timeoutMs`, so a slow post is not taken twice. */
  readonly leaseMs: number;
  readonly timeoutMs: number;
  /** Attempts per delivery before a retryable failure counts as failed. */
  readonly maxAttempts: number;
  /** Back-off after the first retryable failure; doubles each attempt, up to `retryMaxMs`. */
  readonly retryBaseMs: number;
  readonly retryMaxMs: number;
  /** Deliveries leased, and posted at once, per round. */
  readonly batchSize: number;
}

export const LOGOUT_WORKER_DEFAULTS: LogoutWorkerOptions = {
  // A logout is not urgent to the millisecond; an idle worker asks one indexed question a second.
  pollMs: 1000,
  // Three times the timeout: an answer always arrives, or fails, before the lease runs out.
  leaseMs: 30_000,
  timeoutMs: 10_000,
  // 2 s, 4 s, 8 s, 16 s, 32 s, then failed: an RP down for a minute still hears of it.
  maxAttempts: 6,
  retryBaseMs: 2000,
  retryMaxMs: 300_000,
  batchSize: 50,
};

export interface LogoutWorker {
  stop(): Promise<void>;
}

type Answer = { state: 'sent' | 'failed' } | { state: 'retry'; error: string };

/** What an RP's answer means (Back-Channel Logout 1.0 2.8): 200 taken, 400 refused, 5xx and 429 later. */
function answerOf(status: number): Answer & { error?: string } {
  if (status === 200 || status === 204) return { state: 'sent' };
  if (status >= 500 || status === 429) return { state: 'retry', error: `HTTP ${status}` };
  return { state: 'failed', error: `HTTP ${status}` };
}

export function startLogoutWorker(deps: Deps, post: LogoutPost, overrides: Partial<LogoutWorkerOptions> = {}): LogoutWorker {
  const options = { ...LOGOUT_WORKER_DEFAULTS, ...overrides };
  const log = deps.logger.child({ component: 'backchannel-logout' });
  let stopping = false;
  const sleeper = createSleeper();

  async function attempt(delivery: LogoutDelivery): Promise<void> {
    const client = await findClient(deps, delivery.clientId);
    let answer: Answer & { error?: string };
    if (!client?.backchannelLogout) answer = { state: 'failed', error: 'the client has no backchannel_logout_uri any more' };
    else {
      try {
        const token = await signLogoutToken(deps, delivery);
        answer = answerOf(await post(client.backchannelLogout.uri, new URLSearchParams({ logout_token: token }).toString(), options.timeoutMs));
      } catch (error) {
        answer = { state: 'retry', error: error instanceof Error ? error.message : String(error) };
      }
    }
    const now = deps.now();
    const retry = answer.state === 'retry' && delivery.attempts < options.maxAttempts;
    const retryAt = now + Math.min(options.retryMaxMs, options.retryBaseMs * 2 ** (delivery.attempts - 1));
    const state = retry ? 'queued' : answer.state === 'sent' ? 'sent' : 'failed';
    await recordLogoutAttempt(deps.db, delivery, { state, error: answer.error ?? null, retryAt }, now);
    if (state !== 'sent') log.info({ client: delivery.clientId, attempt: delivery.attempts, error: answer.error, retry }, 'back-channel logout not delivered');
  }

  /** One round: true when anything was leased. */
  async function round(): Promise<boolean> {
    if (!(await hasUnfinishedLogoutDeliveries(deps.db))) return false;
    await recoverLogoutLeases(deps.db, deps.now());
    const leased = await deps.db.transaction(async () => await leaseLogoutDeliveries(deps.db, options.batchSize, deps.now(), options.leaseMs));
    await Promise.all(leased.map((delivery) => attempt(delivery).catch((error: unknown) => log.error({ err: error }, 'recording a logout attempt failed'))));
    return leased.length > 0;
  }

  async function run(): Promise<void> {
    while (!stopping) {
      let busy = false;
      try {
        busy = await round();
      } catch (error) {
        log.error({ err: error }, 'the logout worker failed a round; retrying');
      }
      if (!busy && !stopping) await sleeper.pause(options.pollMs);
    }
  }

  const running = run();
  return {
    async stop() {
      stopping = true;
      sleeper.wake();
      await running;
    },
  };
}
