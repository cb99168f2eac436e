/**
 * The OAuth 2.0 / OpenID Connect endpoints a program talks to: discovery and JWKS under
 * /.well-known, token, userinfo, introspection and revocation under /connect. Each parses the
 * form, hands off to src/identity/, and answers JSON; every answer of the /connect area, errors
 * included, is `no-store` (RFC 6749 5.1: the area's middleware in server/app.ts).
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { Env } from '../env.js';
import { formBody, openapiRoute, type router, type ValidationResult } from '../openapi.js';
import { validationError } from '../errors.js';
import { formParam, paramsOf, paramsShape, repeatableParam, requiredParam, type BodyRule } from '../request-input.js';
import { defineRoutes, within } from '../route-table.js';
import { loginContextOf } from '../client-address.js';
import { InvalidRequest, MethodNotAllowed } from '../../src/errors.js';
import { discoveryDocument, JWKS_PATH } from '../../src/identity/discovery.js';
import { authenticateRequestClient, requestToken, type ClientRequest } from '../../src/identity/tokens/token.js';
import { grants } from '../../src/identity/grants/index.js';
import { findUserinfo } from '../../src/identity/tokens/userinfo.js';
import { INTROSPECTION_JWT, introspectToken, revokeToken, signIntrospectionResponse } from '../../src/identity/tokens/introspection.js';
import { startDeviceAuthorization } from '../../src/identity/authorize/device-authorizations.js';
import { AUTHORIZE_PARAMETERS } from '../../src/identity/authorize/authorize-request.js';
import { REPEATABLE_PARAMETERS } from '../../src/identity/tokens/resources.js';
import { pushAuthorizationRequest } from '../../src/identity/authorize/pushed-requests.js';
import { currentDpopNonce, presentedTokenOf, verifyDpopProof } from '../../src/identity/tokens/dpop.js';
import { dpopRequestOf } from '../middleware/principal.js';

/**
 * The OAuth endpoints take only a form (RFC 6749 3.2), each parameter at most once; a failure is
 * the OAuth error `invalid_request` (RFC 6749 5.2). Parameters nobody declares are ignored (RFC
 * 6749 3.1), so a form schema lists what the endpoint reads.
 */
const OAUTH_FORM: BodyRule = { accept: ['form'], refuse: () => InvalidRequest('the body must be application/x-www-form-urlencoded') };

function oauthInput(result: ValidationResult): void {
  if (result.success) return;
  const refused = validationError(result.error!);
  throw InvalidRequest(refused.message, { fields: refused.fields });
}

/** Client authentication in the body (RFC 6749 2.3.1), or by a client assertion (RFC 7523 2.2). */
const ClientForm = { client_id: formParam(), client_secret: formParam(), client_assertion_type: formParam(), client_assertion: formParam() };

/**
 * The token endpoint's form, from the grants themselves: grant_type, client authentication,
 * and the union of what each grant declares it reads. An unknown grant_type is the core's to
 * refuse (`unsupported_grant_type`, RFC 6749 5.2).
 */
const TokenForm = z
  .object({
    grant_type: requiredParam().openapi({ enum: [...grants.keys()] }),
    ...ClientForm,
    ...Object.fromEntries([...new Set([...grants.values()].flatMap((grant) => grant.parameters))].map((name) => [name, formParam()])),
    // RFC 8707 2: for every grant, as often as there are resources.
    resource: repeatableParam(),
  })
  .openapi('TokenRequest');
// `token` is required (RFC 7662 2.1, RFC 7009 2.1), and checked after the client is authenticated.
const TokenHintForm = z.object({ token: formParam(), token_type_hint: formParam(), ...ClientForm }).openapi('TokenHintRequest');
const UserinfoForm = z.object({ access_token: formParam() }).openapi('UserinfoRequest');
// RFC 8707 2: as at the token endpoint, as often as there are resources.
const DeviceAuthorizationForm = z.object({ scope: formParam(), resource: repeatableParam(), ...ClientForm }).openapi('DeviceAuthorizationRequest');

/** RFC 9126 2.1: the authorization request's parameters, with the client's authentication. */
const PushedRequestForm = z.looseObject({ ...paramsShape(AUTHORIZE_PARAMETERS, REPEATABLE_PARAMETERS), ...ClientForm }).openapi('PushedAuthorizationRequest');

type Router = ReturnType<typeof router>;

function oauthRoute(
  app: Router,
  method: 'get' | 'post',
  path: string,
  summary: string,
  form: z.ZodObject | undefined,
  handler: (c: Context<Env>) => Promise<Response>,
  success: 200 | 201 = 200,
) {
  const route = createRoute({
    method,
    path,
    tags: ['OAuth 2.0 / OpenID Connect'],
    summary,
    ...(form && { request: { body: formBody(form) } }),
    responses: { [success]: { description: 'Success (JSON)' }, default: { description: 'OAuth error {error, error_description}' } },
  });
  openapiRoute(app, route, handler, { hook: oauthInput, body: path === '/userinfo' ? { ...OAUTH_FORM, accept: ['form', 'none'] } : OAUTH_FORM });
}

/** The validated form of an oauthRoute: its declared parameters are strings, but a repeatable one (`resource`) may be a list. */
function validForm(c: Context<Env>): Record<string, string> {
  return (c.req as unknown as { valid(target: 'form'): Record<string, string> }).valid('form');
}

