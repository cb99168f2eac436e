/**
 * Key rotation for `idp keys rotate` and POST /management/keys/rotate: new active keys for access
 * and ID tokens; each old public key stays published until every token it may have signed has
 * expired (its token lifetime, plus the time other instances may keep signing with it).
 */
import type { Deps, KeyUse } from '../../deps.js';
import { KEY_RECHECK_MS } from './keys.js';

export interface RotatedKeys {
  kids: string[];
  /** When the retired keys leave the JWKS, ms since the epoch, per use. */
  retiredUntil: Record<KeyUse, number>;
}

export async function rotateSigningKeys(deps: Deps): Promise<RotatedKeys> {
  const now = deps.now();
  const retiredUntil: Record<KeyUse, number> = {
    access_token: now + deps.config.accessTokenTtl * 1000 + KEY_RECHECK_MS,
    id_token: now + deps.config.idTokenTtl * 1000 + KEY_RECHECK_MS,
  };
  const kids = await deps.keys.rotate((use) => retiredUntil[use]);
  deps.logger.info({ event: 'keys_rotated', kids, retired_until: retiredUntil }, 'signing keys rotated');
  return { kids, retiredUntil };
}

/** A public signing key as GET /management/keys shows it: which use it signs for while it is active. */
export interface PublishedKey {
  kid: string;
  alg: string;
  kty: string;
  /** The use it is the active key of; absent for a retired key, published until its tokens expire. */
  active?: KeyUse;
}

/** The keys the JWKS publishes, the active ones marked, as the database has them now. */
export async function listSigningKeys(deps: Deps): Promise<PublishedKey[]> {
  const active = new Map<string, KeyUse>();
  for (const use of ['access_token', 'id_token'] as const) active.set((await deps.keys.signingKey(use)).kid, use);
  return (await deps.keys.publicJwks()).map((jwk) => {
    const kid = jwk.kid ?? '';
    return { kid, alg: jwk.alg ?? '', kty: jwk.kty ?? '', ...(active.has(kid) && { active: active.get(kid) }) };
  });
}
