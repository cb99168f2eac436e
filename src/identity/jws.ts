/**
 * Compact JWS signing (RFC 7515 7.1) with node:crypto's one-shot `sign`: synchronous and about
 * twice as fast as WebCrypto for ES256 on the token endpoint's hot path. Verification stays with
 * jose, which also checks every token this module makes in the tests.
 */
import { constants, sign, type KeyObject, type SignKeyObjectInput } from 'node:crypto';
import type { SigningAlg } from '../config.js';

function b64(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

function keyInput(alg: SigningAlg, key: KeyObject): SignKeyObjectInput | KeyObject {
  switch (alg) {
    case 'ES256':
      // RFC 7518 3.4: the signature is R || S, not DER.
      return { key, dsaEncoding: 'ieee-p1363' };
    case 'PS256':
      return { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 };
    case 'RS256':
    case 'EdDSA':
      return key;
  }
}

export function signCompactJws(alg: SigningAlg, key: KeyObject, header: Record<string, unknown>, payload: Record<string, unknown>): string {
  const input = `${b64({ ...header, alg })}.${b64(payload)}`;
  const signature = sign(alg === 'EdDSA' ? null : 'sha256', Buffer.from(input), keyInput(alg, key));
  return `${input}.${signature.toString('base64url')}`;
}