async function clientRequest(c: Context<Env>): Promise<ClientRequest> {
  const { resource, ...params } = validForm(c) as Record<string, string | string[] | undefined>;
  return {
    params: params as Record<string, string>,
    authorization: c.req.header('authorization'),
    context: loginContextOf(c),
    resources: resource === undefined ? [] : [resource].flat(),
  };
}

export const discoveryRoutes = defineRoutes('server/routes/oauth.ts', (app) => {
  oauthRoute(app, 'get', '/openid-configuration', 'OpenID Provider metadata', undefined, async (c) => c.json(discoveryDocument(c.get('deps'))));
  oauthRoute(app, 'get', within('/.well-known', JWKS_PATH), 'Public signing keys (JWK Set)', undefined, async (c) =>
    c.json({ keys: await c.get('deps').keys.publicJwks() }),
  );
});

export const tokenEndpointRoutes = defineRoutes('server/routes/oauth.ts', (app) => {
  oauthRoute(app, 'post', '/token', 'Token endpoint (RFC 6749 3.2); a DPoP header binds the tokens (RFC 9449)', TokenForm, async (c) => {
    const response = await requestToken(c.get('deps'), { ...(await clientRequest(c)), dpop: dpopRequestOf(c) });
    // RFC 9449 8.2: the next proof's nonce, with every answer to a DPoP request.
    if (c.req.header('dpop') !== undefined) c.header('DPoP-Nonce', currentDpopNonce(c.get('deps')));
    return c.json(response);
  });

  oauthRoute(app, 'get', '/userinfo', 'Claims of the signed-in user (Bearer or DPoP token)', undefined, async (c) =>
    c.json(await findUserinfo(c.get('deps'), presentedTokenOf(c.req.header('authorization')), dpopRequestOf(c))),
  );
  // RFC 6750 2.2: the token in the form only when it is not in the Authorization header.
  oauthRoute(app, 'post', '/userinfo', 'Claims of the signed-in user (Bearer or DPoP token, or access_token form field)', UserinfoForm, async (c) => {
    const fromForm = validForm(c).access_token;
    const presented = presentedTokenOf(c.req.header('authorization')) ?? (fromForm ? { scheme: 'parameter' as const, token: fromForm } : undefined);
    return c.json(await findUserinfo(c.get('deps'), presented, dpopRequestOf(c)));
  });

  oauthRoute(
    app,
    'post',
    '/par',
    'Pushed authorization request (RFC 9126): the authorize parameters, for a request_uri to send the browser with',
    PushedRequestForm,
    async (c) => {
      const request = await clientRequest(c);
      const client = await authenticateRequestClient(c.get('deps'), request);
      const params = paramsOf(validForm(c));
      params.delete('client_secret');
      // RFC 9449 10.1: a DPoP proof here (with this server's nonce, as at the token endpoint) binds the code.
      const dpop = dpopRequestOf(c);
      if (dpop.proof !== undefined) c.header('DPoP-Nonce', currentDpopNonce(c.get('deps')));
      const jkt = dpop.proof === undefined ? undefined : await verifyDpopProof(c.get('deps'), dpop, { nonce: true });
      return c.json(await pushAuthorizationRequest(c.get('deps'), client, params, jkt), 201);
    },
    201,
  );

  // RFC 8628 3.1: the client authenticates as at the token endpoint (a public client sends its client_id).
  oauthRoute(app, 'post', '/deviceauthorization', 'Device authorization endpoint (RFC 8628 3.1)', DeviceAuthorizationForm, async (c) => {
    const request = await clientRequest(c);
    const client = await authenticateRequestClient(c.get('deps'), request);
    return c.json(await startDeviceAuthorization(c.get('deps'), client, request.params, request.resources));
  });

  oauthRoute(
    app,
    'post',
    '/introspect',
    'Token introspection (RFC 7662); a signed JWT for Accept: application/token-introspection+jwt (RFC 9701)',
    TokenHintForm,
    async (c) => {
      const request = await clientRequest(c);
      const client = await authenticateRequestClient(c.get('deps'), request);
      const answer = await introspectToken(c.get('deps'), client, request.params);
      if (!acceptsIntrospectionJwt(c.req.header('accept'))) return c.json(answer);
      return c.body(await signIntrospectionResponse(c.get('deps'), client, answer), 200, { 'Content-Type': INTROSPECTION_JWT });
    },
  );

  oauthRoute(app, 'post', '/revocation', 'Token revocation (RFC 7009)', TokenHintForm, async (c) => {
    const request = await clientRequest(c);
    const client = await authenticateRequestClient(c.get('deps'), request);
    await revokeToken(c.get('deps'), client, request.params);
    return c.body(null, 200);
  });

  // Registered after the real handlers, so only other methods reach these.
  for (const [path, allow] of [
    ['/token', 'POST'],
    ['/deviceauthorization', 'POST'],
    ['/par', 'POST'],
    ['/introspect', 'POST'],
    ['/revocation', 'POST'],
    ['/userinfo', 'GET, POST'],
  ]) {
    app.all(path, () => {
      throw MethodNotAllowed(`/connect${path} accepts ${allow}`, { headers: { Allow: allow } });
    });
  }
});

/** Whether an Accept header names the signed introspection response's media type (RFC 9701 4). */
function acceptsIntrospectionJwt(accept: string | undefined): boolean {
  return (accept ?? '').split(',').some((range) => range.split(';')[0]!.trim().toLowerCase() === INTROSPECTION_JWT);
}

/** The Bearer token of the Authorization header (RFC 6750 2.1), if there is one. */
export function bearerOf(c: Context<Env>): string | undefined {
  return c.req.header('authorization')?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
}
