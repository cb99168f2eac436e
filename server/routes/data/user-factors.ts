/**
 * An app user's second factors (docs/api.md#second-factors) at `/{org}/{app}/users/{user}/factors`:
 * the user themself or an administrator of the application may list, enroll, verify and remove
 * them; anyone else is `403 forbidden`, whatever the roles let them read.
 */
import type { Context } from 'hono';
import type { Env } from '../../env.js';
import { created, ok } from '../../envelope.js';
import { defineRoutes } from '../../route-table.js';
import { factorHandlers, type FactorAccess } from '../factor-handlers.js';
import { define, otherMethodsNotAllowed } from './define.js';
import { addressedEntity, administersApp, callerUuid, dataLocation } from './request.js';
import { Forbidden } from '../../../src/errors.js';

const FACTORS = '/users/{entityId}/factors';
const FACTOR = `${FACTORS}/{factorId}`;
const VERIFY = `${FACTOR}/verify`;

async function factorAccess(c: Context<Env>): Promise<FactorAccess> {
  const user = await addressedEntity(c, 'users', c.req.param('entityId') ?? '');
  const self = callerUuid(c) === user.uuid;
  if (!self && !(await administersApp(c))) throw Forbidden("only the user or an administrator of the application may see or change the user's factors");
  const { app } = c.get('appScope');
  return { owner: { realm: app.uuid, uuid: user.uuid, username: user.name ?? user.uuid, issuerName: app.name }, self };
}

const handlers = factorHandlers(factorAccess, (c, input, status) => {
  const { org, app } = c.get('appScope');
  const answer = { ...input, organization: org, application: app, location: dataLocation(c) };
  return status === 201 ? created(c, answer) : ok(c, answer);
});

export const userFactorRoutes = defineRoutes('server/routes/data/user-factors.ts', (app) => {
  const options = { tag: 'Second factors', model: 'Factor' };
  define(app, 'get', FACTORS, "List the user's second factors (never a secret)", handlers.list, options);
  define(app, 'post', FACTORS, 'Enroll a second factor: {"type":"totp"} or {"type":"webauthn"} (201, pending)', handlers.enroll, { ...options, body: true });
  define(app, 'get', FACTOR, "Get one of the user's second factors", handlers.get, options);
  define(app, 'delete', FACTOR, 'Remove a second factor (the user themself needs a sign-in of the last 5 minutes)', handlers.remove, options);
  define(app, 'post', VERIFY, "Activate a pending factor with a TOTP code or the browser's WebAuthn answer", handlers.verify, { ...options, body: true });
  otherMethodsNotAllowed(app, FACTORS, ['get', 'post']);
  otherMethodsNotAllowed(app, FACTOR, ['get', 'delete']);
  otherMethodsNotAllowed(app, VERIFY, ['post']);
});
