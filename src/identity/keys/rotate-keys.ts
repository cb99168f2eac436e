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
