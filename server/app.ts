/**
 * createApp(deps): the whole HTTP surface. Every route is mounted here in one visible list,
 * behind the same middleware and the one onError.
 */
import type { Hono } from 'hono';
import type { Deps } from '../src/deps.js';
import { NotFound } from '../src/errors.js';
import { VERSION } from '../src/version.js';
import type { Env } from './env.js';
import { onError } from './errors.js';
import { router } from './openapi.js';
import { callerOf } from './middleware/principal.js';
import { bodySizeCheck } from './middleware/body-limit.js';
import { statusRoutes } from './routes/status.js';
import { managementRoutes } from './routes/management.js';
import { usergridTokenRoutes } from './routes/usergrid-token.js';
import { oauthRoutes } from './routes/oauth.js';
import { clientRoutes } from './routes/clients.js';
import { keyRoutes } from './routes/keys.js';
import { authorizeRoutes } from './routes/authorize.js';
import { endSessionRoutes } from './routes/end-session.js';
import { pageAssetRoutes } from './routes/page-assets.js';
import { identityProviderRoutes } from './routes/identity-providers.js';
import { docsRoutes } from './routes/docs.js';
import { dataRoutes } from './routes/data/index.js';
import { lifecycleRoutes } from './routes/lifecycle.js';
import { pushRoutes } from './routes/notifications.js';

export function createApp(deps: Deps): Hono<Env> {
  // Usergrid's SDKs end some paths with a slash (GET …/users/{id}/likes/): same resource.
  const app = router({ strict: false });

  // What every request needs first, in one middleware (each one more is a step of hono's chain
  // on every request): its context, the body size limit (413 before anything reads the body, or
  // authenticates), then its caller. X-Frame-Options DENY, nosniff and friends go on every
  // response where the server is made (serve.ts, middleware/secure-headers.ts).
  const checkBodySize = bodySizeCheck(deps.config.bodyLimit);
  app.use('*', async (c, next) => {
    c.set('startedAt', Date.now());
    c.set('deps', deps);
    c.set('logger', deps.logger);
    const streaming = checkBodySize(c);
    c.set('principal', await callerOf(c));
    if (streaming) await streaming(c, next);
    else await next();
  });

  app.route('/', statusRoutes());
  app.route('/', oauthRoutes());
  app.route('/', usergridTokenRoutes());
  // Before management and data: their /users/{userId} would take `resetpw` for a user id.
  app.route('/', lifecycleRoutes());
  app.route('/', managementRoutes());
  app.route('/', clientRoutes());
  app.route('/', keyRoutes());
  app.route('/', authorizeRoutes());
  app.route('/', endSessionRoutes());
  app.route('/', pageAssetRoutes());
  app.route('/', identityProviderRoutes());
  app.route('/', docsRoutes());
  // Before the data routes: notifiers, notifications, receipts and the …/*/queue paths.
  app.route('/', pushRoutes());
  // Last: /{orgId}/{appId}/… would otherwise shadow every fixed path above.
  app.route('/', dataRoutes());

  app.doc31('/openapi.json', {
    openapi: '3.1.0',
    info: {
      title: 'idp',
      version: VERSION,
      description: 'OAuth 2.0 / OpenID Connect provider and Usergrid-style application backend.',
    },
  });

  app.notFound(() => {
    throw NotFound('no such resource');
  });
  app.onError(onError);
  return app;
}
