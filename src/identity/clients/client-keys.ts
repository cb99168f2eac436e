/**
 * The keys a client signs with (docs/api.md#client-keys): a public JWK Set registered as `jwks`,
 * or fetched from its `jwks_uri` (RFC 7591 2), and its secret for the HMAC algorithms. Client
 * assertions (client-assertions.ts) and request objects (authorize/request-object.ts) are checked
 * against them, with the algorithms the client registered.
 */
import { createPublicKey, type JsonWebKey } from 'node:crypto';
import { createLocalJWKSet, createRemoteJWKSet, customFetch, errors, type JWK, type JWTVerifyGetKey } from 'jose';
import { InvalidClientMetadata } from '../../errors.js';
import { FETCH_TIMEOUT_MS, fetchLimited } from './client-documents.js';
import type { Client } from './find.js';

/** Signatures with a client's public key (RFC 7518 3.1, RFC 8037): RSA, RSA-PSS, ECDSA, EdDSA. */
export const ASYMMETRIC_ALGS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'] as const;
/** MACs keyed with the client's secret (RFC 7518 3.2). */
export const HMAC_ALGS = ['HS256', 'HS384', 'HS512'] as const;

export interface ClientJwks {
  keys: JWK[];
}

/** Members of a JWK that hold private or symmetric key material (RFC 7518 6.2.2, 6.3.2, 6.4; RFC 8037 2). */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];
const MAX_KEYS = 20;
/** A fetched set is used this long before it is fetched again; a JWT with an unknown kid refetches it at most every COOLDOWN_MS. */
const JWKS_TTL_MS = 10 * 60_000;
const COOLDOWN_MS = 30_000;
/** Remote sets remembered at once; the least recently used goes first. */
const MAX_REMOTE_SETS = 1000;

function invalidJwks(message: string) {
  return InvalidClientMetadata(`jwks: ${message}`, { fields: { jwks: message } });
}

/**
 * A registered `jwks` (RFC 7517 5): at most 20 public keys that node:crypto can read, without
 * private or symmetric key material (a client's secret is not a JWK here), each with a `kid`
 * when there are several.
 */
export function checkClientJwks(value: unknown): ClientJwks {
  const keys = (value as { keys?: unknown } | null)?.keys;
  if (typeof value !== 'object' || value === null || Array.isArray(value) || !Array.isArray(keys)) throw invalidJwks('must be a JWK Set: {"keys": [...]}');
  if (keys.length === 0 || keys.length > MAX_KEYS) throw invalidJwks(`must hold between 1 and ${MAX_KEYS} keys`);
  const kids = new Set<string>();
  for (const [index, key] of keys.entries()) {
    if (typeof key !== 'object' || key === null || Array.isArray(key)) throw invalidJwks(`key ${index} is not a JWK object`);
    const jwk = key as JWK;
    const secret = PRIVATE_MEMBERS.find((member) => Object.hasOwn(jwk, member));
    if (secret !== undefined) throw invalidJwks(`key ${index} holds private or symmetric key material ('${secret}'); register public keys only`);
    if (!['RSA', 'EC', 'OKP'].includes(String(jwk.kty))) throw invalidJwks(`key ${index}: kty must be RSA, EC or OKP`);
    if (jwk.kty === 'OKP' && jwk.crv !== 'Ed25519') throw invalidJwks(`key ${index}: an OKP key must be an Ed25519 signing key`);
    try {
      createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' });
    } catch {
      throw invalidJwks(`key ${index} is not a valid ${String(jwk.kty)} public key`);
    }
    if (jwk.alg !== undefined && !(ASYMMETRIC_ALGS as readonly string[]).includes(jwk.alg))
      throw invalidJwks(`key ${index}: alg '${jwk.alg}' is not supported`);
    if (jwk.use !== undefined && jwk.use !== 'sig') throw invalidJwks(`key ${index}: use must be sig`);
    if (keys.length > 1 && typeof jwk.kid !== 'string') throw invalidJwks(`key ${index} needs a kid: the set holds several keys`);
    if (jwk.kid !== undefined) {
      if (kids.has(jwk.kid)) throw invalidJwks(`kid '${jwk.kid}' is used twice`);
      kids.add(jwk.kid);
    }
  }
  return { keys: keys as JWK[] };
}

const remoteSets = new Map<string, JWTVerifyGetKey>();

/** The cached remote set of a `jwks_uri`, made on first use (jose refetches it as JWKS_TTL_MS and COOLDOWN_MS say). */
function remoteSetOf(uri: string): JWTVerifyGetKey {
  let set = remoteSets.get(uri);
  if (set) remoteSets.delete(uri);
  else
    set = createRemoteJWKSet(new URL(uri), {
      timeoutDuration: FETCH_TIMEOUT_MS,
      cacheMaxAge: JWKS_TTL_MS,
      cooldownDuration: COOLDOWN_MS,
      [customFetch]: fetchLimited,
    });
  remoteSets.set(uri, set);
  if (remoteSets.size > MAX_REMOTE_SETS) remoteSets.delete(remoteSets.keys().next().value!);
  return set;
}

/**
 * The key that checks a JWT of `client` signed with `alg`: its secret for the HMAC algorithms,
 * when the secret itself is kept; else its registered set, or the one at its `jwks_uri`.
 * Undefined when it has no such key.
 */
export function verificationKeyOf(client: Client, alg: string): Uint8Array | JWTVerifyGetKey | undefined {
  if ((HMAC_ALGS as readonly string[]).includes(alg))
    return client.secret && 'plain' in client.secret ? new TextEncoder().encode(client.secret.plain) : undefined;
  if (client.jwks) return createLocalJWKSet(client.jwks);
  if (client.jwksUri) return remoteSetOf(client.jwksUri);
  return undefined;
}

/**
 * Why jose refused a client's JWT (`what`: "the client assertion", "the request object"), in
 * words a client developer can act on.
 */
export function describeJwtFailure(error: unknown, what: string): string {
  if (error instanceof errors.JWTExpired) return `${what} has expired`;
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'aud') return `${what} is not for this server: aud must be the issuer identifier`;
    if (error.claim === 'iss' || error.claim === 'sub') return `${what}'s ${error.claim} must be the client_id`;
    if (error.reason === 'missing') return `${what} has no ${error.claim} claim`;
    return `${what}'s ${error.claim} claim is not valid (${error.reason})`;
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return `${what} is signed with an algorithm this client may not use`;
  if (error instanceof errors.JWKSNoMatchingKey) return `no key of this client's matches the kid and alg of ${what}`;
  if (error instanceof errors.JWSSignatureVerificationFailed) return `the signature of ${what} does not verify`;
  if (error instanceof errors.JWKSInvalid) return "the JWK Set at the client's jwks_uri is not valid";
  // A timeout, a refused connection, a status other than 200, an answer too large or not JSON.
  if (!(error instanceof errors.JOSEError) || error instanceof errors.JWKSTimeout || error.code === 'ERR_JOSE_GENERIC') {
    return "the client's jwks_uri could not be fetched";
  }
  return `${what} is not valid (${error.code})`;
}
