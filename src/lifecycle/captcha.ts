/**
 * The captcha in front of password-reset mail (ResetPWMsg; docs/api.md#account-lifecycle).
 *
 * By default a self-hosted ALTCHA proof of work (altcha-lib): the server hands out an
 * HMAC-signed, expiring challenge; the browser searches for the number whose SHA-256 with the
 * salt gives the challenge; the server checks the signature and the number. No third party is
 * asked, so it works offline. A solution is accepted once (kept in `captcha_solutions` until its
 * challenge expires), across every instance.
 *
 * With a reCAPTCHA, hCaptcha or Turnstile secret configured, the widget's response token is
 * checked at that provider's verify endpoint instead: all three take the same form POST
 * (`secret`, `response`, `remoteip`) and answer `{"success": true|false, …}`.
 */
import { createHash } from 'node:crypto';
import { createChallenge, verifySolution, extractParams } from 'altcha-lib';
import type { Payload } from 'altcha-lib/types';
import { lt } from 'drizzle-orm';

import type { CaptchaConfig } from '../config.js';
import type { Deps } from '../deps.js';
import { CaptchaFailed, CaptchaUnavailable } from '../errors.js';
import { macOf } from '../identity/keys/secrets.js';
import { schemaOf } from '../db/open.js';
import { changes } from '../db/run.js';

// Long enough to fill in a form, short enough that solved challenges cannot be stockpiled.
const CHALLENGE_TTL_MS = 10 * 60 * 1000;
// A provider that does not answer in this time is treated as down rather than holding the request.
const VERIFY_TIMEOUT_MS = 5000;

/** What a form shows: for ALTCHA the challenge to solve, for a provider its widget's site key. */
export type CaptchaChallenge =
  { provider: 'altcha'; challenge: string } | { provider: Exclude<CaptchaConfig['provider'], 'altcha'>; siteKey: string | undefined };

/**
 * The answer posted with the form: ResetPWMsg's captcha_response (the ALTCHA payload carries its
 * own signed challenge, so captcha_challenge adds nothing to check).
 */
export interface CaptchaAnswer {
  response: string;
  remoteIp: string | undefined;
}

function altchaKey(deps: Deps): string {
  return macOf(deps, 'captcha', 'altcha-hmac-key');
}

export async function createCaptchaChallenge(deps: Deps): Promise<CaptchaChallenge> {
  const captcha = deps.config.captcha;
  if (captcha.provider !== 'altcha') return { provider: captcha.provider, siteKey: captcha.siteKey };
  const challenge = await createChallenge({
    hmacKey: altchaKey(deps),
    maxNumber: captcha.maxNumber,
    expires: new Date(deps.now() + CHALLENGE_TTL_MS),
  });
  return { provider: 'altcha', challenge: JSON.stringify(challenge) };
}

/** Throws CaptchaFailed unless the answer solves a challenge of ours (or the provider says so). */
export async function verifyCaptcha(deps: Deps, answer: CaptchaAnswer): Promise<void> {
  const captcha = deps.config.captcha;
  if (captcha.provider === 'altcha') await verifyAltcha(deps, answer.response);
  else await verifyAtProvider(captcha, answer);
}

/**
 * The ALTCHA payload: the widget's base64 JSON `{algorithm, challenge, number, salt, signature}`,
 * or the same JSON unencoded.
 */
function decodePayload(response: string): Payload | undefined {
  const trimmed = response.trim();
  try {
    const parsed = JSON.parse(trimmed.startsWith('{') ? trimmed : Buffer.from(trimmed, 'base64').toString('utf8')) as Partial<Payload>;
    const { algorithm, challenge, number, salt, signature } = parsed;
    if (
      typeof algorithm !== 'string' ||
      typeof challenge !== 'string' ||
      typeof number !== 'number' ||
      typeof salt !== 'string' ||
      typeof signature !== 'string'
    )
      return undefined;
    return { algorithm, challenge, number, salt, signature };
  } catch {
    return undefined;
  }
}

async function verifyAltcha(deps: Deps, response: string): Promise<void> {
  const payload = decodePayload(response);
  const expires = payload ? Number(extractParams(payload).expires) * 1000 : NaN;
  // The library checks expiry against the wall clock; ours is deps.now() so tests can move time.
  if (!payload || !(expires > deps.now()) || !(await verifySolution(payload, altchaKey(deps), false))) {
    throw CaptchaFailed('the captcha was not solved; solve a new challenge', { fields: { captcha_response: 'not solved' } });
  }
  const now = deps.now();
  const spent = await deps.db.transaction(async (tx) => {
    const { captchaSolutions } = schemaOf(tx);
    await tx.delete(captchaSolutions).where(lt(captchaSolutions.expiresAt, now));
    return await tx
      .insert(captchaSolutions)
      .values({ signatureHash: createHash('sha256').update(payload.signature).digest('base64url'), expiresAt: expires })
      .onConflictDoNothing();
  });
  if (changes(spent) !== 1)
    throw CaptchaFailed('this captcha solution was already used; solve a new challenge', { fields: { captcha_response: 'already used' } });
}

async function verifyAtProvider(captcha: Extract<CaptchaConfig, { secret: string }>, answer: CaptchaAnswer): Promise<void> {
  const form = new URLSearchParams({ secret: captcha.secret, response: answer.response });
  if (answer.remoteIp) form.set('remoteip', answer.remoteIp);
  let result: { success?: unknown };
  try {
    const response = await fetch(captcha.verifyUrl, { method: 'POST', body: form, signal: AbortSignal.timeout(VERIFY_TIMEOUT_MS) });
    if (!response.ok) throw new Error(`status ${response.status}`);
    result = (await response.json()) as { success?: unknown };
  } catch (error) {
    throw CaptchaUnavailable(`the ${captcha.provider} verification service could not be reached; try again later`, { cause: error });
  }
  if (result.success !== true) throw CaptchaFailed('the captcha was not solved', { fields: { captcha_response: 'not solved' } });
}
