/**
 * The data API (seed section C under /{orgId}/{appId}/…, issue 4). One access middleware
 * governs every route (src/access/app-access.ts). Mount these routes after every other route
 * whose first segment is fixed (/management, /connect, /.well-known, /{org}/{app}/token, the
 * notification routes): `/{orgId}/{appId}/…` matches those paths too, and the first route
 * registered wins.
 */
import { router } from '../../openapi.js';
import { dataAccess } from './request.js';
import { entityRoutes } from './entities.js';
import { relationRoutes } from './relations.js';

export function dataRoutes() {
  const app = router();
  app.use('/:orgId/:appId', dataAccess());
  app.use('/:orgId/:appId/*', dataAccess());
  entityRoutes(app);
  relationRoutes(app);
  return app;
}
