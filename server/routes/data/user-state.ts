/**
 * Deactivating and activating an app user (docs/api.md#account-state):
 * `PUT /{org}/{app}/users/{user}/deactivate` and `…/activate`, Usergrid's paths. Only an
 * administrator of the application may, as only an administrator writes `disabled`
 * (docs/api.md#entities): whatever permissions an app user holds, not on themself nor on
 * another. The answer is the user as `GET …/users/{user}` shows it.
 */
import type { Context } from 'hono';
import type { Env } from '../../env.js';
import { defineRoutes } from '../../route-table.js';
import { define, otherMethodsNotAllowed, type Handler } from './define.js';
import { addressedEntity, administersApp, entitiesResponse } from './request.js';
import { Forbidden } from '../../../src/errors.js';
import { findEntityByUuid } from '../../../src/db/entity-store.js';
import { setAccountActive } from '../../../src/lifecycle/account-state.js';

function switchTo(active: boolean): Handler {
  return async (c: Context<Env>) => {
    const user = await addressedEntity(c, 'users', c.req.param('entityId') ?? '');
    if (!(await administersApp(c))) throw Forbidden('only an administrator of the application may deactivate or activate its users');
    const deps = c.get('deps');
    await setAccountActive(deps, { type: 'app_user', appUuid: user.appUuid, uuid: user.uuid }, active, c.get('principal'));
    return entitiesResponse(c, 'put', [(await findEntityByUuid(deps.db, user.appUuid, user.uuid)) ?? user]);
  };
}

export const userStateRoutes = defineRoutes('server/routes/data/user-state.ts', (app) => {
  for (const [verb, active] of [
    ['deactivate', false],
    ['activate', true],
  ] as const) {
    const path = `/users/{entityId}/${verb}`;
    define(app, 'put', path, active ? 'Activate an app user: sign-in works again' : 'Deactivate an app user: no token, every sign-in ended', switchTo(active), {
      model: 'User',
    });
  }
  // GET …/activate is the mailed activation link (routes/lifecycle.ts), so only deactivate refuses other methods here.
  otherMethodsNotAllowed(app, '/users/{entityId}/deactivate', ['put']);
});
