/**
 * The token endpoint (RFC 6749 3.2): authenticate the client, check it may use the grant type,
 * hand off to `grants.get(grant_type)`, and write one audit line for the outcome. Also the
 * client authentication shared by introspection and revocation.
 */
import type { Deps } from '../../deps.js';
import { InvalidDpopProof, InvalidRequest, UnauthorizedClient, UnsupportedGrantType } from '../../errors.js';
import { authenticateClient, type ClientAuthentication } from '../sign-in/authenticate.js';
import { JWT_BEARER_ASSERTION, readClientAssertion } from '../clients/client-assertions.js';
import { withTokenAudit, type AuditContext } from './audit.js';
import { clientAuthenticationFailed, type Client } from '../clients/find.js';
import { grants } from '../grants/index.js';
import type { TokenResponse } from './issue.js';
import type { LoginContext } from '../sign-in/throttle.js';
import { verifyDpopProof, type DpopRequest } from './dpop.js';
import { parseResources } from './resources.js';

/** A form-encoded request to one of the client-authenticated endpoints. */
export interface ClientRequest {
  params: Readonly<Record<string, string>>;
  authorization: string | undefined;
  context: LoginContext;
  /** The request as a DPoP proof speaks of it (the token endpoint's only). */
  dpop?: DpopRequest;
  /** The `resource` parameters, each sent value (RFC 8707 2: the one parameter that may repeat). */
  resources?: readonly string[];
}

/** RFC 6749 2.3.1: client_id and client_secret are form-url-encoded before Basic encoding. */
function formDecode(text: string): string {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    throw clientAuthenticationFailed('the Basic credentials are not form-url-encoded');
  }
}

/**
 * A client assertion (RFC 7523 2.2, RFC 7521 4.2): alone, with its type, and with no secret
 * beside it; the client is the one `client_id` names, or else the assertion's `sub`.
 */
function presentedAssertion(params: Readonly<Record<string, string>>, basic: boolean): ClientAuthentication {
  if (basic || params.client_secret !== undefined) throw InvalidRequest('send one client authentication: a client assertion, or a secret, not both');
  if (params.client_assertion_type !== JWT_BEARER_ASSERTION) {
    throw clientAuthenticationFailed(`client_assertion_type must be ${JWT_BEARER_ASSERTION}`);
  }
  if (!params.client_assertion) throw InvalidRequest('client_assertion is required with client_assertion_type');
  return { ...readClientAssertion(params.client_assertion, params.client_id), assertion: params.client_assertion };
}

/** Which credentials the client presented, and how (RFC 6749 2.3: one method only). */
export function presentedClient(request: ClientRequest): ClientAuthentication {
  const { params, authorization } = request;
  const basic = authorization?.match(/^Basic\s+(\S+)\s*$/i)?.[1];
  if (params.client_assertion !== undefined || params.client_assertion_type !== undefined) return presentedAssertion(params, basic !== undefined);
  if (basic !== undefined) {
    const decoded = Buffer.from(basic, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw clientAuthenticationFailed('the Basic credentials must be client_id:client_secret');
    const clientId = formDecode(decoded.slice(0, colon));
    if (params.client_secret !== undefined) throw InvalidRequest('client credentials were sent both in the Authorization header and in the body; use one');
    if (params.client_id !== undefined && params.client_id !== clientId)
      throw InvalidRequest('client_id in the body differs from the one in the Authorization header');
    return { clientId, secret: formDecode(decoded.slice(colon + 1)), method: 'client_secret_basic' };
  }
  if (!params.client_id) {
    throw clientAuthenticationFailed('client authentication is required: send client_id (and client_secret), HTTP Basic, or a client assertion');
  }
  if (params.client_secret !== undefined) return { clientId: params.client_id, secret: params.client_secret, method: 'client_secret_post' };
  return { clientId: params.client_id, method: 'none' };
}

export async function authenticateRequestClient(deps: Deps, request: ClientRequest): Promise<Client> {
  return authenticateClient(deps, presentedClient(request));
}

async function exchange(deps: Deps, request: ClientRequest, audit: AuditContext) {
  const presented = presentedClient(request);
  audit.client_id = presented.clientId;
  const client = await authenticateClient(deps, presented);
  const grantType = request.params.grant_type;
  if (!grantType) throw InvalidRequest('grant_type is required');
  const grant = grants.get(grantType);
  if (!grant) throw UnsupportedGrantType(`grant_type '${grantType}' is not supported; supported: ${[...grants.keys()].join(', ')}`);
  if (!client.grantTypes.includes(grantType)) throw UnauthorizedClient(`this client may not use grant_type '${grantType}'`);
  const resources = parseResources(request.resources ?? []);
  const jkt = await dpopBindingOf(deps, client, request.dpop);
  return grant.handle(deps, { client, params: declaredParams(request.params, grant.parameters), context: request.context, jkt, resources });
}

/**
 * The key the tokens are to be bound to (RFC 9449 5): the thumbprint of the request's DPoP proof,
 * which must carry this server's nonce. A client registered with `dpop_bound_access_tokens` must
 * send one (RFC 9449 5.2).
 */
async function dpopBindingOf(deps: Deps, client: Client, dpop: DpopRequest | undefined): Promise<string | undefined> {
  if (dpop?.proof === undefined) {
    if (client.dpopBoundAccessTokens) throw InvalidDpopProof('this client must send a DPoP proof (dpop_bound_access_tokens)');
    return undefined;
  }
  return verifyDpopProof(deps, dpop, { nonce: true });
}

/** The parameters a grant declared, of those sent; the rest are ignored (RFC 6749 3.2). */
function declaredParams(params: Readonly<Record<string, string>>, declared: readonly string[]): Record<string, string> {
  return Object.fromEntries(declared.filter((name) => Object.hasOwn(params, name)).map((name) => [name, params[name]]));
}

/** POST /connect/token: the response of RFC 6749 5.1, or an AppError for 5.2. */
export async function requestToken(deps: Deps, request: ClientRequest): Promise<TokenResponse> {
  const context: AuditContext = {
    endpoint: '/connect/token',
    grant_type: request.params.grant_type,
    client_id: request.params.client_id,
    address: request.context.address,
  };
  const issued = await withTokenAudit(
    deps,
    context,
    () => exchange(deps, request, context),
    (result) => result.facts,
  );
  return issued.response;
}
