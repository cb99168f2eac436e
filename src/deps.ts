import type { Config } from './config.js';
import type { Db } from './db/open.js';
import type { Logger } from './logger.js';

/** What the core needs from the outside world, passed explicitly (no hidden module state). */
export interface Deps {
  readonly db: Db;
  readonly config: Config;
  readonly logger: Logger;
  /** Milliseconds since the epoch; injected so expiry and ordering can be tested. */
  now(): number;
}

/** A drizzle handle inside or outside a transaction: storage helpers accept either. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0] | Db;
