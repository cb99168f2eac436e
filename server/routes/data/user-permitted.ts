/**
 * The permission tester (docs/api.md#permissions): `GET /{org}/{app}/users/{user}/permitted
 * ?verb=get&path=/dogs/fido` answers whether that app user may make that request, which held
 * rule allows it, and every rule the user holds through themself, their groups and their roles.
 * Only an administrator of the application may ask: the answer tells what another user may do.
 */
import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { Env } from '../../env.js';
import { ok } from '../../envelope.js';
import { requiredParam } from '../../request-input.js';
import { defineRoutes } from '../../route-table.js';
import { define, otherMethodsNotAllowed } from './define.js';
import { addressedEntity, administersApp, dataLocation } from './request.js';
import { Forbidden, IllegalArgument } from '../../../src/errors.js';
import { verbOfMethod } from '../../../src/access/permissions.js';
import { checkUserPermission } from '../../../src/access/app-access.js';

const PATH = '/users/{entityId}/permitted';

const PermittedQuery = z.object({
  verb: requiredParam().openapi({ description: 'get, put, post or delete (or the HTTP method: GET, HEAD, PATCH …)' }),
  path: requiredParam().openapi({ description: 'a path inside the application, e.g. /dogs/fido' }),
});

async function permitted(c: Context<Env>) {
  const user = await addressedEntity(c, 'users', c.req.param('entityId') ?? '');
  if (!(await administersApp(c))) throw Forbidden("only an administrator of the application may test a user's permissions");
  const query = (c.req as unknown as { valid(target: 'query'): z.infer<typeof PermittedQuery> }).valid('query');
  const verb = verbOfMethod(query.verb);
  if (verb === null) throw IllegalArgument(`unknown verb "${query.verb}": use get, put, post or delete`, { fields: { verb: 'unknown' } });
  if (!query.path.startsWith('/')) throw IllegalArgument('the path must start with "/", e.g. /dogs/fido', { fields: { path: 'must start with /' } });
  const check = await checkUserPermission(c.get('deps'), user, verb, query.path);
  const { org, app } = c.get('appScope');
  return ok(c, {
    action: 'get',
    organization: org,
    application: app,
    extra: { data: { user: user.uuid, username: user.name, verb, path: query.path, ...check } },
    location: dataLocation(c),
  });
}

export const userPermittedRoutes = defineRoutes('server/routes/data/user-permitted.ts', (app) => {
  define(app, 'get', PATH, 'Test whether an app user may make a request: {permitted, rule, permissions} (administrators only)', permitted, {
    tag: 'Permissions',
    query: PermittedQuery,
  });
  otherMethodsNotAllowed(app, PATH, ['get']);
});
