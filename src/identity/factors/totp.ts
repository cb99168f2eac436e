/**
 * TOTP (RFC 6238) as authenticator apps expect it: SHA-1, 6 digits, 30-second steps, a code of
 * the step before or after accepted too (RFC 6238 5.2, for clocks that drift and codes typed
 * late). Each code works once: the caller keeps the last step accepted and refuses any not after it.
 */
import { Secret, TOTP } from 'otpauth';

const PERIOD = 30;
const DIGITS = 6;
/** Steps either side of the current one whose codes are accepted. */
const WINDOW = 1;

/** A new secret: 160 random bits (RFC 4226 4 recommends the HMAC's output length), base32. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

function totpOf(secret: string, issuer = '', label = ''): TOTP {
  return new TOTP({ issuer, label, algorithm: 'SHA1', digits: DIGITS, period: PERIOD, secret: Secret.fromBase32(secret) });
}

/** The `otpauth://totp/…` URI an authenticator app scans (Google Authenticator's Key Uri Format). */
export function otpauthUri(secret: string, issuer: string, label: string): string {
  return totpOf(secret, issuer, label).toString();
}

/** Whether a string has the shape of a TOTP code: six digits. */
export function looksLikeTotpCode(code: string): boolean {
  return new RegExp(`^\\d{${DIGITS}}$`).test(code);
}

/** The time step `code` belongs to, when it is the code of the current step or one beside it, at `now` (ms); else null. */
export function totpStepOf(secret: string, code: string, now: number): number | null {
  if (!looksLikeTotpCode(code)) return null;
  const delta = totpOf(secret).validate({ token: code, timestamp: now, window: WINDOW });
  return delta === null ? null : Math.floor(now / 1000 / PERIOD) + delta;
}
