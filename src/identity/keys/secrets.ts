/**
 * Message authentication for what the server hands the browser and must get back unchanged:
 * session cookies, CSRF tokens, the authorize request carried through the sign-in and consent
 * forms. The key is generated once and kept in the database, so every instance accepts what
 * another signed. Each use names its purpose, so a value signed for one cannot pass for another.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { eq } from 'drizzle-orm';

import type { Deps } from '../../deps.js';
import { first } from '../../db/run.js';
import { schemaOf } from '../../db/open.js';

/**
 * The server's secrets, each 256 random bits: `browser_mac_key` keys the MACs below;
 * `pairwise_salt` salts pairwise subject identifiers (tokens/subjects.ts, OIDC Core 8.1).
 */
export type SecretName = 'browser_mac_key' | 'pairwise_salt';
const SECRET_NAMES: readonly SecretName[] = ['browser_mac_key', 'pairwise_salt'];
const loaded = new WeakMap<Deps['db'], Map<SecretName, Buffer>>();

/** A server secret, as loadServerSecrets read it. */
export function serverSecret(deps: Pick<Deps, 'db'>, name: SecretName): Buffer {
  const secret = loaded.get(deps.db)?.get(name);
  if (!secret) throw new Error(`the server secret ${name} is not loaded: createDeps loads it`);
  return secret;
}

/** Reads (or on first start stores) the server's secrets, once per database, before any is used. */
export async function loadServerSecrets(deps: Pick<Deps, 'db' | 'now'>): Promise<void> {
  const { serverSecrets } = schemaOf(deps.db);
  if (loaded.has(deps.db)) return;
  const secrets = new Map<SecretName, Buffer>();
  for (const name of SECRET_NAMES) {
    // Insert-or-keep: two instances starting at once agree on whichever secret landed first.
    await deps.db
      .insert(serverSecrets)
      .values({ name, value: randomBytes(32).toString('base64url'), created: deps.now() })
      .onConflictDoNothing();
    const row = await first(deps.db.select().from(serverSecrets).where(eq(serverSecrets.name, name)));
    if (!row) throw new Error(`the server secret ${name} could not be stored`);
    secrets.set(name, Buffer.from(row.value, 'base64url'));
  }
  loaded.set(deps.db, secrets);
}

// `link`: mailed activation and reset links; `captcha`: the proof-of-work challenges' HMAC key;
// `dpop_nonce`: the DPoP nonces of the token endpoint (RFC 9449 8), good on every instance.
export type MacPurpose = 'session' | 'csrf' | 'interaction' | 'link' | 'captcha' | 'dpop_nonce';

export function macOf(deps: Deps, purpose: MacPurpose, value: string): string {
  return createHmac('sha256', serverSecret(deps, 'browser_mac_key')).update(`${purpose}\n${value}`).digest('base64url');
}

/** Constant-time comparison of two strings (CSRF tokens, MACs). */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** `value.mac`, for values that travel through the browser. */
export function sign(deps: Deps, purpose: MacPurpose, value: string): string {
  return `${value}.${macOf(deps, purpose, value)}`;
}

/** The value of a `sign`ed string, or undefined when it was altered or signed for another purpose. */
export function unsign(deps: Deps, purpose: MacPurpose, signed: string): string | undefined {
  const dot = signed.lastIndexOf('.');
  if (dot <= 0) return undefined;
  const value = signed.slice(0, dot);
  return safeEqual(signed.slice(dot + 1), macOf(deps, purpose, value)) ? value : undefined;
}

export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}
