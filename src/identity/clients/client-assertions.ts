/**
 * Client authentication with a JWT (RFC 7523 2.2 and 3, OIDC Core 9): `private_key_jwt`, signed
 * with a key of the client's `jwks` or `jwks_uri`, and `client_secret_jwt`, an HMAC keyed with
 * its secret (docs/api.md#client-authentication-with-a-jwt). Every refusal is `invalid_client`
 * and says what was wrong with the assertion.
 */
import { decodeJwt, decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import type { Deps } from '../../deps.js';
import { claimJti } from '../tokens/jti-replay.js';
import { issuerOf } from '../issuer.js';
import { ASYMMETRIC_ALGS, describeJwtFailure, HMAC_ALGS, verificationKeyOf } from './client-keys.js';
import { clientAuthenticationFailed, type Client } from './find.js';

export const JWT_BEARER_ASSERTION = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/** The longest an assertion may live (exp - now): long enough for clock skew, short enough that a leaked one soon stops working. */
const MAX_LIFETIME_S = 5 * 60;
/** Clocks of client and server may differ by this much (exp, nbf, iat). */
const CLOCK_TOLERANCE_S = 30;

type JwtMethod = 'private_key_jwt' | 'client_secret_jwt';

function refused(description: string) {
  return clientAuthenticationFailed(`client authentication failed: ${description}`);
}

/**
 * Which client an assertion is for and by which method, read before its signature is checked:
 * `client_id` when sent, else the assertion's `sub` (RFC 7523 3: iss and sub are the client_id);
 * an HMAC algorithm means client_secret_jwt, any other private_key_jwt.
 */
export function readClientAssertion(assertion: string, clientId: string | undefined): { clientId: string; method: JwtMethod } {
  let claims: JWTPayload;
  let alg: string | undefined;
  try {
    claims = decodeJwt(assertion);
    alg = decodeProtectedHeader(assertion).alg;
  } catch {
    throw refused('client_assertion is not a JWT');
  }
  const subject = clientId ?? claims.sub;
  if (typeof subject !== 'string' || subject === '') throw refused('the client assertion has no sub: it must be the client_id');
  return { clientId: subject, method: (HMAC_ALGS as readonly string[]).includes(alg ?? '') ? 'client_secret_jwt' : 'private_key_jwt' };
}

/** The algorithms a method allows, or the one the client registered (token_endpoint_auth_signing_alg). */
function algorithmsFor(client: Client, method: JwtMethod): string[] {
  const allowed: readonly string[] = method === 'private_key_jwt' ? ASYMMETRIC_ALGS : HMAC_ALGS;
  return client.authSigningAlg ? allowed.filter((alg) => alg === client.authSigningAlg) : [...allowed];
}

/**
 * Checks a client assertion of `client` (RFC 7523 3): signed by the client with an algorithm
 * the method allows, `iss` and `sub` its client_id, `aud` this server's issuer identifier (as
 * draft-ietf-oauth-rfc7523bis asks) or its token endpoint URL (RFC 7523, OIDC Core 9), `exp`
 * present and at most five minutes ahead, and a `jti` never seen before from this client.
 */
export async function verifyClientAssertion(deps: Deps, client: Client, method: JwtMethod, assertion: string): Promise<void> {
  const issuer = issuerOf(deps);
  const key = verificationKeyOf(client, method === 'client_secret_jwt' ? HMAC_ALGS[0] : ASYMMETRIC_ALGS[0]);
  if (!key)
    throw refused(
      method === 'client_secret_jwt' ? 'this client has no secret to key client_secret_jwt' : 'this client has registered no keys (jwks or jwks_uri)',
    );
  let claims: JWTPayload;
  try {
    ({ payload: claims } = await jwtVerify(assertion, key as Parameters<typeof jwtVerify>[1], {
      algorithms: algorithmsFor(client, method),
      issuer: client.clientId,
      subject: client.clientId,
      audience: [issuer, `${issuer}/connect/token`],
      requiredClaims: ['exp', 'jti'],
      currentDate: new Date(deps.now()),
      clockTolerance: CLOCK_TOLERANCE_S,
    }));
  } catch (error) {
    deps.logger.debug({ event: 'client_assertion_refused', client_id: client.clientId, err: error }, 'client assertion refused');
    throw refused(describeJwtFailure(error, 'the client assertion'));
  }
  const now = deps.now() / 1000;
  if (claims.exp! > now + MAX_LIFETIME_S + CLOCK_TOLERANCE_S)
    throw refused(`the client assertion lives too long: exp may be at most ${MAX_LIFETIME_S} seconds ahead`);
  if (typeof claims.jti !== 'string' || claims.jti === '') throw refused('the client assertion needs a jti, a string');
  if (!(await claimJti(deps, `client_assertion:${client.clientId}`, claims.jti, (claims.exp! + CLOCK_TOLERANCE_S) * 1000))) {
    throw refused('this client assertion was used already (its jti was seen): make a new one for every request');
  }
}
