import type { KeyObject } from 'node:crypto';
import type { CryptoKey, JWK } from 'jose';
import type { Config, SigningAlg } from './config.js';
import type { Db } from './db/open.js';
import type { Logger } from './logger.js';
import type { Mailer } from './mail/mailer.js';
import type { Metrics } from './metrics.js';

/**
 * What the core needs from the outside world, passed explicitly (no hidden module state).
 * create-deps.ts assembles it; the stores named here are implemented in identity/.
 */
export interface Deps {
  readonly db: Db;
  readonly config: Config;
  readonly logger: Logger;
  readonly keys: KeyStore;
  readonly mailer: Mailer;
  /** The login throttle's counters: in the database, or in Redis with --redis-url. */
  readonly throttle: ThrottleStore;
  /** Counters and histograms for /metrics (metrics.ts), one set per server. */
  readonly metrics: Metrics;
  /** Milliseconds since the epoch; injected so expiry and ordering can be tested. */
  now(): number;
}

export type KeyUse = 'access_token' | 'id_token';

export interface SigningKey {
  kid: string;
  alg: SigningAlg;
  /** A node:crypto key: what identity/keys/token-signing-on-thread-pool.ts signs with. */
  privateKey: KeyObject;
}

/** The signing keys every instance shares (identity/keys/keys.ts). */
export interface KeyStore {
  /** The active key for a use, created on first call if none exists. */
  signingKey(use: KeyUse): Promise<SigningKey>;
  /** A public key by kid, for verification; reloads once when the kid is unknown (another instance rotated). */
  verificationKey(kid: string): Promise<{ alg: string; key: CryptoKey } | null>;
  /** Public keys still published (JWKS). */
  publicJwks(): Promise<JWK[]>;
  /** Adds new active keys; old ones stay published until `publishUntil` (ms). */
  rotate(publishUntil: (use: KeyUse) => number): Promise<string[]>;
}

export interface ThrottleKey {
  key: string;
  /** Failures allowed before waiting starts. */
  free: number;
}

/** Where the login throttle's counters are kept: one implementation per backing store (identity/sign-in/throttle.ts). */
export interface ThrottleStore {
  /** The latest time any of the keys is blocked until (0 when none is). */
  blockedUntil(keys: readonly string[]): Promise<number>;
  /** Counts one failure against each key and blocks those past their free failures. */
  recordFailure(keys: readonly ThrottleKey[], now: number): Promise<void>;
  reset(key: string): Promise<void>;
  /** Forgets counts that no longer block and have decayed; returns how many were dropped. */
  prune(now: number): Promise<number>;
  close(): Promise<void>;
}
