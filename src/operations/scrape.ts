/**
 * The /metrics text: the counters kept as requests are answered (metrics.ts), and the push
 * queue's state read from storage at this moment, so every instance reports the shared queue.
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

export async function scrapeMetrics(deps: Deps): Promise<string> {
  await readQueue(deps);
  return deps.metrics.scrape();
}
