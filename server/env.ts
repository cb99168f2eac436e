import type { Deps } from '../src/deps.js';
import type { Logger } from '../src/logger.js';
import type { Principal } from '../src/access/principal.js';

/** Typed per-request state (hono `c.var`). */
export interface Env {
  Variables: {
    deps: Deps;
    logger: Logger;
    startedAt: number;
    principal: Principal;
  };
}
