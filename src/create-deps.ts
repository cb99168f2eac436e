import type { Config } from './config.js';
import { observeQueries, type Db } from './db/open.js';
import type { Deps } from './deps.js';
import type { Logger } from './logger.js';
import { Metrics } from './metrics.js';
import { createKeyStore } from './identity/keys/keys.js';
import { createMailer } from './mail/mailer.js';
import { loadServerSecrets } from './identity/keys/secrets.js';
import { databaseThrottle, redisThrottle } from './identity/sign-in/throttle.js';

/** The one place Deps are assembled, for `idp serve` and the tests alike. */
export async function createDeps(db: Db, config: Config, logger: Logger, now: () => number = Date.now): Promise<Deps> {
  const keys = createKeyStore(db, { access_token: config.accessTokenAlg, id_token: config.idTokenAlg }, now);
  const throttle = config.redisUrl ? await redisThrottle(config.redisUrl) : databaseThrottle(db);
  const metrics = new Metrics();
  observeQueries(db, (seconds) => metrics.dbQueryDuration.observe(seconds));
  const deps = { db, config, logger, keys, mailer: createMailer(config, logger), throttle, metrics, now };
  await loadServerSecrets(deps);
  return deps;
}
