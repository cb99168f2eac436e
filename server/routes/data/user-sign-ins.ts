/**
 * An app user's signed-in browsers and consents (docs/api.md#sessions-and-consents) at
 * `/{org}/{app}/users/{user}/sessions` and `…/consents`: the user themself or an administrator of
 * the application may list and end them; anyone else is `403 forbidden`, whatever the roles let
 * them read.
 */
import type { Context } from 'hono';
import type { Env } from '../../env.js';
import { ok } from '../../envelope.js';
import { defineRoutes } from '../../route-table.js';
import { signInHandlers, type SignInOwner } from '../sign-in-handlers.js';
import { define, otherMethodsNotAllowed } from './define.js';
import { addressedEntity, administersApp, callerUuid, dataLocation } from './request.js';
import { Forbidden } from '../../../src/errors.js';

const SESSIONS = '/users/{entityId}/sessions';
const SESSION = `${SESSIONS}/{sessionId}`;
const CONSENTS = '/users/{entityId}/consents';
const CONSENT = `${CONSENTS}/{clientId}`;

async function signInOwner(c: Context<Env>): Promise<SignInOwner> {
  const user = await addressedEntity(c, 'users', c.req.param('entityId') ?? '');
  if (callerUuid(c) !== user.uuid && !(await administersApp(c))) {
    throw Forbidden("only the user or an administrator of the application may see or end the user's sign-ins");
  }
  return { realm: c.get('appScope').app.uuid, uuid: user.uuid };
}

const handlers = signInHandlers(signInOwner, (c, input) => {
  const { org, app } = c.get('appScope');
  return ok(c, { ...input, organization: org, application: app, location: dataLocation(c) });
});

export const userSignInRoutes = defineRoutes('server/routes/data/user-sign-ins.ts', (app) => {
  const sessions = { tag: 'Sessions and consents', model: 'Session' };
  const consents = { tag: 'Sessions and consents', model: 'Consent' };
  define(app, 'get', SESSIONS, "List the user's signed-in browsers, the most recently active first", handlers.listSessions, sessions);
  define(app, 'delete', SESSION, 'End one of the signed-in browsers: it is signed out at once', handlers.endSession, sessions);
  define(app, 'get', CONSENTS, 'List the applications (clients) the user allowed, the most recent first', handlers.listConsents, consents);
  define(app, 'delete', CONSENT, "Revoke a consent: the client's tokens of the user stop working and it must ask again", handlers.revokeConsent, consents);
  otherMethodsNotAllowed(app, SESSIONS, ['get']);
  otherMethodsNotAllowed(app, SESSION, ['delete']);
  otherMethodsNotAllowed(app, CONSENTS, ['get']);
  otherMethodsNotAllowed(app, CONSENT, ['delete']);
});
