/** Pieces of the lifecycle tests: a test app with a quick captcha, a solver, and the outbox. */
import { solveChallenge } from 'altcha-lib';
import type { Config } from '../../src/config.js';
import { createTestApp, type TestApp } from '../helpers.js';
import { linksIn, readOutbox, subjectOf } from './mail-helpers.js';

// A small search space keeps the proof of work to milliseconds in tests.
export const QUICK_CAPTCHA = { provider: 'altcha', maxNumber: 2000 } as const;

export async function createLifecycleApp(overrides: Partial<Config> = {}, now?: () => number): Promise<TestApp> {
  return await createTestApp({ captcha: QUICK_CAPTCHA, ...overrides }, { now });
}

/** What the reset form's script does: the ALTCHA payload for a challenge from GET …/resetpw. */
export async function solveCaptcha(challengeJson: string): Promise<string> {
  const challenge = JSON.parse(challengeJson) as { algorithm: string; challenge: string; salt: string; signature: string; maxnumber: number };
  const solution = await solveChallenge(challenge.challenge, challenge.salt, challenge.algorithm, challenge.maxnumber).promise;
  if (!solution) throw new Error('captcha not solvable');
  return Buffer.from(
    JSON.stringify({
      algorithm: challenge.algorithm,
      challenge: challenge.challenge,
      number: solution.number,
      salt: challenge.salt,
      signature: challenge.signature,
    }),
  ).toString('base64');
}

/** A fresh solved ResetPWMsg captcha from the JSON form. */
export async function solvedCaptcha(t: TestApp, path = '/management/users/resetpw'): Promise<{ captcha_challenge: string; captcha_response: string }> {
  const form = await t.request('GET', path, { headers: { accept: 'application/json' } });
  if (form.status !== 200) throw new Error(`no reset form: ${form.text}`);
  const challenge = form.body.entities[0].token as string;
  return { captcha_challenge: challenge, captcha_response: await solveCaptcha(challenge) };
}

export interface Mail {
  subject: string;
  raw: string;
  links: string[];
}

/** Every message the app has mailed so far (its outbox), oldest first. */
export async function mailsOf(t: TestApp): Promise<Mail[]> {
  await t.deps.mailer.idle();
  return readOutbox(t.deps.mailer.target).map((raw) => ({ subject: subjectOf(raw), raw, links: linksIn(raw) }));
}

/** The path and query of a mailed link, for app.request(). */
export function pathOf(link: string): string {
  const url = new URL(link);
  return `${url.pathname}${url.search}`;
}
