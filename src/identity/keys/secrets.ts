/**
 * Message authentication for what the server hands the browser and must get back unchanged:
 * session cookies, CSRF tokens, the authorize request carried through the sign-in and consent
 * forms. The key is generated once and kept in the database, so every instance accepts what
 * another signed. Each use names its purpose, so a value signed for one cannot pass for another.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { serverSecrets } from '../../db/schema.js';
import type { Deps } from '../../deps.js';

const KEY_NAME = 'browser_mac_key';
const keys = new WeakMap<Deps['db'], Buffer>();

function macKey(deps: Deps): Buffer {
  const key = keys.get(deps.db);
  if (!key) throw new Error('the browser MAC key is not loaded: createDeps loads it');
  return key;
}

/** Reads (or on first start stores) the key, once per database, before anything is signed. */
export async function loadMacKey(deps: Pick<Deps, 'db' | 'now'>): Promise<void> {
  if (keys.has(deps.db)) return;
  // Insert-or-keep: two instances starting at once agree on whichever key landed first.
  await deps.db
    .insert(serverSecrets)
    .values({ name: KEY_NAME, value: randomBytes(32).toString('base64url'), created: deps.now() })
    .onConflictDoNothing()
    .run();
  const row = await deps.db.select().from(serverSecrets).where(eq(serverSecrets.name, KEY_NAME)).get();
  if (!row) throw new Error('the browser MAC key could not be stored');
  keys.set(deps.db, Buffer.from(row.value, 'base64url'));
}

// `link`: mailed activation and reset links; `captcha`: the proof-of-work challenges' HMAC key;
// `dpop_nonce`: the DPoP nonces of the token endpoint (RFC 9449 8), good on every instance.
export type MacPurpose = 'session' | 'csrf' | 'interaction' | 'link' | 'captcha' | 'dpop_nonce';

export function macOf(deps: Deps, purpose: MacPurpose, value: string): string {
  return createHmac('sha256', macKey(deps)).update(`${purpose}\n${value}`).digest('base64url');
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
