/**
 * The /metrics text: the counters kept as requests are answered (metrics.ts), the push queue's
 * state read from storage at this moment, so every instance reports the shared queue, and the
 * database pool's use.
 */
import { countQueuedDeliveries } from '../db/push-store.js';
import type { Deps } from '../deps.js';

async function readQueue(deps: Deps): Promise<void> {
  const { pushQueueDepth, pushQueueOldestAge } = deps.metrics;
  const now = deps.now();
  pushQueueDepth.reset();
  pushQueueOldestAge.reset();
  let counts;
  try {
    counts = await countQueuedDeliveries(deps.db, now);
  } catch (error) {
    // The rest of the scrape (request counts, process figures) is worth more while the database is down.
    deps.logger.debug({ err: error }, 'the push queue could not be read for /metrics');
    return;
  }
  for (const { provider, state, count, oldestDue } of counts) {
    pushQueueDepth.set({ provider, state }, count);
    if (state === 'queued') pushQueueOldestAge.set({ provider }, oldestDue === null ? 0 : Math.max(0, now - oldestDue) / 1000);
  }
}

/** The PostgreSQL pool's use now; SQLite has one connection and no pool, and no such series. */
function readPool(deps: Deps): void {
  const use = deps.db.$client.poolUse?.();
  if (use === undefined) return;
  for (const state of ['open', 'idle', 'waiting', 'max'] as const) deps.metrics.dbPoolConnections.set({ state }, use[state]);
}

export async function scrapeMetrics(deps: Deps): Promise<string> {
  await readQueue(deps);
  readPool(deps);
  return deps.metrics.scrape();
}
