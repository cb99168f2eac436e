/**
 * Password-guessing throttle (OWASP ASVS 2.2.1): failures are counted per account and per client
 * address in the database, so every instance sharing it sees the same counts. After a number of
 * free failures each further one doubles the wait (1 s, 2 s, 4 s … at most 15 minutes), during
 * which attempts are refused with 429 before any password is checked. The account key is the
 * login as typed, so the answer is the same whether or not the account exists.
 *
 * The counters live in the database, or in Redis when `--redis-url` is given (counters that
 * expire by themselves, kept off the database that every other request needs).
 */
import { and, eq, inArray, lt } from 'drizzle-orm';

import { type Db, schemaOf } from '../../db/open.js';
import type { Deps, ThrottleKey, ThrottleStore } from '../../deps.js';
import { TooManyRequests } from '../../errors.js';
import type { ThrottledKind } from '../../metrics.js';
import { changes, first } from '../../db/run.js';

// A person mistypes a few times; a shared NAT address carries many people's mistakes.
const ACCOUNT_FREE_FAILURES = 5;
const ADDRESS_FREE_FAILURES = 20;
const FIRST_DELAY_MS = 1000;
const MAX_DELAY_MS = 15 * 60 * 1000;
// Counts are forgotten after this long without a failure (what decays an address's count, since
// one person's success must not clear everyone else's failures from the same address).
const FORGET_AFTER_MS = 15 * 60 * 1000;

/** The realm of admin users (who sign in through admin clients such as admin-cli); an application's users' realm is its uuid. */
export const ADMIN_REALM = 'admin';

/** Where a password attempt comes from; routes pass the socket address when there is one. */
export interface LoginContext {
  address: string;
}
export const UNKNOWN_ADDRESS: LoginContext = { address: 'unknown' };

/**
 * The keys one password attempt counts against. `account` is the uuid of the account the login
 * names, or the login as typed when it names none; either way a login equal to an account's uuid
 * shares that account's count.
 */
export function throttleKeys(realm: string, account: string, context: LoginContext): { account: ThrottleKey; address: ThrottleKey } {
  return {
    account: { key: `account:${realm}:${account.toLowerCase()}`, free: ACCOUNT_FREE_FAILURES },
    address: { key: `address:${context.address}`, free: ADDRESS_FREE_FAILURES },
  };
}

/** The wait after the `failures`-th failure of a key that allows `free` (0: none). */
export function delayAfter(failures: number, free: number): number {
  return failures > free ? Math.min(FIRST_DELAY_MS * 2 ** (failures - free - 1), MAX_DELAY_MS) : 0;
}

export function databaseThrottle(db: Db): ThrottleStore {
  const { loginThrottle } = schemaOf(db);
  return {
    async blockedUntil(keys) {
      const rows = await db
        .select()
        .from(loginThrottle)
        .where(inArray(loginThrottle.key, [...keys]));
      return Math.max(0, ...rows.map((row) => row.blockedUntil));
    },
    async recordFailure(keys, now) {
      await db.transaction(async (tx) => {
        const { loginThrottle } = schemaOf(tx);
        for (const { key, free } of keys) {
          const row = await first(tx.select().from(loginThrottle).where(eq(loginThrottle.key, key)));
          const previous = row && now - row.lastFailure < FORGET_AFTER_MS ? row.failures : 0;
          const failures = previous + 1;
          const blockedUntil = failures > free ? now + delayAfter(failures, free) : 0;
          await tx
            .insert(loginThrottle)
            .values({ key, failures, blockedUntil, lastFailure: now })
            .onConflictDoUpdate({ target: loginThrottle.key, set: { failures, blockedUntil, lastFailure: now } });
        }
      });
    },
    async reset(key) {
      await db.delete(loginThrottle).where(eq(loginThrottle.key, key));
    },
    async prune(now) {
      // A count no longer blocking and past its memory reads as zero: its row says nothing.
      const forgotten = and(lt(loginThrottle.lastFailure, now - FORGET_AFTER_MS), lt(loginThrottle.blockedUntil, now));
      return changes(await db.delete(loginThrottle).where(forgotten));
    },
    async close() {},
  };
}

// One failure, atomically: the count restarts after FORGET_AFTER_MS without a failure (the key
// expires), and the key outlives the longest wait. ARGV: now, free, forget, first delay, max delay.
const RECORD_FAILURE = `
local failures = redis.call('HINCRBY', KEYS[1], 'failures', 1)
local now = tonumber(ARGV[1])
local free = tonumber(ARGV[2])
local blocked = 0
if failures > free then
  blocked = now + math.min(tonumber(ARGV[4]) * 2 ^ (failures - free - 1), tonumber(ARGV[5]))
end
redis.call('HSET', KEYS[1], 'blockedUntil', blocked)
redis.call('PEXPIRE', KEYS[1], math.max(tonumber(ARGV[3]), blocked - now))
return failures`;

const REDIS_PREFIX = 'idp:throttle:';

export async function redisThrottle(url: string): Promise<ThrottleStore> {
  const ioredis = await import('ioredis');
  // CommonJS: the named export under Node's loader, the default one inside the bundle.
  const Redis = ioredis.Redis ?? (ioredis as unknown as { default: typeof ioredis.Redis }).default;
  // Fail fast: a sign-in must not hang on an unreachable Redis.
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 5000, retryStrategy: () => null });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
  } catch (error) {
    redis.disconnect();
    throw error;
  }
  // Reconnects after a later outage; meanwhile sign-ins fail with 500 rather than go unthrottled.
  redis.options.retryStrategy = (attempt) => Math.min(attempt * 200, 5000);
  return {
    async blockedUntil(keys) {
      const values = await Promise.all(keys.map((key) => redis.hget(REDIS_PREFIX + key, 'blockedUntil')));
      return Math.max(0, ...values.map((value) => Number(value ?? 0)));
    },
    async recordFailure(keys, now) {
      for (const { key, free } of keys) {
        await redis.eval(RECORD_FAILURE, 1, REDIS_PREFIX + key, now, free, FORGET_AFTER_MS, FIRST_DELAY_MS, MAX_DELAY_MS);
      }
    },
    async reset(key) {
      await redis.del(REDIS_PREFIX + key);
    },
    async prune() {
      return 0; // Redis expires each count by itself (RECORD_FAILURE sets its expiry).
    },
    async close() {
      redis.disconnect();
    },
  };
}

/**
 * Refuses with 429 and Retry-After while any of the keys is waiting. A refusal is counted
 * (metrics.ts) and logged at warn, with the keys that are waiting: an account under a guessing
 * attack, or an address sending one.
 */
export async function assertNotThrottled(deps: Deps, keys: readonly ThrottleKey[], kind: ThrottledKind = 'sign_in'): Promise<void> {
  const now = deps.now();
  const until = await deps.throttle.blockedUntil(keys.map((k) => k.key));
  if (until > now) {
    const seconds = Math.ceil((until - now) / 1000);
    deps.metrics.throttled.inc({ kind });
    deps.logger.warn({ event: 'throttled', kind, keys: keys.map((k) => k.key), retry_after: seconds }, 'attempt refused by the throttle');
    throw TooManyRequests(`too many failed sign-in attempts; try again in ${seconds} s`, { headers: { 'Retry-After': String(seconds) } });
  }
}

export async function recordLoginFailure(deps: Deps, keys: readonly ThrottleKey[]): Promise<void> {
  await deps.throttle.recordFailure(keys, deps.now());
}

export async function resetLoginFailures(deps: Deps, key: ThrottleKey): Promise<void> {
  await deps.throttle.reset(key.key);
}
