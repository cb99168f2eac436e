/**
 * An admin user's second factors (docs/api.md#second-factors) at `/management/users/{user}/factors`,
 * under the rules of the admin user's own record (access.ts requireAdminUserAccess): the user
 * themself and sysadmins change them; administrators of an organization the user belongs to may
 * list them.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { Env } from '../env.js';
import { created, ok } from '../envelope.js';
import { responses } from '../openapi.js';
import { defineRoutes } from '../route-table.js';
import { requireAdminUserAccess } from '../access.js';
import { factorHandlers, type FactorAccess } from './factor-handlers.js';
import { UserParams } from './management-params.js';
import { findAdminUser } from '../../src/management/admin-users.js';
import { ADMIN_REALM } from '../../src/identity/sign-in/throttle.js';

const tag = 'Second factors';
const FactorParams = UserParams.extend({ factorId: z.string().openapi({ description: 'the id of the factor' }) });
/** What a POST sends: the type to enroll, or the proof that activates (read and checked by src/identity/factors). */
const FactorBody = z
  .object({
    type: z.enum(['totp', 'webauthn']).optional().openapi({ description: 'enroll: the type of factor' }),
    code: z.string().optional().openapi({ description: 'verify a TOTP factor: the code the authenticator app shows' }),
  })
  .catchall(z.unknown())
  .openapi('FactorBody', { description: "verify a passkey: the browser's answer to navigator.credentials.create, as JSON" });

async function factorAccess(c: Context<Env>, mode: 'read' | 'write'): Promise<FactorAccess> {
  const user = await findAdminUser(c.get('deps'), c.req.param('userId') ?? '');
  await requireAdminUserAccess(c, user, mode);
  const principal = c.get('principal');
  const self = (principal.kind === 'admin' || principal.kind === 'sysadmin') && principal.userUuid === user.uuid;
  return { owner: { realm: ADMIN_REALM, uuid: user.uuid, username: user.username, issuerName: 'idp' }, self };
}

const handlers = factorHandlers(factorAccess, (c, input, status) => (status === 201 ? created(c, input) : ok(c, input)));

export const adminFactorRoutes = defineRoutes('server/routes/admin-factors.ts', (app) => {
  const route = (method: 'get' | 'post' | 'delete', path: string, summary: string, params: z.ZodObject, handler: (c: Context<Env>) => Promise<Response>) => {
    // The body is documented here and read by the handler (factor-handlers.ts), as the data API's are.
    const body = method === 'post' ? { body: { content: { 'application/json': { schema: FactorBody } } } } : {};
    const described = createRoute({ method, path, tags: [tag], summary, request: { params, ...body }, responses: responses('Factor') });
    app.openAPIRegistry.registerPath(described);
    app.openapi({ ...described, hide: true, request: { params } }, handler as never);
  };
  route('get', '/users/{userId}/factors', "List the admin user's second factors (never a secret)", UserParams, handlers.list);
  route('post', '/users/{userId}/factors', 'Enroll a second factor: {"type":"totp"} or {"type":"webauthn"} (201, pending)', UserParams, handlers.enroll);
  route('get', '/users/{userId}/factors/{factorId}', "Get one of the admin user's second factors", FactorParams, handlers.get);
  route(
    'delete',
    '/users/{userId}/factors/{factorId}',
    'Remove a second factor (the user themself needs a sign-in of the last 5 minutes)',
    FactorParams,
    handlers.remove,
  );
  route(
    'post',
    '/users/{userId}/factors/{factorId}/verify',
    "Activate a pending factor with a TOTP code or the browser's WebAuthn answer",
    FactorParams,
    handlers.verify,
  );
});
