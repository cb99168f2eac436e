/**
 * Password hashing with scrypt (node:crypto, RFC 7914). Stored as
 * `scrypt$N$r$p$salt$hash` (base64url) so parameters can be raised later without breaking
 * existing hashes. The NFKC form is hashed (NIST SP 800-63B 5.1.1.2), so a password typed on
 * another keyboard or system, with the same characters composed differently, still matches.
 */
import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';

// OWASP's scrypt minimum (N=2^17, r=8, p=1) costs ~130 MB and ~300 ms; N=2^15 keeps a login
// under 100 ms on two cores while staying far above the cost an offline attacker would like.
const PARAMS = { N: 2 ** 15, r: 8, p: 1 };
const KEY_LENGTH = 32;

function scrypt(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scryptCallback(password, salt, KEY_LENGTH, { ...options, maxmem: 256 * options.N! * options.r! }, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password.normalize('NFKC'), salt, PARAMS);
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  const parts = (stored ?? '').split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') {
    // Spend the same time as a real check so a missing account is not revealed by timing.
    await scrypt(password, randomBytes(16), PARAMS);
    return false;
  }
  const [, N, r, p, salt, hash] = parts;
  const expected = Buffer.from(hash, 'base64url');
  const matches = async (candidate: string) => {
    const actual = await scrypt(candidate, Buffer.from(salt, 'base64url'), { N: Number(N), r: Number(r), p: Number(p) });
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  };
  const normalized = password.normalize('NFKC');
  if (await matches(normalized)) return true;
  // Hashes made before passwords were normalized hold the password as it was typed.
  return normalized !== password && (await matches(password));
}

/** Constant-time comparison of two secrets of any length. */
export function secretsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  if (left.length !== right.length) {
    timingSafeEqual(left, left);
    return false;
  }
  return timingSafeEqual(left, right);
}
