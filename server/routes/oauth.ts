/**
 * The OAuth 2.0 / OpenID Connect endpoints a program talks to: discovery and JWKS under
 * /.well-known, token, userinfo, introspection and revocation under /connect. Each parses the
 * form, hands off to src/identity/, and answers JSON; every answer of the /connect area, errors
 * included, is `no-store` (RFC 6749 5.1: the area's middleware in server/app.ts).
 */
import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { Env } from '../env.js';
import type { router } from '../openapi.js';
import { defineRoutes, within } from '../route-table.js';
import { loginContextOf } from '../client-address.js';
import { InvalidRequest, MethodNotAllowed } from '../../src/errors.js';
import { discoveryDocument, JWKS_PATH } from '../../src/identity/discovery.js';
import { authenticateRequestClient, requestToken, type ClientRequest } from '../../src/identity/tokens/token.js';
import { grants } from '../../src/identity/grants/index.js';
import { findUserinfo } from '../../src/identity/tokens/userinfo.js';
import { introspectToken, revokeToken } from '../../src/identity/tokens/introspection.js';

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

/**
 * The token endpoint's form, from the grants themselves: grant_type, client authentication
 * (RFC 6749 2.3.1), and the union of what each grant declares it reads.
 */
const TokenForm = z
  .object({
    grant_type: z.enum([...grants.keys()] as [string, ...string[]]),
    client_id: z.string().optional(),
    client_secret: z.string().optional(),
    ...Object.fromEntries([...new Set([...grants.values()].flatMap((grant) => grant.parameters))].map((name) => [name, z.string().optional()])),
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

export const discoveryRoutes = defineRoutes('server/routes/oauth.ts', (app) => {
  document(app, 'get', '/openid-configuration', 'OpenID Provider metadata');
  app.get('/openid-configuration', (c) => c.json(discoveryDocument(c.get('deps'))));

  const jwks = within('/.well-known', JWKS_PATH);
  document(app, 'get', jwks, 'Public signing keys (JWK Set)');
  app.get(jwks, async (c) => c.json({ keys: await c.get('deps').keys.publicJwks() }));
});

export const tokenEndpointRoutes = defineRoutes('server/routes/oauth.ts', (app) => {
  document(app, 'post', '/token', 'Token endpoint (RFC 6749 3.2)', TokenForm);
  app.post('/token', async (c) => c.json(await requestToken(c.get('deps'), await clientRequest(c))));

  document(app, 'get', '/userinfo', 'Claims of the signed-in user (Bearer token)');
  app.get('/userinfo', async (c) => c.json(await findUserinfo(c.get('deps'), bearerOf(c))));
  document(app, 'post', '/userinfo', 'Claims of the signed-in user (Bearer token or access_token form field)');
  app.post('/userinfo', async (c) => {
    const fromForm = bearerOf(c) === undefined && /^application\/x-www-form-urlencoded\b/i.test(c.req.header('content-type') ?? '');
    return c.json(await findUserinfo(c.get('deps'), fromForm ? (await formParams(c)).access_token : bearerOf(c)));
  });

  document(app, 'post', '/introspect', 'Token introspection (RFC 7662)', TokenHintForm);
  app.post('/introspect', async (c) => {
    const request = await clientRequest(c);
    const client = await authenticateRequestClient(c.get('deps'), request);
    return c.json(await introspectToken(c.get('deps'), client, request.params));
  });

  document(app, 'post', '/revocation', 'Token revocation (RFC 7009)', TokenHintForm);
  app.post('/revocation', async (c) => {
    const request = await clientRequest(c);
    const client = await authenticateRequestClient(c.get('deps'), request);
    await revokeToken(c.get('deps'), client, request.params);
    return c.body(null, 200);
  });

  // Registered after the real handlers, so only other methods reach these.
  for (const [path, allow] of [['/token', 'POST'], ['/introspect', 'POST'], ['/revocation', 'POST'], ['/userinfo', 'GET, POST']]) {
    app.all(path, () => {
      throw MethodNotAllowed(`/connect${path} accepts ${allow}`, { headers: { Allow: allow } });
    });
  }
});

function bearerOf(c: Context<Env>): string | undefined {
  return c.req.header('authorization')?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
}
