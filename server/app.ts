/**
 * createApp(deps): the whole HTTP surface as one route table. Each area is mounted at its own
 * URL prefix with the middleware its routes share; the route table (server/route-table.ts)
 * registers every route most specific first, so the areas below may be listed in any order.
 * From a URL to its file: find the longest prefix here, then the path in the listed module, or
 * run `idp routes`, which prints every method, path and file.
 */
import type { Hono } from 'hono';
import type { Deps } from '../src/deps.js';
import { NotFound } from '../src/errors.js';
import { freshener } from '../src/db/open.js';
import { VERSION } from '../src/version.js';
import type { Env } from './env.js';
import { onError } from './errors.js';
import { router } from './openapi.js';
import { mountAreas, type Area } from './route-table.js';
import { routeNestedGroupPaths, sentPathOf } from './group-paths.js';
import { application, caller, dataAccess, managedApplication, organizationAdmin } from './access.js';
import { bodySizeLimit } from './middleware/body-limit.js';
import { noStore } from './middleware/no-store.js';
import { secureHeadersElsewhere, sendsHsts } from './middleware/secure-headers.js';
import { refuseInvalidPath } from './middleware/path-segments.js';
import { observeRequests } from './middleware/observe.js';
import { statusRoutes } from './routes/status.js';
import { livenessRoutes, readinessRoutes } from './routes/health.js';
import { metricsRoutes } from './routes/metrics.js';
import { docsRoutes } from './routes/docs.js';
import { consoleRoutes } from './routes/console.js';
import { discoveryRoutes, tokenEndpointRoutes } from './routes/oauth.js';
import { authorizeRoutes } from './routes/authorize.js';
import { deviceRoutes } from './routes/device.js';
import { endSessionRoutes } from './routes/end-session.js';
import { pageAssetRoutes } from './routes/page-assets.js';
import { managementRoutes } from './routes/management.js';
import { managementTokenRoutes, applicationTokenRoutes } from './routes/usergrid-token.js';
import { keyRoutes } from './routes/keys.js';
import { adminLifecycleRoutes, appUserLifecycleRoutes } from './routes/lifecycle.js';
import { organizationRoutes } from './routes/organization.js';
import { applicationRoutes } from './routes/application.js';
import { clientRoutes } from './routes/clients.js';
import { registrationRoutes } from './routes/registration.js';
import { identityProviderRoutes } from './routes/identity-providers.js';
import { pushRoutes } from './routes/notifications.js';
import { entityRoutes } from './routes/data/entities.js';
import { relationRoutes } from './routes/data/relations.js';
import { userTokenRoutes } from './routes/data/user-tokens.js';
import { userFactorRoutes } from './routes/data/user-factors.js';
import { adminFactorRoutes } from './routes/admin-factors.js';
import { adminSignInRoutes } from './routes/admin-sign-ins.js';
import { userSignInRoutes } from './routes/data/user-sign-ins.js';
import { userStateRoutes } from './routes/data/user-state.js';
import { userPermittedRoutes } from './routes/data/user-permitted.js';
import { adminAccountRoutes, appAccountRoutes } from './routes/account.js';

