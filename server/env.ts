import type { HttpBindings } from '@hono/node-server';
import type { Deps } from '../src/deps.js';
import type { Logger } from '../src/logger.js';
import type { Principal } from '../src/principal.js';
import type { Authentication } from '../src/access/app-access.js';
import type { Organization } from '../src/management/organizations.js';
import type { Application } from '../src/management/applications.js';

/**
 * Typed per-request state. Read it with `c.get(name)`: hono's `c.var` copies every variable into
 * a new object on each access (Object.fromEntries), which showed up in the request profile.
 */
export interface Env {
  /** Node's request and response when served by @hono/node-server (serve.ts); absent under app.request(). */
  Bindings: Partial<HttpBindings> | undefined;
  Variables: {
    deps: Deps;
    logger: Logger;
    startedAt: number;
    /** The caller, set by the `caller` middleware of the areas that take tokens (server/access.ts). */
    principal: Principal;
    /** When the user behind the caller's token signed in, seconds since the epoch (middleware/principal.ts). */
    signedInAt?: number;
    /** What the caller's token says of its sign-in (`acr`, `auth_time`) and its scheme (middleware/principal.ts), for RFC 9470 step-up. */
    authentication?: Authentication;
    /** The organization of `/management/orgs/{orgId}/…`, set by `organizationAdmin` once access is granted. */
    organization: Organization;
    /** The application of `/{orgId}/{appId}/…` and `/management/orgs/{orgId}/apps/{appId}/…`, set by the area's middleware. */
    appScope: { org: Organization; app: Application };
    /** The area of the route table whose middleware has run for this request, compared by identity only (server/route-table.ts `Area`). */
    area: object;
    /** The path as the client sent it, before a nested group path was routed by uuid (group-paths.ts). */
    sentPath: string;
    /** The request's URL as answers show it, read once (envelope.ts urlOf). */
    url: URL;
  };
}
