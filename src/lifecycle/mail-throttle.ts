/**
 * Mail floods: each request that would mail an address counts against that address (or account)
 * and against the requesting client address, in the same database-backed counters as
 * password guessing (src/identity/sign-in/throttle.ts), so every instance sees the same
 * counts. A few are free; after that each waits twice as long as the last, answered 429 with
 * Retry-After before anything is looked up or sent.
 */
import type { Deps, ThrottleKey } from '../deps.js';
import { AppError, TooManyRequests } from '../errors.js';
import { assertNotThrottled, recordLoginFailure, type LoginContext } from '../identity/sign-in/throttle.js';

// A person may ask again once or twice when a mail is slow to arrive; more is a flood.
const FREE_MAILS_PER_TARGET = 3;
// Several people behind one NAT may reset at once; a script sending to many addresses may not.
const FREE_MAILS_PER_CLIENT = 20;

function keysOf(target: string, context: LoginContext): ThrottleKey[] {
  return [
    { key: `mail:${target.toLowerCase()}`, free: FREE_MAILS_PER_TARGET },
    { key: `mail-client:${context.address}`, free: FREE_MAILS_PER_CLIENT },
  ];
}

/** Refuses with 429 and Retry-After while `target` or the client is waiting. */
export async function assertMailNotThrottled(deps: Deps, target: string, context: LoginContext): Promise<void> {
  try {
    await assertNotThrottled(deps, keysOf(target, context), 'mail');
  } catch (error) {
    if (!(error instanceof AppError) || error.status !== 429) throw error;
    const seconds = error.headers['Retry-After'];
    throw TooManyRequests(`too many mails were asked for; try again in ${seconds} s`, { headers: error.headers });
  }
}

/** Counts one request that may send mail to `target`. */
export async function countMail(deps: Deps, target: string, context: LoginContext): Promise<void> {
  await recordLoginFailure(deps, keysOf(target, context));
}

/** Refuses while waiting, otherwise counts this request. */
export async function throttleMail(deps: Deps, target: string, context: LoginContext): Promise<void> {
  // Check and count in one transaction: requests arriving together cannot all pass the check
  // before any of them is counted.
  await deps.db.transaction(async () => {
    await assertMailNotThrottled(deps, target, context);
    await countMail(deps, target, context);
  });
}
