/**
 * Pushed authorization requests (RFC 9126, docs/api.md#pushed-authorization-requests): a client
 * sends its authorization request's parameters to /connect/par over the back channel, where they
 * are validated as /connect/authorize would; the browser then brings only `client_id` and the
 * `request_uri` it was given, used once, within PUSHED_REQUEST_TTL seconds
 * (pushed-request-store.ts keeps them).
 */
import type { Deps } from '../../deps.js';
import { InvalidDpopProof, InvalidRequest, type AppError } from '../../errors.js';
import type { Client } from '../clients/find.js';
import { randomToken } from '../keys/secrets.js';
import { storePushedRequest, takePushedRequest } from './pushed-request-store.js';
import { parseAuthorizeRequest, RedirectedError, UnsafeRedirectError, type AuthorizeRequest } from './authorize-request.js';

/** RFC 9126 2.2: long enough for the browser's redirect, short enough that a leaked URI is stale. */
const PUSHED_REQUEST_TTL = 60;

const REQUEST_URI_PREFIX = 'urn:ietf:params:oauth:request_uri:';

/** RFC 9126 2.2 `request_uri` and `expires_in`. */
export interface PushedRequest {
  request_uri: string;
  expires_in: number;
}

/** Whether `client` may reach /connect/authorize only through /connect/par (RFC 9126 5, 6). */
export function requiresPushedRequests(deps: Deps, client: Client): boolean {
  return deps.config.requirePushedAuthorizationRequests || client.requirePushedRequests;
}

/**
 * RFC 9101 10.5: a client registered with `require_signed_request_object` sends its requests only
 * as a request object, which its metadata allows only signed (clients/manage.ts). Checked where a
 * request comes in from the client, not when it is read again after sign-in.
 */
function unsignedRefusal(client: Client, params: URLSearchParams): AppError | undefined {
  if (!client.requireSignedRequestObject || params.has('request')) return undefined;
  return InvalidRequest('this client must send its authorization request as a signed request object (request, RFC 9101)');
}

/**
 * Validates and stores the authorization request `params` of the authenticated `client`. Every
 * failure is the JSON error the authorize endpoint would have redirected (RFC 9126 2.3), and
 * stores nothing.
 */
export async function pushAuthorizationRequest(deps: Deps, client: Client, params: URLSearchParams, proofJkt?: string): Promise<PushedRequest> {
  // RFC 9126 2.1: a pushed request cannot point at another one.
  if (params.has('request_uri')) throw InvalidRequest('request_uri cannot be pushed (RFC 9126 2.1)');
  const pushed = new URLSearchParams(params);
  pushed.set('client_id', client.clientId);
  // RFC 9449 10.1: a DPoP proof sent with the push binds the code to its key, as dpop_jkt would.
  if (proofJkt !== undefined && !pushed.has('request') && !pushed.has('dpop_jkt')) pushed.set('dpop_jkt', proofJkt);
  let request: AuthorizeRequest;
  try {
    request = await parseAuthorizeRequest(deps, pushed);
  } catch (error) {
    if (error instanceof RedirectedError) throw error.error;
    throw error;
  }
  if (proofJkt !== undefined && request.dpopJkt !== proofJkt) {
    throw InvalidDpopProof("dpop_jkt must name the DPoP proof's key (RFC 9449 10.1); a request object carries it inside");
  }
  const unsigned = unsignedRefusal(client, pushed);
  if (unsigned) throw unsigned;
  const requestUri = `${REQUEST_URI_PREFIX}${randomToken()}`;
  await storePushedRequest(deps, { requestUri, clientId: client.clientId, params: pushed, ttl: PUSHED_REQUEST_TTL });
  return { request_uri: requestUri, expires_in: PUSHED_REQUEST_TTL };
}

/**
 * An authorization request as the browser brings it to /connect/authorize: a pushed one by its
 * `request_uri` (with `client_id` and nothing else that counts, RFC 9126 4), or the parameters
 * themselves where the client and the server allow that. A request_uri that is unknown, used,
 * expired or another client's is shown on the error page: there is no redirect URI to trust.
 */
export async function openAuthorizeRequest(deps: Deps, params: URLSearchParams): Promise<AuthorizeRequest> {
  const requestUris = params.getAll('request_uri');
  // Any other request_uri (a request object by reference, RFC 9101) is the parser's to refuse.
  if (!requestUris.some((uri) => uri.startsWith(REQUEST_URI_PREFIX))) {
    const request = await parseAuthorizeRequest(deps, params);
    if (requiresPushedRequests(deps, request.client)) {
      throw new RedirectedError(request, InvalidRequest('this client must push its authorization requests to /connect/par first (RFC 9126)'));
    }
    const unsigned = unsignedRefusal(request.client, params);
    if (unsigned) throw new RedirectedError(request, unsigned);
    return request;
  }
  const clientIds = params.getAll('client_id');
  if (clientIds.length !== 1 || clientIds[0] === '') throw new UnsafeRedirectError('missing_client_id', 'client_id is missing');
  const pushed = requestUris.length === 1 ? await takePushedRequest(deps, clientIds[0]!, requestUris[0]!) : undefined;
  if (!pushed) throw new UnsafeRedirectError('invalid_request_uri', 'the request_uri is unknown, expired, already used, or was pushed by another client');
  return parseAuthorizeRequest(deps, pushed);
}
