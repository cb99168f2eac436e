/**
 * authorization_code (RFC 6749 4.1.3) with PKCE (RFC 7636): the code is used once, by the client
 * it was issued to, with the same redirect_uri; a second use fails and revokes everything the
 * first one issued (RFC 6749 4.1.2). `plain` challenges only for clients that allow them.
 */
import { createHash } from 'node:crypto';
import { and, eq, isNull } from 'drizzle-orm';

import type { Deps } from '../../deps.js';
import { InvalidGrant } from '../../errors.js';
import { currentPrincipal } from '../tokens/access-tokens.js';
import { findAuthorizationCode, type AuthorizationCodeRow } from '../authorize/authorization-codes.js';
import type { Client } from '../clients/find.js';
import { issueTokens } from '../tokens/issue.js';
import { findTokenFamily, insertTokenFamily, newTokenFamilyId } from '../sessions/token-families.js';
import { secretsEqual } from '../../passwords.js';
import { revokeTokenFamily } from '../tokens/revocations.js';
import { isScope } from '../scopes.js';
import { narrowResources } from '../tokens/resources.js';
import { requireParam, type GrantHandler } from './types.js';
import { schemaOf } from '../../db/open.js';
import { changes } from '../../db/run.js';

// RFC 7636 4.1: 43 to 128 unreserved characters.
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

function checkPkce(client: Client, code: AuthorizationCodeRow, verifier: string | undefined): void {
  if (!code.codeChallenge) {
    if (client.requirePkce) throw InvalidGrant('this client must use PKCE, and the code was issued without a code_challenge');
    // RFC 9700 4.8.2: a verifier for a code without a challenge is a sign of an injected code.
    if (verifier !== undefined) throw InvalidGrant('code_verifier was sent but the code was issued without a code_challenge');
    return;
  }
  if (verifier === undefined || verifier === '') throw InvalidGrant('code_verifier is required for this code');
  if (!VERIFIER.test(verifier)) throw InvalidGrant('code_verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~');
  if (code.codeChallengeMethod === 'plain') {
    if (!client.allowPlainPkce) throw InvalidGrant('this client may not use the plain code_challenge_method');
    if (!secretsEqual(verifier, code.codeChallenge)) throw InvalidGrant('code_verifier does not match the code_challenge');
    return;
  }
  const derived = createHash('sha256').update(verifier).digest('base64url');
  if (!secretsEqual(derived, code.codeChallenge)) throw InvalidGrant('code_verifier does not match the code_challenge');
}

/**
 * Marks the code used and creates its token family in one transaction, so a concurrent second use
 * always finds the family to revoke. Returns null when the code had been used already.
 */
async function consume(deps: Deps, code: AuthorizationCodeRow, resources: readonly string[]): Promise<string | null> {
  const familyId = newTokenFamilyId();
  const now = deps.now();
  return await deps.db.transaction(async (tx) => {
    const { authorizationCodes } = schemaOf(tx);
    const claimed = await tx
      .update(authorizationCodes)
      .set({ consumedAt: now, familyId })
      .where(and(eq(authorizationCodes.codeHash, code.codeHash), isNull(authorizationCodes.consumedAt)));
    if (changes(claimed) !== 1) return null;
    await insertTokenFamily(tx, now, {
      id: familyId,
      clientId: code.clientId,
      principal: code.principal,
      scope: code.scope.split(' '),
      authTime: code.authTime,
      amr: code.amr ?? undefined,
      claims: code.claims,
      sid: code.sid,
      resources,
    });
    return familyId;
  });
}

export const authorizationCodeGrant: GrantHandler = {
  grantType: 'authorization_code',
  parameters: ['code', 'redirect_uri', 'code_verifier'],
  async handle(deps, { client, params, jkt, resources: requested }) {
    const code = await findAuthorizationCode(deps, requireParam(params, 'code'));
    const redirectUri = requireParam(params, 'redirect_uri');
    if (!code) throw InvalidGrant('the authorization code is not valid');
    if (code.clientId !== client.clientId) throw InvalidGrant('the authorization code was issued to another client');
    // RFC 8707 2.2: the resources of the authorization request, narrowed; any, when it named none.
    const granted = code.resources ?? requested;
    const familyId = await consume(deps, code, granted);
    if (!familyId) {
      const used = await findAuthorizationCode(deps, params.code);
      if (used?.familyId) await revokeTokenFamily(deps, used.familyId);
      throw InvalidGrant('the authorization code was already used; what it issued has been revoked');
    }
    try {
      if (code.expiresAt <= deps.now()) throw InvalidGrant('the authorization code has expired');
      if (code.redirectUri !== redirectUri) throw InvalidGrant('redirect_uri does not match the one the code was issued for');
      checkPkce(client, code, params.code_verifier);
      // RFC 9449 10: a code bound with dpop_jkt is exchanged only with a proof of that key.
      if (code.dpopJkt !== null && code.dpopJkt !== jkt)
        throw InvalidGrant('the authorization code is bound to a DPoP key (dpop_jkt): send a DPoP proof of that key');
      const resources = narrowResources(requested, granted);
      const principal = await currentPrincipal(deps, code.principal);
      if (!principal) throw InvalidGrant('the account of this code no longer exists or is disabled');
      const scope = code.scope.split(' ').filter(isScope);
      return await issueTokens(deps, { client, principal, scope, family: await findTokenFamily(deps, familyId), nonce: code.nonce, jkt, resources });
    } catch (error) {
      // The code is spent either way (a failed exchange may be an attacker's): end its token family too.
      await revokeTokenFamily(deps, familyId);
      throw error;
    }
  },
};
