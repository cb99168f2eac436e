/**
 * The OAuth 2.0 / OpenID Connect endpoints a program talks to: discovery, JWKS, token,
 * userinfo, introspection and revocation. Each parses the form, hands off to src/identity/, and
 * answers JSON; every answer of the /connect endpoints, errors included, is `no-store`
 * (RFC 6749 5.1).
 */
import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { Env } from '../env.js';
import { router } from '../openapi.js';
import { loginContextOf } from '../client-address.js';
import { noStore } from '../middleware/no-store.js';
import { InvalidRequest, MethodNotAllowed } from '../../src/errors.js';
import { discoveryDocument, JWKS_PATH } from '../../src/identity/discovery.js';
import { authenticateRequestClient, requestToken, type ClientRequest } from '../../src/identity/token.js';
import { findUserinfo } from '../../src/identity/userinfo.js';
import { introspectToken, revokeToken } from '../../src/identity/introspection.js';

/** The form body, each parameter at most once (RFC 6749 3.2). */
async function formParams(c: Context<Env>): Promise<Record<string, string>> {
  if (!/^application\/x-www-form-urlencoded\b/i.test(c.req.header('content-type') ?? '')) {
    throw InvalidRequest('the body must be application/x-www-form-urlencoded');
  }
  const params: Record<string, string> = Object.create(null);
  for (const [name, value] of new URLSearchParams(await c.req.text())) {
    if (Object.hasOwn(params, name)) throw InvalidRequest(`parameter '${name}' was sent more than once`);
    params[name] = value;
  }
  return params;
}

async function clientRequest(c: Context<Env>): Promise<ClientRequest> {
  return { params: await formParams(c), authorization: c.req.header('authorization'), context: loginContextOf(c) };
}

const TokenForm = z
  .object({
    grant_type: z.string(),
    client_id: z.string().optional(),
    client_secret: z.string().optional(),
    scope: z.string().optional(),
    username: z.string().optional(),
    password: z.string().optional(),
    acr_values: z.string().optional(),
    refresh_token: z.string().optional(),
    code: z.string().optional(),
    redirect_uri: z.string().optional(),
    code_verifier: z.string().optional(),
    subject_token: z.string().optional(),
    subject_token_type: z.string().optional(),
  })
  .openapi('TokenRequest');
const TokenHintForm = z.object({ token: z.string(), token_type_hint: z.string().optional(), client_id: z.string().optional(), client_secret: z.string().optional() }).openapi('TokenHintRequest');

function document(app: ReturnType<typeof router>, method: 'get' | 'post', path: string, summary: string, form?: z.ZodType) {
  app.openAPIRegistry.registerPath({
    method,
    path,
    tags: ['OAuth 2.0 / OpenID Connect'],
    summary,
    ...(form && { request: { body: { content: { 'application/x-www-form-urlencoded': { schema: form } } } } }),
    responses: { 200: { description: 'Success (JSON)' }, default: { description: 'OAuth error {error, error_description}' } },
  });
}

export function oauthRoutes() {
  const app = router();
  app.use('/connect/*', noStore());

  document(app, 'get', '/.well-known/openid-configuration', 'OpenID Provider metadata');
  app.get('/.well-known/openid-configuration', (c) => c.json(discoveryDocument(c.get('deps'))));

  document(app, 'get', JWKS_PATH, 'Public signing keys (JWK Set)');
  app.get(JWKS_PATH, async (c) => c.json({ keys: await c.get('deps').keys.publicJwks() }));

  document(app, 'post', '/connect/token', 'Token endpoint (RFC 6749 3.2)', TokenForm);
  app.post('/connect/token', async (c) => c.json(await requestToken(c.get('deps'), await clientRequest(c))));

  document(app, 'get', '/connect/userinfo', 'Claims of the signed-in user (Bearer token)');
  app.get('/connect/userinfo', async (c) => c.json(await findUserinfo(c.get('deps'), bearerOf(c))));
  document(app, 'post', '/connect/userinfo', 'Claims of the signed-in user (Bearer token or access_token form field)');
  app.post('/connect/userinfo', async (c) => {
    const fromForm = bearerOf(c) === undefined && /^application\/x-www-form-urlencoded\b/i.test(c.req.header('content-type') ?? '');
    return c.json(await findUserinfo(c.get('deps'), fromForm ? (await formParams(c)).access_token : bearerOf(c)));
  });

  document(app, 'post', '/connect/introspect', 'Token introspection (RFC 7662)', TokenHintForm);
  app.post('/connect/introspect', async (c) => {
    const request = await clientRequest(c);
    const client = await authenticateRequestClient(c.get('deps'), request);
    return c.json(await introspectToken(c.get('deps'), client, request.params));
  });

  document(app, 'post', '/connect/revocation', 'Token revocation (RFC 7009)', TokenHintForm);
  app.post('/connect/revocation', async (c) => {
    const request = await clientRequest(c);
    const client = await authenticateRequestClient(c.get('deps'), request);
    await revokeToken(c.get('deps'), client, request.params);
    return c.body(null, 200);
  });

  // Registered after the real handlers, so only other methods reach these.
  for (const [path, allow] of [['/connect/token', 'POST'], ['/connect/introspect', 'POST'], ['/connect/revocation', 'POST'], ['/connect/userinfo', 'GET, POST']]) {
    app.all(path, () => {
      throw MethodNotAllowed(`${path} accepts ${allow}`, { headers: { Allow: allow } });
    });
  }
  return app;
}

function bearerOf(c: Context<Env>): string | undefined {
  return c.req.header('authorization')?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
}
