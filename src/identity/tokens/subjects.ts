/**
 * Subject identifiers (OIDC Core 8): `public`, the user's own id for every client, or `pairwise`
 * (8.1), a different one for each sector (the host of the client's sector_identifier_uri or of
 * its redirect URIs), so that clients of different sectors cannot match their users up:
 * base64url(SHA-256(sector || local user id || salt)), the salt a server secret.
 *
 * A pairwise access token still has to lead this server back to its user: it also carries the
 * user's id sealed with AES-256-GCM under a key derived from the same secret (`idp_user`), which
 * the client cannot read or link across tokens.
 */
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import type { Deps } from '../../deps.js';
import { serverSecret } from '../keys/secrets.js';

/** The private claim of a pairwise access token that holds the sealed user id. */
export const SEALED_USER_CLAIM = 'idp_user';

/** The `sub` a client of `sector` (undefined: a public-subject client) sees for the user `userUuid`. */
export function subjectFor(deps: Pick<Deps, 'db'>, userUuid: string, sector: string | undefined): string {
  if (sector === undefined) return userUuid;
  return createHash('sha256').update(sector).update(userUuid).update(serverSecret(deps, 'pairwise_salt')).digest('base64url');
}

const keys = new WeakMap<Buffer, Buffer>();

function sealingKey(deps: Pick<Deps, 'db'>): Buffer {
  const salt = serverSecret(deps, 'pairwise_salt');
  let key = keys.get(salt);
  if (!key) keys.set(salt, (key = Buffer.from(hkdfSync('sha256', salt, Buffer.alloc(0), 'idp access token user', 32))));
  return key;
}

/** The user id, encrypted and authenticated: a fresh IV each time, so two tokens' values differ. */
export function sealUserId(deps: Pick<Deps, 'db'>, userUuid: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealingKey(deps), iv);
  const sealed = Buffer.concat([cipher.update(userUuid, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, sealed, cipher.getAuthTag()]).toString('base64url');
}

/** The user id sealUserId sealed; undefined when `value` is not one this server sealed. */
export function unsealUserId(deps: Pick<Deps, 'db'>, value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const bytes = Buffer.from(value, 'base64url');
  if (bytes.length < 12 + 16 + 1) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', sealingKey(deps), bytes.subarray(0, 12));
    decipher.setAuthTag(bytes.subarray(bytes.length - 16));
    return Buffer.concat([decipher.update(bytes.subarray(12, bytes.length - 16)), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}
