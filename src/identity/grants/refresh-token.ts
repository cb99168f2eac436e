/**
 * refresh_token (RFC 6749 6) with rotation (RFC 9700 4.14.2): every use returns a new refresh
 * token and retires the old one; presenting a retired one again means it was copied, so the whole
 * token family is revoked: its refresh tokens and every access token issued under it.
 */
import { and, eq } from 'drizzle-orm';

import type { Deps } from '../../deps.js';
import { InvalidGrant } from '../../errors.js';
import { currentPrincipal } from '../tokens/access-tokens.js';
import { issueTokens } from '../tokens/issue.js';
import { findTokenFamily, findRefreshToken, type TokenFamily } from '../sessions/token-families.js';
import { revokeTokenFamily } from '../tokens/revocations.js';
import { parseScope, resolveScope, type Scope } from '../scopes.js';
import { narrowResources } from '../tokens/resources.js';
import { requireParam, type GrantHandler } from './types.js';
import { schemaOf } from '../../db/open.js';
import { changes } from '../../db/run.js';

/**
 * A retired refresh token presented again: one of its holders copied it. The family is revoked,
 * and the event is logged at warn for whoever watches for stolen tokens.
 */
async function revokeReusedFamily(deps: Deps, family: TokenFamily): Promise<never> {
  await revokeTokenFamily(deps, family.id);
  deps.logger.warn(
    {
      event: 'refresh_token_reuse',
      family: family.id,
      client_id: family.clientId,
      subject: 'userUuid' in family.principal ? family.principal.userUuid : family.principal.clientId,
    },
    'a used refresh token was presented again; its token family is revoked',
  );
  throw InvalidGrant('the refresh token was already used; the grant has been revoked');
}

export const refreshTokenGrant: GrantHandler = {
  grantType: 'refresh_token',
  parameters: ['refresh_token', 'scope'],
  async handle(deps, { client, params, jkt, resources: requested }) {
    const { refreshTokens } = schemaOf(deps.db);
    const row = await findRefreshToken(deps, requireParam(params, 'refresh_token'));
    const family = row && (await findTokenFamily(deps, row.familyId));
    if (!row || !family) throw InvalidGrant('the refresh token is not valid');
    // RFC 6749 10.4: a refresh token is bound to the client it was issued to.
    if (family.clientId !== client.clientId) throw InvalidGrant('the refresh token was issued to another client');
    if (row.status === 'rotated') await revokeReusedFamily(deps, family);
    if (row.status === 'revoked' || family.revokedAt !== null) throw InvalidGrant('the refresh token has been revoked');
    if (row.expiresAt <= deps.now()) throw InvalidGrant('the refresh token has expired');
    // RFC 9449 5: a public client's refresh token bound to a DPoP key is used only with a proof of that key.
    if (family.dpopJkt !== null && family.dpopJkt !== jkt) throw InvalidGrant('the refresh token is bound to a DPoP key: send a DPoP proof of that key');
    // RFC 6749 6: the new access token may narrow the family's scope, never widen it.
    const granted = family.scope.split(' ') as Scope[];
    const scope = resolveScope(parseScope(params.scope), granted, 'this refresh token');
    // RFC 8707 2.2: and its resources too.
    const resources = narrowResources(requested, family.resources ?? []);
    const principal = await currentPrincipal(deps, family.principal);
    if (!principal) {
      await revokeTokenFamily(deps, family.id);
      throw InvalidGrant('the account of this grant no longer exists or is disabled');
    }
    // Retire the token atomically: of two concurrent uses only one wins, the other is a reuse.
    const retired = await deps.db
      .update(refreshTokens)
      .set({ status: 'rotated' })
      .where(and(eq(refreshTokens.tokenHash, row.tokenHash), eq(refreshTokens.status, 'active')));
    if (changes(retired) !== 1) await revokeReusedFamily(deps, family);
    return await issueTokens(deps, { client, principal, scope, family, jkt, resources });
  },
};
