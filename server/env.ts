import type { Deps } from '../src/deps.js';
import type { Logger } from '../src/logger.js';
import type { Principal } from '../src/principal.js';
import type { Organization } from '../src/management/organizations.js';
import type { Application } from '../src/management/applications.js';
import type { RequestUrl } from './envelope.js';

/**
 * Typed per-request state. Read it with `c.get(name)`: hono's `c.var` copies every variable into
 * a new object on each access (Object.fromEntries), which showed up in the request profile.
 */
export interface Env {
  Variables: {
    deps: Deps;
    logger: Logger;
    startedAt: number;
    principal: Principal;
    /** The application of a data API request (/{org}/{app}/…), set by its access middleware. */
    appScope: { org: Organization; app: Application };
    /** The request's URL as answers show it, read once (envelope.ts urlOf). */
    url: RequestUrl;
  };
}
