/**
 * DPoP (RFC 9449, docs/api.md#dpop): a client proves, with a JWT signed by a key of its own on
 * each request, that it holds the key its tokens are bound to. This module checks such proofs
 * (section 4.3), hands out and checks the token endpoint's nonces (section 8) and decides, at a
 * protected resource, whether a presented access token may be used (section 7).
 */
import { createHash } from 'node:crypto';
import { calculateJwkThumbprint, decodeProtectedHeader, importJWK, jwtVerify, type JWK } from 'jose';
import type { Deps } from '../../deps.js';
import { AppError, InvalidDpopProof, Unauthorized, UseDpopNonce } from '../../errors.js';
import { sign, unsign } from '../keys/secrets.js';
import { claimJti } from './jti-replay.js';
import { verifyAccessTokenClaims, type AccessTokenClaims } from './access-tokens.js';
import { issuerOf } from '../issuer.js';

/** Asymmetric algorithms only (RFC 9449 4.3 item 5): a shared secret would prove nothing. */
export const DPOP_ALGS: readonly string[] = ['ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512', 'RS256', 'RS384', 'RS512', 'EdDSA'];

/** How far a proof's `iat` may lie from the server's clock, either way (RFC 9449 11.1): a minute. */
const IAT_WINDOW_S = 60;

/** A nonce is good in the period it was made in and the next one (RFC 9449 8): five to ten minutes. */
const NONCE_PERIOD_MS = 5 * 60 * 1000;

/** Members of a private JWK (RFC 7518 6.2.2, 6.3.2, 6.4; RFC 8037 2): a proof's `jwk` has none. */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

/** The request a proof is presented with, as the server sees it. */
export interface DpopRequest {
  /** The `DPoP` header, if any. */
  proof: string | undefined;
  method: string;
  /** The request's path, without its query: `htu` is this path at the issuer's address. */
  path: string;
}

/** A nonce of the current period, for the `DPoP-Nonce` header. */
export function currentDpopNonce(deps: Deps): string {
  return sign(deps, 'dpop_nonce', String(Math.floor(deps.now() / NONCE_PERIOD_MS)));
}

function isCurrentNonce(deps: Deps, nonce: unknown): boolean {
  const period = typeof nonce === 'string' ? unsign(deps, 'dpop_nonce', nonce) : undefined;
  const current = Math.floor(deps.now() / NONCE_PERIOD_MS);
  return period === String(current) || period === String(current - 1);
}

/** `htu` without query and fragment, normalized (RFC 9449 4.3 item 9, RFC 3986 6.2.2 and 6.2.3). */
function targetOf(uri: string): string | undefined {
  try {
    const url = new URL(uri);
    return `${url.origin}${url.pathname}`;
  } catch {
    return undefined;
  }
}

function refuse(description: string): AppError {
  return InvalidDpopProof(`the DPoP proof ${description}`);
}

/** The proof's header, checked: one JWT, typ dpop+jwt, an allowed algorithm, a public key. */
async function proofKey(proof: string) {
  // Two DPoP headers arrive joined by a comma, which no JWT holds.
  if (!/^[\w-]+\.[\w-]+\.[\w-]+$/.test(proof)) throw refuse('is not one JWT');
  let header;
  try {
    header = decodeProtectedHeader(proof);
  } catch {
    throw refuse('is not one JWT');
  }
  if (header.typ !== 'dpop+jwt') throw refuse('must have typ dpop+jwt');
  if (typeof header.alg !== 'string' || !DPOP_ALGS.includes(header.alg)) throw refuse(`must be signed with one of ${DPOP_ALGS.join(', ')}`);
  const jwk = header.jwk as JWK | undefined;
  if (typeof jwk !== 'object' || jwk === null) throw refuse('must carry its public key (jwk)');
  if (PRIVATE_MEMBERS.some((member) => member in jwk)) throw refuse('must carry a public key, not a private one');
  try {
    return { key: await importJWK(jwk, header.alg), jwk, alg: header.alg };
  } catch {
    throw refuse(`carries a jwk that is not a key for ${header.alg}`);
  }
}

/**
 * Checks a proof for `request` (RFC 9449 4.3): its signature by the key it carries, `htm`, `htu`,
 * `iat` within a minute, `ath` when it comes with `accessToken`, the server's nonce when `nonce`
 * is asked for, and last that its `jti` was not used before with that key. Returns the key's
 * thumbprint (RFC 7638), which tokens are bound to. @throws 400 `invalid_dpop_proof`, or
 * `use_dpop_nonce` with a `DPoP-Nonce` header to try again with.
 */