/** Every area of the server: where it is mounted, what runs before its routes, and its route modules. */
export const AREAS: readonly Area[] = [
  { prefix: '/status', routes: [statusRoutes] },
  // What load balancers and Prometheus poll: an answer of a moment ago is no answer.
  { prefix: '/healthz', middleware: [noStore()], routes: [livenessRoutes] },
  { prefix: '/readyz', middleware: [noStore()], routes: [readinessRoutes] },
  { prefix: '/metrics', middleware: [noStore()], routes: [metricsRoutes] },
  { prefix: '/docs', routes: [docsRoutes] },
  { prefix: '/console', routes: [consoleRoutes] },
  { prefix: '/.well-known', routes: [discoveryRoutes] },
  // OAuth endpoints authenticate their clients themselves; every answer there is no-store (RFC 6749 5.1).
  { prefix: '/connect', middleware: [noStore()], routes: [tokenEndpointRoutes, registrationRoutes, authorizeRoutes, endSessionRoutes, pageAssetRoutes] },
  // The device authorization grant's verification page (RFC 8628 3.3), at the short address a user types.
  { prefix: '/device', middleware: [noStore()], routes: [deviceRoutes] },
  // Usergrid's token endpoints: the credentials in the body are the caller. Its SDKs send their
  // last token along, which may have expired or been revoked meanwhile: no reason to refuse a new one.
  // The account page: the browser's sign-in session (and a CSRF token) is the caller, not a bearer token.
  { prefix: '/management', routes: [managementTokenRoutes, adminAccountRoutes] },
  { prefix: '/management', middleware: [caller], routes: [managementRoutes, adminFactorRoutes, adminSignInRoutes, keyRoutes, adminLifecycleRoutes] },
  { prefix: '/management/orgs/{orgId}', middleware: [caller, organizationAdmin], routes: [organizationRoutes] },
  {
    prefix: '/management/orgs/{orgId}/apps/{appId}',
    middleware: [caller, organizationAdmin, managedApplication],
    routes: [applicationRoutes, clientRoutes, identityProviderRoutes],
  },
  // What an application serves without a permission check: its token endpoint and its users' account page.
  { prefix: '/{orgId}/{appId}', middleware: [application], routes: [applicationTokenRoutes, appAccountRoutes] },
  { prefix: '/{orgId}/{appId}', middleware: [caller, application], routes: [appUserLifecycleRoutes] },
  // The data API and push: every route behind the application's permissions.
  {
    prefix: '/{orgId}/{appId}',
    middleware: [caller, application, dataAccess],
    routes: [pushRoutes, entityRoutes, relationRoutes, userTokenRoutes, userFactorRoutes, userSignInRoutes, userStateRoutes, userPermittedRoutes],
  },
];

const ABOUT = {
  openapi: '3.1.0',
  info: { title: 'idp', version: VERSION, description: 'OAuth 2.0 / OpenID Connect provider and Usergrid-style application backend.' },
};

/**
 * The document /openapi.json serves, made without a server: the build types the admin console
 * against it (scripts/build-console.js, which imports it from dist/).
 * @public
 */
export function describeApi(areas: readonly Area[] = AREAS) {
  return mountAreas(router(), areas).getOpenAPI31Document(ABOUT);
}

export function createApp(deps: Deps, areas: readonly Area[] = AREAS): Hono<Env> {
  // Usergrid's SDKs end some paths with a slash (GET …/users/{id}/likes/): same resource.
  const app = router({ strict: false });

  // What every request needs first: its context, a path without dot segments or encoded
  // separators (400 before routing: no area's middleware, token check or handler sees it), then
  // the body size limit (413 before anything reads the body, or authenticates). X-Frame-Options
  // DENY, nosniff and friends go on every response: added by Node's response where the server
  // is made (serve.ts), or by the first middleware here for any other caller (middleware/secure-headers.ts).
  const limitBodySize = bodySizeLimit({
    body: deps.config.bodyLimit,
    multipart: deps.config.maxAssetSize + deps.config.bodyLimit,
    idleMs: deps.config.bodyTimeout * 1000,
  });
  app.use('*', secureHeadersElsewhere({ hsts: sendsHsts(deps.config.issuer) }));
  // First, so that it sees every answer, refusals before routing included.
  app.use('*', observeRequests(deps));
  const freshen = freshener(deps.db);
  app.use('*', async (c, next) => {
    c.set('startedAt', Date.now());
    c.set('deps', deps);
    c.set('logger', deps.logger);
    // Before the body limit, which makes the request anew (middleware/body-limit.ts).
    c.set('sentPath', sentPathOf(c.req.raw) ?? c.req.path);
    refuseInvalidPath(c);
    // Remembered reads (the token's user, the client, the application) are current as of now.
    if (freshen) await freshen();
    await limitBodySize(c, next);
  });

  const documented = mountAreas(app, areas);
  app.get('/openapi.json', (c) => c.json(documented.getOpenAPI31Document(ABOUT)));

  app.notFound(() => {
    throw NotFound('no such resource');
  });
  app.onError(onError);
  routeNestedGroupPaths(app, deps);
  return app;
}
