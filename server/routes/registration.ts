/**
 * Dynamic client registration at /connect/register (RFC 7591) and each registered client at
 * /connect/register/{clientId} (RFC 7592), docs/api.md#dynamic-client-registration. JSON in,
 * JSON out, no envelope; every answer of the /connect area is `no-store` (server/app.ts). Who
 * may register, or manage a client, is decided before the metadata is looked at.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { Env } from '../env.js';
import { openapiRoute, ErrorSchema, type ValidationResult } from '../openapi.js';
import { validationError } from '../errors.js';
import type { BodyRule } from '../request-input.js';
import { defineRoutes } from '../route-table.js';
import { bearerOf } from './oauth.js';
import { clientInformation } from './clients.js';
import { InvalidClientMetadata, InvalidRedirectUri, MethodNotAllowed, UnsupportedMediaType } from '../../src/errors.js';
import { issuerOf } from '../../src/identity/issuer.js';
import { ClientMetadataInput, type SavedClient } from '../../src/identity/clients/manage.js';
import {
  deleteRegisteredClient,
  findRegisteredClient,
  registerClient,
  resolveRegistrationAccess,
  updateRegisteredClient,
  type RegistrationInput,
} from '../../src/identity/clients/registration.js';

const REGISTER = '/register';
const REGISTERED = '/register/{clientId}';

const RegistrationRequest = ClientMetadataInput.extend({
  application: z.string({ error: 'application must be a string: org/app' }).optional().openapi({
    description: 'The application to join, as org/app: only without an initial access token, where the application allows open registration',
  }),
  client_secret: z
    .string({ error: 'client_secret must be a string' })
    .optional()
    .openapi({ description: 'PUT only: the current secret, if sent (RFC 7592 2.2)' }),
}).openapi('ClientRegistrationRequest');

const JSON_ONLY: BodyRule = { accept: ['json'], refuse: () => UnsupportedMediaType('send the client metadata as application/json (RFC 7591 3.1)') };

const ClientParams = z.object({ clientId: z.string().openapi({ description: 'the client_id the registration returned' }) });

/** RFC 7591 3.2.2: a redirect URI that will not do is `invalid_redirect_uri`, any other field `invalid_client_metadata`. */
function metadataError(result: ValidationResult) {
  const refused = validationError(result.error!);
  const redirect = Object.keys(refused.fields).some((field) => /^(post_logout_)?redirect_uris(\.|$)/.test(field));
  return (redirect ? InvalidRedirectUri : InvalidClientMetadata)(refused.message, { fields: refused.fields });
}

/** Metadata that does not parse: the caller is checked first, so no one without access learns about the metadata. */
async function refuseMetadata(result: ValidationResult, c: Context<Env>): Promise<void> {
  if (result.success) return;
  const deps = c.get('deps');
  const clientId = c.req.param('clientId');
  if (clientId === undefined) await resolveRegistrationAccess(deps, bearerOf(c), (result.data as { application?: unknown } | undefined)?.application);
  else await findRegisteredClient(deps, clientId, bearerOf(c));
  throw metadataError(result);
}

/** RFC 7591 3.2.1 and RFC 7592 3: the client's information, with the token and address that manage it. */
function registrationResponse(c: Context<Env>, saved: SavedClient, registrationAccessToken: string) {
  return {
    ...clientInformation(saved),
    // RFC 7591 3.2.1: client_secret_expires_at is there whenever the client has a secret.
    ...(saved.row.secretHash !== null && { client_secret_expires_at: 0 }),
    registration_access_token: registrationAccessToken,
    registration_client_uri: `${issuerOf(c.get('deps'))}/connect/register/${saved.row.clientId}`,
  };
}

const input = (c: Context<Env>) => (c.req as unknown as { valid(target: 'json'): RegistrationInput }).valid('json');
const clientIdOf = (c: Context<Env>) => c.req.param('clientId') ?? '';

function declare(method: 'get' | 'post' | 'put' | 'delete', summary: string, success: number) {
  const path = method === 'post' ? REGISTER : REGISTERED;
  return createRoute({
    method,
    path,
    tags: ['OAuth 2.0 / OpenID Connect'],
    summary,
    request: {
      ...(path === REGISTERED && { params: ClientParams }),
      ...((method === 'post' || method === 'put') && {
        body: { required: true, description: 'RFC 7591 2 client metadata', content: { 'application/json': { schema: RegistrationRequest } } },
      }),
    },
    responses: {
      [success]: { description: success === 204 ? 'Deleted' : 'The client information (RFC 7591 3.2.1, RFC 7592 3)' },
      default: {
        description: 'invalid_token (401), invalid_client_metadata or invalid_redirect_uri (400)',
        content: { 'application/json': { schema: ErrorSchema } },
      },
    },
  });
}

export const registrationRoutes = defineRoutes('server/routes/registration.ts', (app) => {
  const options = { hook: refuseMetadata, body: JSON_ONLY };

  openapiRoute(
    app,
    declare('post', 'Dynamic client registration (RFC 7591): initial access token as Bearer, or none for open registration', 201),
    async (c) => {
      const body = input(c);
      const access = await resolveRegistrationAccess(c.get('deps'), bearerOf(c), body.application);
      const registered = await registerClient(c.get('deps'), access, body);
      return c.json(registrationResponse(c, registered, registered.registrationAccessToken), 201);
    },
    options,
  );

  openapiRoute(app, declare('get', 'Read a registered client (RFC 7592 2.1): registration access token as Bearer', 200), async (c) => {
    const { row } = await findRegisteredClient(c.get('deps'), clientIdOf(c), bearerOf(c));
    return c.json(registrationResponse(c, { row }, bearerOf(c)!));
  });

  openapiRoute(
    app,
    declare('put', 'Replace a registered client’s metadata (RFC 7592 2.2): registration access token as Bearer', 200),
    async (c) => {
      const saved = await updateRegisteredClient(c.get('deps'), clientIdOf(c), bearerOf(c), input(c));
      return c.json(registrationResponse(c, saved, bearerOf(c)!));
    },
    options,
  );

  openapiRoute(app, declare('delete', 'Delete a registered client and revoke its tokens (RFC 7592 2.3)', 204), async (c) => {
    await deleteRegisteredClient(c.get('deps'), clientIdOf(c), bearerOf(c));
    return c.body(null, 204);
  });

  // Registered after the real handlers, so only other methods reach these.
  for (const [path, allow] of [
    [REGISTER, 'POST'],
    ['/register/:clientId', 'GET, PUT, DELETE'],
  ]) {
    app.all(path, () => {
      throw MethodNotAllowed(`/connect${path.replace(':clientId', '{clientId}')} accepts ${allow}`, { headers: { Allow: allow } });
    });
  }
});
