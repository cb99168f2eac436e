/**
 * Password-guessing throttle (OWASP ASVS 2.2.1): failures are counted per account and per client
 * address in the database, so every instance sharing it sees the same counts. After a number of
 * free failures each further one doubles the wait (1 s, 2 s, 4 s … at most 15 minutes), during
 * which attempts are refused with 429 before any password is checked. The account key is the
 * login as typed, so the answer is the same whether or not the account exists.
 */
import { eq, inArray } from 'drizzle-orm';
import { loginThrottle } from '../db/schema.js';
import type { Deps } from '../deps.js';
import { TooManyRequests } from '../errors.js';

export interface ThrottleKey {
  key: string;
  /** Failures allowed before waiting starts. */
  free: number;
}

// A person mistypes a few times; a shared NAT address carries many people's mistakes.
const ACCOUNT_FREE_FAILURES = 5;
const ADDRESS_FREE_FAILURES = 20;
const FIRST_DELAY_MS = 1000;
const MAX_DELAY_MS = 15 * 60 * 1000;
// Counts are forgotten after this long without a failure (what decays an address's count, since
// one person's success must not clear everyone else's failures from the same address).
const FORGET_AFTER_MS = 15 * 60 * 1000;

/** Where a password attempt comes from; routes pass the socket address when there is one. */
export interface LoginContext {
  address: string;
}
export const UNKNOWN_ADDRESS: LoginContext = { address: 'unknown' };

export function throttleKeys(realm: string, login: string, context: LoginContext): { account: ThrottleKey; address: ThrottleKey } {
  return {
    account: { key: `account:${realm}:${login.toLowerCase()}`, free: ACCOUNT_FREE_FAILURES },
    address: { key: `address:${context.address}`, free: ADDRESS_FREE_FAILURES },
  };
}

/** Refuses with 429 and Retry-After while any of the keys is waiting. */
export function assertNotThrottled(deps: Deps, keys: readonly ThrottleKey[]): void {
  const now = deps.now();
  const rows = deps.db.select().from(loginThrottle).where(inArray(loginThrottle.key, keys.map((k) => k.key))).all();
  const until = Math.max(0, ...rows.map((row) => row.blockedUntil));
  if (until > now) {
    const seconds = Math.ceil((until - now) / 1000);
    throw TooManyRequests(`too many failed sign-in attempts; try again in ${seconds} s`, { headers: { 'Retry-After': String(seconds) } });
  }
}

export function recordLoginFailure(deps: Deps, keys: readonly ThrottleKey[]): void {
  const now = deps.now();
  deps.db.transaction((tx) => {
    for (const { key, free } of keys) {
      const row = tx.select().from(loginThrottle).where(eq(loginThrottle.key, key)).get();
      const previous = row && now - row.lastFailure < FORGET_AFTER_MS ? row.failures : 0;
      const failures = previous + 1;
      const blockedUntil = failures > free ? now + Math.min(FIRST_DELAY_MS * 2 ** (failures - free - 1), MAX_DELAY_MS) : 0;
      tx.insert(loginThrottle)
        .values({ key, failures, blockedUntil, lastFailure: now })
        .onConflictDoUpdate({ target: loginThrottle.key, set: { failures, blockedUntil, lastFailure: now } })
        .run();
    }
  });
}

export function resetLoginFailures(deps: Deps, key: ThrottleKey): void {
  deps.db.delete(loginThrottle).where(eq(loginThrottle.key, key.key)).run();
}