export async function verifyDpopProof(deps: Deps, request: DpopRequest, options: { accessToken?: string; nonce?: boolean } = {}): Promise<string> {
  if (!request.proof) throw refuse('is missing: send it in the DPoP header');
  const { key, jwk, alg } = await proofKey(request.proof);
  let payload;
  try {
    // The window below decides how old a proof may be; jose checks exp and nbf if a proof has them.
    ({ payload } = await jwtVerify(request.proof, key, { typ: 'dpop+jwt', algorithms: [alg], currentDate: new Date(deps.now()) }));
  } catch {
    throw refuse('has a signature that does not verify with its jwk, or has expired');
  }
  if (typeof payload.jti !== 'string' || payload.jti === '' || payload.jti.length > 256) throw refuse('must have a jti');
  if (payload.htm !== request.method) throw refuse(`is for htm ${String(payload.htm)}, not ${request.method}`);
  const expected = targetOf(`${issuerOf(deps)}${request.path}`);
  if (typeof payload.htu !== 'string' || targetOf(payload.htu) !== expected) throw refuse(`is for htu ${String(payload.htu)}, not ${expected}`);
  const now = deps.now() / 1000;
  if (typeof payload.iat !== 'number' || Math.abs(now - payload.iat) > IAT_WINDOW_S) throw refuse(`must have an iat within ${IAT_WINDOW_S} seconds of now`);
  if (options.accessToken !== undefined) {
    const ath = createHash('sha256').update(options.accessToken).digest('base64url');
    if (payload.ath !== ath) throw refuse('must have ath, the SHA-256 of the access token it is sent with');
  }
  if (options.nonce && !isCurrentNonce(deps, payload.nonce)) {
    throw UseDpopNonce('the DPoP proof must carry the nonce of the DPoP-Nonce header', { headers: { 'DPoP-Nonce': currentDpopNonce(deps) } });
  }
  const jkt = await calculateJwkThumbprint(jwk, 'sha256');
  if (!(await claimJti(deps, `dpop:${jkt}`, payload.jti, (payload.iat + IAT_WINDOW_S) * 1000))) throw refuse('was used before (jti)');
  return jkt;
}

/** A protected resource's challenge (RFC 9449 7.1): the error, and the algorithms proofs may use. */
function dpopChallenge(error: string, description: string): Record<string, string> {
  return { 'WWW-Authenticate': `DPoP error="${error}", error_description="${description.replaceAll('"', "'")}", algs="${DPOP_ALGS.join(' ')}"` };
}

/** How an access token came: `Authorization: Bearer`, `Authorization: DPoP`, or the `access_token` parameter (RFC 6750 2.2, Usergrid's query). */
export interface PresentedToken {
  scheme: 'Bearer' | 'DPoP' | 'parameter';
  token: string;
}

/** `Authorization: Bearer …` or `Authorization: DPoP …` (RFC 6750 2.1, RFC 9449 7.1). */
export function presentedTokenOf(authorization: string | undefined): PresentedToken | undefined {
  const match = authorization?.match(/^(Bearer|DPoP)\s+(\S+)\s*$/i);
  if (!match) return undefined;
  return { scheme: match[1]!.toLowerCase() === 'dpop' ? 'DPoP' : 'Bearer', token: match[2]! };
}

/**
 * The claims of an access token presented at a protected resource, after the checks of RFC 9449
 * 7: a DPoP-bound token (`cnf.jkt`) only with the DPoP scheme and a proof of its key for this
 * request; the DPoP scheme only with a bound token. @throws 401 `unauthorized` with a `DPoP`
 * challenge for those, or what verifyAccessTokenClaims throws.
 */
export async function verifyPresentedToken(deps: Deps, presented: PresentedToken, request: DpopRequest): Promise<AccessTokenClaims> {
  let claims: AccessTokenClaims;
  try {
    claims = await verifyAccessTokenClaims(deps, presented.token);
  } catch (error) {
    // The challenge names the scheme the token came with.
    if (!(error instanceof AppError) || presented.scheme !== 'DPoP') throw error;
    throw new AppError(error.status, error.error, error.message, { headers: dpopChallenge('invalid_token', error.message) });
  }
  const bound = (claims.cnf as { jkt?: unknown } | undefined)?.jkt;
  if (presented.scheme !== 'DPoP') {
    if (bound === undefined) return claims;
    const description = 'this access token is DPoP-bound: send it as Authorization: DPoP, with a DPoP proof';
    throw Unauthorized(description, { headers: dpopChallenge('invalid_token', description) });
  }
  if (bound === undefined) {
    const description = 'this access token is not DPoP-bound: send it as Authorization: Bearer';
    throw Unauthorized(description, { headers: dpopChallenge('invalid_token', description) });
  }
  let jkt: string;
  try {
    jkt = await verifyDpopProof(deps, request, { accessToken: presented.token });
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    throw Unauthorized(error.message, { headers: dpopChallenge('invalid_dpop_proof', error.message) });
  }
  if (jkt !== bound) {
    const description = 'the DPoP proof is signed with another key than the one this access token is bound to';
    throw Unauthorized(description, { headers: dpopChallenge('invalid_dpop_proof', description) });
  }
  return claims;
}
