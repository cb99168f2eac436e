/**
 * Request objects passed by value (RFC 9101, OIDC Core 6.1; docs/api.md#request-objects): the
 * authorization request as a JWT in `request`, signed with a key of the client's (client-keys.ts)
 * or, as HS256, with its secret; unsigned (`none`) only for a client that registered
 * request_object_signing_alg none. Its parameters are the request: the query's other parameters
 * are not used (RFC 9101 5), but client_id must be in both, and agree.
 */
import { decodeProtectedHeader, jwtVerify, UnsecuredJWT, type JWTPayload } from 'jose';
import type { Deps } from '../../deps.js';
import { InvalidRequestObject } from '../../errors.js';
import { ASYMMETRIC_ALGS, describeJwtFailure, HMAC_ALGS, verificationKeyOf } from '../clients/client-keys.js';
import type { Client } from '../clients/find.js';
import { issuerOf } from '../issuer.js';
import { REPEATABLE_PARAMETERS } from '../tokens/resources.js';

/** Claims of the JWT itself, not parameters of the request (RFC 7519 4.1). */
const JWT_CLAIMS = new Set(['iss', 'aud', 'exp', 'iat', 'nbf', 'jti', 'sub']);
/** Clocks of client and server may differ by this much (exp, nbf). */
const CLOCK_TOLERANCE_S = 30;

/** The algorithms a client's request object may use: the one it registered, or any it holds a key for. */
function algorithmsOf(client: Client): string[] {
  if (client.requestObjectSigningAlg) return [client.requestObjectSigningAlg];
  const keyed = client.jwks || client.jwksUri ? [...ASYMMETRIC_ALGS] : [];
  return client.secret && 'plain' in client.secret ? [...keyed, ...HMAC_ALGS] : keyed;
}

async function verifiedClaims(deps: Deps, client: Client, jwt: string): Promise<JWTPayload> {
  let alg: string | undefined;
  try {
    alg = decodeProtectedHeader(jwt).alg;
  } catch {
    throw InvalidRequestObject('request is not a JWT');
  }
  const options = { issuer: client.clientId, audience: issuerOf(deps), currentDate: new Date(deps.now()), clockTolerance: CLOCK_TOLERANCE_S };
  if (alg === 'none') {
    if (client.requestObjectSigningAlg !== 'none')
      throw InvalidRequestObject('an unsigned request object (alg none) is refused: this client did not register it');
    try {
      return UnsecuredJWT.decode(jwt, options).payload;
    } catch (error) {
      throw InvalidRequestObject(describeJwtFailure(error, 'the request object'));
    }
  }
  const algorithms = algorithmsOf(client);
  if (alg === undefined || !algorithms.includes(alg)) {
    throw InvalidRequestObject(`the request object is signed with ${alg ?? 'no algorithm'}; this client's may use ${algorithms.join(', ') || 'none'}`);
  }
  const key = verificationKeyOf(client, alg);
  if (!key) throw InvalidRequestObject(`this client has no key to check a request object signed with ${alg}`);
  try {
    return (await jwtVerify(jwt, key as Parameters<typeof jwtVerify>[1], { ...options, algorithms: [alg] })).payload;
  } catch (error) {
    deps.logger.debug({ event: 'request_object_refused', client_id: client.clientId, err: error }, 'request object refused');
    throw InvalidRequestObject(describeJwtFailure(error, 'the request object'));
  }
}

/**
 * The authorization request a request object holds, as parameters: its claims but those of the
 * JWT itself, strings as they are, numbers (max_age) written out, objects (claims) as JSON.
 * @throws 400 invalid_request_object, saying what was wrong
 */
export async function readRequestObject(deps: Deps, client: Client, jwt: string): Promise<URLSearchParams> {
  const claims = await verifiedClaims(deps, client, jwt);
  if (claims.client_id !== undefined && claims.client_id !== client.clientId) {
    throw InvalidRequestObject('the client_id in the request object differs from the one in the query');
  }
  if (claims.request !== undefined || claims.request_uri !== undefined) throw InvalidRequestObject('a request object cannot hold request or request_uri');
  const params = new URLSearchParams({ client_id: client.clientId });
  for (const [name, value] of Object.entries(claims)) {
    if (JWT_CLAIMS.has(name) || name === 'client_id' || value === undefined || value === null) continue;
    // RFC 8707 2: several resources are a list of strings, each a parameter of its own.
    if (REPEATABLE_PARAMETERS.has(name) && Array.isArray(value) && value.every((item) => typeof item === 'string')) {
      for (const item of value) params.append(name, item);
      continue;
    }
    params.set(name, typeof value === 'string' ? value : typeof value === 'number' ? String(value) : JSON.stringify(value));
  }
  return params;
}
