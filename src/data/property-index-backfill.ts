/**
 * Fills the property index for the entities stored before it existed, or before a migration made
 * its rows anew (docs/design.md#filling-the-index-of-an-older-database), inside `idp serve`, after it listens:
 * batches of entities in uuid order, one transaction each, with a pause between them
 * so requests get in, and the progress in the log. The position is stored with each batch, so a
 * stopped server carries on where it stopped; with several instances on one database the one
 * holding the lease does it, and another takes over when that lease runs out. Queries meanwhile
 * read the collection instead of the index (find.ts): slower, and right.
 */
import { randomUUID } from 'node:crypto';
import type { Deps } from '../deps.js';
import { createSleeper } from '../sleeper.js';
import { indexNextEntities, isPropertyIndexComplete, leasePropertyIndexBackfill, releasePropertyIndexBackfill } from '../db/property-index-store.js';

export interface BackfillOptions {
  /** How long the lease lasts without a batch renewing it; far more than a batch takes. */
  readonly leaseMs: number;
  /** How often an instance without the lease looks whether it is done, or free. */
  readonly pollMs: number;
  /** The pause between batches. */
  readonly pauseMs: number;
}

const DEFAULTS: BackfillOptions = {
  leaseMs: 60_000,
  pollMs: 10_000,
  // Requests waiting for the database go first; the batches take what is left.
  pauseMs: 5,
};

export interface Backfill {
  /** Resolves once the index is complete, or the backfill stopped. */
  finished(): Promise<void>;
  /** Stops after the batch under way, giving the lease up. */
  stop(): Promise<void>;
}

const count = new Intl.NumberFormat('en-US');

/** `batchSize`: entities per transaction (config.ts `propertyIndexBatch`). */
export function startPropertyIndexBackfill(deps: Pick<Deps, 'db' | 'logger' | 'now'>, batchSize: number, overrides: Partial<BackfillOptions> = {}): Backfill {
  const options = { ...DEFAULTS, ...overrides };
  const log = deps.logger.child({ component: 'property-index' });
  const owner = randomUUID();
  const sleeper = createSleeper();
  let stopping = false;

  /** Runs batches while this instance holds the lease; true once the index is complete. */
  async function fill(): Promise<boolean> {
    const position = await leasePropertyIndexBackfill(deps.db, owner, deps.now(), options.leaseMs);
    if (position === null) return false;
    const total = position.indexed + position.remaining;
    log.info({ indexed: position.indexed, total }, `property index: indexing the ${count.format(total)} stored entities`);
    let shown = -1;
    while (!stopping) {
      const step = await indexNextEntities(deps.db, owner, batchSize, deps.now(), options.leaseMs);
      if (step.state === 'lost') return false;
      if (step.state === 'done') {
        log.info({ indexed: position.indexed + position.remaining }, 'property index: complete; queries use it from now on');
        return true;
      }
      // Once per whole percent: a million entities log a hundred lines.
      const percent = Math.min(100, Math.floor((step.indexed * 100) / Math.max(total, 1)));
      if (percent !== shown) {
        shown = percent;
        log.info({ indexed: step.indexed, total }, `property index: ${count.format(step.indexed)} of ${count.format(total)} entities (${percent}%)`);
      }
      await sleeper.pause(options.pauseMs);
    }
    await releasePropertyIndexBackfill(deps.db, owner);
    return false;
  }

  async function run(): Promise<void> {
    while (!stopping) {
      try {
        if (await isPropertyIndexComplete(deps.db)) return;
        if (await fill()) return;
      } catch (error) {
        log.error({ err: error }, 'property index: a batch failed; trying again');
      }
      if (!stopping) await sleeper.pause(options.pollMs);
    }
  }

  const running = run();
  return {
    finished: () => running,
    async stop() {
      stopping = true;
      sleeper.wake();
      await running;
    },
  };
}
