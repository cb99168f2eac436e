/**
 * Signing keys, generated at first start and kept in the database so every instance signs and
 * verifies with the same keys. One active key per use (access tokens, ID tokens); rotation adds
 * a new active key and keeps the old public key published until every token it signed expired.
 */
import { and, desc, eq, isNull, or, gt } from 'drizzle-orm';
import { exportJWK, generateKeyPair, importJWK, type JWK, type CryptoKey } from 'jose';
import { createPrivateKey, randomBytes, type JsonWebKey, type KeyObject } from 'node:crypto';
import { signingKeys } from '../db/schema.js';
import type { Db } from '../db/open.js';
import type { SigningAlg } from '../config.js';

export type KeyUse = 'access_token' | 'id_token';
type Row = typeof signingKeys.$inferSelect;

export interface SigningKey {
  kid: string;
  alg: SigningAlg;
  /** A node:crypto key: what token-signing-on-thread-pool.ts signs with. */
  privateKey: KeyObject;
}

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

/**
 * How long an instance keeps signing with the key it has cached before asking the database which
 * key is active: rotation by another instance or by `idp keys rotate` takes effect within this.
 */
export const KEY_RECHECK_MS = 10_000;

export function createKeyStore(db: Db, algs: Record<KeyUse, SigningAlg>, now: () => number): KeyStore {
  const signing = new Map<KeyUse, SigningKey & { checkedAt: number }>();
  const verifying = new Map<string, { alg: string; key: CryptoKey; expiresAt: number | null; checkedAt: number }>();

  async function generate(use: KeyUse, onlyIfNone = false): Promise<Row> {
    const alg = algs[use];
    const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true, ...(alg === 'RS256' || alg === 'PS256' ? { modulusLength: 2048 } : {}) });
    const kid = randomBytes(12).toString('base64url');
    const row: Row = {
      kid,
      alg,
      use,
      publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' },
      privateJwk: { ...(await exportJWK(privateKey)), kid, alg },
      created: now(),
      retiredAt: null,
      expiresAt: null,
    };
    if (!onlyIfNone) {
      await db.insert(signingKeys).values(row).run();
      return row;
    }
    // Instances starting together on an empty database agree on one key: the check and the
    // insert are one transaction (serializable on PostgreSQL, so the second is run again and
    // finds the first's key).
    return await db.transaction(async () => {
      const active = await activeRow(use);
      if (active) return active;
      await db.insert(signingKeys).values(row).run();
      return row;
    });
  }

  async function activeRow(use: KeyUse): Promise<Row | undefined> {
    return await db
      .select()
      .from(signingKeys)
      .where(and(eq(signingKeys.use, use), isNull(signingKeys.retiredAt), eq(signingKeys.alg, algs[use])))
      .orderBy(desc(signingKeys.created))
      .get();
  }

  // Concurrent first requests share one key generation instead of each making a key.
  const generating = new Map<KeyUse, Promise<Row>>();
  function generateOnce(use: KeyUse): Promise<Row> {
    let pending = generating.get(use);
    if (!pending) {
      pending = generate(use, true).finally(() => generating.delete(use));
      generating.set(use, pending);
    }
    return pending;
  }

  const store: KeyStore = {
    async signingKey(use) {
      const cached = signing.get(use);
      if (cached && now() - cached.checkedAt < KEY_RECHECK_MS) return cached;
      const row = (await activeRow(use)) ?? (await generateOnce(use));
      if (cached && cached.kid === row.kid) {
        cached.checkedAt = now();
        return cached;
      }
      const key = { kid: row.kid, alg: row.alg as SigningAlg, privateKey: createPrivateKey({ key: row.privateJwk as JsonWebKey, format: 'jwk' }), checkedAt: now() };
      signing.set(use, key);
      return key;
    },

    async verificationKey(kid) {
      const cached = verifying.get(kid);
      if (cached) {
        if (cached.expiresAt !== null) return cached.expiresAt > now() ? cached : null;
        // A key that was active when cached: learn of its retirement within KEY_RECHECK_MS.
        if (now() - cached.checkedAt < KEY_RECHECK_MS) return cached;
      }
      const row = await db.select().from(signingKeys).where(eq(signingKeys.kid, kid)).get();
      if (!row || (row.expiresAt !== null && row.expiresAt <= now())) {
        verifying.delete(kid);
        return null;
      }
      // The public key of a kid never changes; only its expiry does.
      const key = cached?.key ?? ((await importJWK(row.publicJwk as JWK, row.alg)) as CryptoKey);
      const entry = { alg: row.alg, key, expiresAt: row.expiresAt, checkedAt: now() };
      verifying.set(kid, entry);
      return entry;
    },

    async publicJwks() {
      // Keys exist from the first start on, so the JWKS is never empty.
      for (const use of ['access_token', 'id_token'] as const) if (!signing.has(use)) await store.signingKey(use);
      const rows = await db
        .select()
        .from(signingKeys)
        .where(or(isNull(signingKeys.expiresAt), gt(signingKeys.expiresAt, now())))
        .all();
      return rows.map((row) => row.publicJwk as JWK);
    },

    async rotate(publishUntil) {
      const kids: string[] = [];
      for (const use of ['access_token', 'id_token'] as const) {
        const at = now();
        await db.update(signingKeys)
          .set({ retiredAt: at, expiresAt: publishUntil(use) })
          .where(and(eq(signingKeys.use, use), isNull(signingKeys.retiredAt)))
          .run();
        signing.delete(use);
        kids.push((await generate(use)).kid);
      }
      verifying.clear();
      return kids;
    },
  };
  return store;
}
