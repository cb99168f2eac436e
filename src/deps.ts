import type { Config } from './config.js';
import type { Db } from './db/open.js';
import type { Logger } from './logger.js';
import { createKeyStore, type KeyStore } from './identity/keys.js';
import { createMailer, type Mailer } from './mail/mailer.js';
import { loadMacKey } from './identity/secrets.js';
import { databaseThrottle, redisThrottle, type ThrottleStore } from './identity/throttle.js';

/** What the core needs from the outside world, passed explicitly (no hidden module state). */
export interface Deps {
  readonly db: Db;
  readonly config: Config;
  readonly logger: Logger;
  readonly keys: KeyStore;
  readonly mailer: Mailer;
  /** The login throttle's counters: in the database, or in Redis with --redis-url. */
  readonly throttle: ThrottleStore;
  /** Milliseconds since the epoch; injected so expiry and ordering can be tested. */
  now(): number;
}

/** The one place Deps are assembled, for `idp serve` and the tests alike. */
export async function createDeps(db: Db, config: Config, logger: Logger, now: () => number = Date.now): Promise<Deps> {
  const keys = createKeyStore(db, { access_token: config.accessTokenAlg, id_token: config.idTokenAlg }, now);
  const throttle = config.redisUrl ? await redisThrottle(config.redisUrl) : databaseThrottle(db);
  const deps = { db, config, logger, keys, mailer: createMailer(config, logger), throttle, now };
  await loadMacKey(deps);
  return deps;
}
