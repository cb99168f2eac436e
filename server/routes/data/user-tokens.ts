/**
 * Usergrid's token revocation under an app user (docs/api.md#entities):
 * `…/users/{user}/revoketoken?token=…` ends one of the user's access tokens,
 * `…/users/{user}/revoketokens` every token the user holds, each at once. POST or PUT, as
 * Usergrid took both; by the user themself or an administrator of the application.
 */
import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { Env } from '../../env.js';
import { ok } from '../../envelope.js';
import { formParam } from '../../request-input.js';
import { defineRoutes } from '../../route-table.js';
import { define, otherMethodsNotAllowed, type Handler } from './define.js';
import { addressedEntity, administersApp, callerUuid, dataLocation } from './request.js';
import { Forbidden, IllegalArgument } from '../../../src/errors.js';
import type { EntityRow } from '../../../src/data/entities.js';
import { revokeAppUserToken } from '../../../src/identity/tokens/introspection.js';
import { revokeAllTokens } from '../../../src/identity/sessions/end-sign-ins.js';

const ONE = '/users/{entityId}/revoketoken';
const ALL = '/users/{entityId}/revoketokens';

const TokenQuery = z.object({ token: formParam().openapi({ description: 'the access token to revoke' }) });

/** The user the path names, when the caller is that user or administers the application. @throws 403 `forbidden`. */
async function tokenOwner(c: Context<Env>): Promise<EntityRow> {
  const user = await addressedEntity(c, 'users', c.req.param('entityId') ?? '');
  if (callerUuid(c) !== user.uuid && !(await administersApp(c))) {
    throw Forbidden("only the user or an administrator of the application may revoke the user's tokens");
  }
  return user;
}

function revoked(c: Context<Env>, action: string) {
  const { org, app } = c.get('appScope');
  return ok(c, { action, organization: org, application: app, location: dataLocation(c) });
}

const revokeOne: Handler = async (c) => {
  const user = await tokenOwner(c);
  const { token } = (c.req as unknown as { valid(target: 'query'): z.infer<typeof TokenQuery> }).valid('query');
  if (token === undefined || token === '') throw IllegalArgument('token is required', { fields: { token: 'required' } });
  await revokeAppUserToken(c.get('deps'), user, token);
  return revoked(c, 'revoked user token');
};

const revokeAll: Handler = async (c) => {
  await revokeAllTokens(c.get('deps'), (await tokenOwner(c)).uuid);
  return revoked(c, 'revoked user tokens');
};

export const userTokenRoutes = defineRoutes('server/routes/data/user-tokens.ts', (app) => {
  for (const method of ['post', 'put'] as const) {
    define(app, method, ONE, "Revoke one of the user's access tokens (?token=)", revokeOne, { query: TokenQuery, model: 'Action' });
    define(app, method, ALL, 'Revoke every token the user holds', revokeAll, { model: 'Action' });
  }
  otherMethodsNotAllowed(app, ONE, ['post', 'put']);
  otherMethodsNotAllowed(app, ALL, ['post', 'put']);
});
