/**
 * An admin user's signed-in browsers and consents (docs/api.md#sessions-and-consents) at
 * `/management/users/{user}/sessions` and `…/consents`, under the rules of the admin user's own
 * record (access.ts requireAdminUserAccess): administrators of an organization the user belongs to
 * may list them; the user themself and sysadmins end them.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { Env } from '../env.js';
import { ok } from '../envelope.js';
import { responses } from '../openapi.js';
import { defineRoutes } from '../route-table.js';
import { requireAdminUserAccess } from '../access.js';
import { signInHandlers, type SignInOwner } from './sign-in-handlers.js';
import { UserParams } from './management-params.js';
import { findAdminUser } from '../../src/management/admin-users.js';
import { ADMIN_REALM } from '../../src/identity/sign-in/throttle.js';

const tag = 'Sessions and consents';
const SessionParams = UserParams.extend({ sessionId: z.string().openapi({ description: 'the id of the session, as the list shows it' }) });
const ConsentParams = UserParams.extend({ clientId: z.string().openapi({ description: 'the client the user allowed' }) });

async function signInOwner(c: Context<Env>, mode: 'read' | 'write'): Promise<SignInOwner> {
  const user = await findAdminUser(c.get('deps'), c.req.param('userId') ?? '');
  await requireAdminUserAccess(c, user, mode);
  return { realm: ADMIN_REALM, uuid: user.uuid };
}

const handlers = signInHandlers(signInOwner, ok);

export const adminSignInRoutes = defineRoutes('server/routes/admin-sign-ins.ts', (app) => {
  const route = (
    method: 'get' | 'delete',
    path: string,
    summary: string,
    params: z.ZodObject,
    model: string,
    handler: (c: Context<Env>) => Promise<Response>,
  ) => app.openapi(createRoute({ method, path, tags: [tag], summary, request: { params }, responses: responses(model) }), handler as never);
  route(
    'get',
    '/users/{userId}/sessions',
    "List the admin user's signed-in browsers, the most recently active first",
    UserParams,
    'Session',
    handlers.listSessions,
  );
  route(
    'delete',
    '/users/{userId}/sessions/{sessionId}',
    'End one of the signed-in browsers: it is signed out at once',
    SessionParams,
    'Session',
    handlers.endSession,
  );
  route('get', '/users/{userId}/consents', 'List the clients the admin user allowed, the most recent first', UserParams, 'Consent', handlers.listConsents);
  route(
    'delete',
    '/users/{userId}/consents/{clientId}',
    "Revoke a consent: the client's tokens of the user stop working and it must ask again",
    ConsentParams,
    'Consent',
    handlers.revokeConsent,
  );
});
