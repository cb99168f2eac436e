/**
 * Signing keys, generated at first start and kept in the database so every instance signs and
 * verifies with the same keys. One active key per use (access tokens, ID tokens); rotation adds
 * a new active key and keeps the old public key published until every token it signed expired.
 */
import { and, desc, eq, isNull, or, gt } from 'drizzle-orm';
import { exportJWK, generateKeyPair, importJWK, type JWK, type CryptoKey } from 'jose';
import { createPrivateKey, randomBytes, type JsonWebKey } from 'node:crypto';
import type { signingKeys } from '../../db/schema.js';
import { remembered, type Db, schemaOf } from '../../db/open.js';
import type { SigningAlg } from '../../config.js';
import type { KeyStore, KeyUse, SigningKey } from '../../deps.js';
import { first } from '../../db/run.js';

type Row = typeof signingKeys.$inferSelect;

/**
 * How long an instance keeps a key it verified with as unretired before asking the database
 * again; retired keys stay published this much longer than the tokens they signed live.
 */
export const KEY_RECHECK_MS = 10_000;

/** A new key pair for `use`, as the row that stores it (the private key as a JWK). */
async function newKeyRow(alg: SigningAlg, use: KeyUse, created: number): Promise<Row> {
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true, ...(alg === 'RS256' || alg === 'PS256' ? { modulusLength: 2048 } : {}) });
  const kid = randomBytes(12).toString('base64url');
  return {
    kid,
    alg,
    use,
    publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' },
    privateJwk: { ...(await exportJWK(privateKey)), kid, alg },
    created,
    retiredAt: null,
    expiresAt: null,
  };
}

async function findActiveKey(db: Db, use: KeyUse, alg: SigningAlg): Promise<Row | undefined> {
  const { signingKeys } = schemaOf(db);
  return await first(
    db
      .select()
      .from(signingKeys)
      .where(and(eq(signingKeys.use, use), isNull(signingKeys.retiredAt), eq(signingKeys.alg, alg)))
      .orderBy(desc(signingKeys.created)),
  );
}

/**
 * Stores a new key for `use`. With `onlyIfNone`, instances starting together on an empty
 * database agree on one key: the check and the insert are one transaction (serializable on
 * PostgreSQL, so the second is run again and finds the first's key).
 */
async function generateKey(db: Db, alg: SigningAlg, use: KeyUse, created: number, onlyIfNone: boolean): Promise<Row> {
  const { signingKeys } = schemaOf(db);
  const row = await newKeyRow(alg, use, created);
  if (!onlyIfNone) {
    await db.insert(signingKeys).values(row);
    return row;
  }
  return await db.transaction(async () => {
    const active = await findActiveKey(db, use, alg);
    if (active) return active;
    await db.insert(signingKeys).values(row);
    return row;
  });
}

export function createKeyStore(db: Db, algs: Record<KeyUse, SigningAlg>, now: () => number): KeyStore {
  const { signingKeys } = schemaOf(db);
  const signing = new Map<KeyUse, SigningKey>();
  const verifying = new Map<string, { alg: string; key: CryptoKey; expiresAt: number | null; checkedAt: number }>();
  const generate = (use: KeyUse, onlyIfNone = false) => generateKey(db, algs[use], use, now(), onlyIfNone);
  const activeRow = (use: KeyUse) => findActiveKey(db, use, algs[use]);

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
      // Which key is active is remembered until the table changes here, in another process on the
      // same SQLite file, or through another instance on PostgreSQL (src/db/read-cache.ts), so a
      // rotation anywhere signs the next token with the new key.
      const active = await remembered(db, `signing-key:${use}:${algs[use]}`, [signingKeys], async () => (await activeRow(use)) ?? null);
      const row = active ?? (await generateOnce(use));
      const cached = signing.get(use);
      if (cached && cached.kid === row.kid) return cached;
      const key = {
        kid: row.kid,
        alg: row.alg as SigningAlg,
        privateKey: createPrivateKey({ key: row.privateJwk as JsonWebKey, format: 'jwk' }),
      };
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
      const row = await first(db.select().from(signingKeys).where(eq(signingKeys.kid, kid)));
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
        .where(or(isNull(signingKeys.expiresAt), gt(signingKeys.expiresAt, now())));
      return rows.map((row) => row.publicJwk as JWK);
    },

    async rotate(publishUntil) {
      const kids: string[] = [];
      for (const use of ['access_token', 'id_token'] as const) {
        const at = now();
        await db
          .update(signingKeys)
          .set({ retiredAt: at, expiresAt: publishUntil(use) })
          .where(and(eq(signingKeys.use, use), isNull(signingKeys.retiredAt)));
        signing.delete(use);
        kids.push((await generate(use)).kid);
      }
      verifying.clear();
      return kids;
    },
  };
  return store;
}
