/**
 * The second step of a password sign-in (docs/api.md#second-factors): a user with an active
 * factor must add `otp`, a code of one of their TOTP factors or one of their recovery codes, or
 * on the sign-in page one of their passkeys. What the sign-in then proves is said in RFC 8176
 * `amr` and our `acr` values.
 */
import type { Deps } from '../../deps.js';
import { claimTotpStep, listActiveFactors, type Factor } from './factors.js';
import { checkPasskey, type PasskeyProof } from './passkeys.js';
import { useRecoveryCode } from './recovery-codes.js';
import { looksLikeTotpCode, totpStepOf } from './totp.js';
import { MFA_ACR, PHR_ACR, PWD_ACR } from '../../acr.js';

export { ACR_VALUES, acrRank, MFA_ACR, PHR_ACR } from '../../acr.js';

/** A password alone (RFC 8176 `pwd`). */
export const PASSWORD_ONLY: readonly string[] = ['pwd'];
/**
 * A password and a one-time code: a TOTP code or a recovery code, which is a one-time password
 * too (RFC 8176 `otp`); two factors (`mfa`).
 */
export const PASSWORD_AND_OTP: readonly string[] = withSecondFactor(PASSWORD_ONLY);

/**
 * An `amr` after a second factor was added to it: a password (or an external sign-in) and `otp`
 * (a one-time code) or `hwk`/`swk` (a passkey), two factors.
 */
export function withSecondFactor(amr: readonly string[], method: string = 'otp'): string[] {
  return [...new Set([...amr, method, 'mfa'])];
}

/**
 * The `acr` an `amr` amounts to: `phr` when a passkey was used (`hwk`/`swk`), `mfa` for two
 * factors, `pwd` for a password; none for what we cannot vouch for (a federated sign-in).
 */
export function acrOf(amr: readonly string[] | null | undefined): string | undefined {
  if (amr?.includes('hwk') || amr?.includes('swk')) return PHR_ACR;
  if (amr?.includes('mfa')) return MFA_ACR;
  if (amr?.includes('pwd')) return PWD_ACR;
  return undefined;
}

/** A second factor as given: a one-time code (or none), or a passkey's assertion. */
export type SecondFactorProof = string | undefined | PasskeyProof;

export type SecondFactorOutcome =
  | { result: 'passed'; amr: readonly string[]; method?: 'totp' | 'recovery_code' | 'passkey'; factor?: Factor }
  /** The user has an active factor and no code was sent. */
  | { result: 'required' }
  /** A code was sent and is not (or no longer) good. */
  | { result: 'wrong' };

/**
 * Checks the second step of a sign-in whose password was right; a TOTP code or recovery code that
 * passes is spent, as is a passkey's challenge whether or not it passes.
 */
export async function checkSecondFactor(deps: Deps, userUuid: string, otp: SecondFactorProof): Promise<SecondFactorOutcome> {
  const factors = await listActiveFactors(deps.db, userUuid);
  if (factors.length === 0) return { result: 'passed', amr: PASSWORD_ONLY };
  if (typeof otp === 'object') {
    const passed = await checkPasskey(deps, factors, otp, false);
    return passed ? { result: 'passed', amr: withSecondFactor(PASSWORD_ONLY, passed.method), method: 'passkey', factor: passed.factor } : { result: 'wrong' };
  }
  if (otp === undefined || otp === '') return { result: 'required' };
  const code = otp.trim();
  if (looksLikeTotpCode(code)) {
    for (const factor of factors) {
      if (factor.type !== 'totp' || !factor.secret) continue;
      const step = totpStepOf(factor.secret, code, deps.now());
      if (step !== null && (await claimTotpStep(deps.db, factor, step, deps.now()))) return { result: 'passed', amr: PASSWORD_AND_OTP, method: 'totp', factor };
    }
    return { result: 'wrong' };
  }
  if (await useRecoveryCode(deps.db, userUuid, code)) return { result: 'passed', amr: PASSWORD_AND_OTP, method: 'recovery_code' };
  return { result: 'wrong' };
}
