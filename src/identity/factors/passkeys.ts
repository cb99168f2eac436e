/**
 * Signing in with a passkey (docs/api.md#passkeys): as the second step after a password, or alone
 * with a discoverable credential that names its user. A page carries the challenge of its options
 * in its sealed form (authorize/interaction.ts), bound to the browser and the authorize request;
 * an answered challenge is recorded here until it expires, so that each works once, on every
 * instance sharing the database. A passkey that passes has its signature counter and last use
 * stored.
 */
import { createHash } from 'node:crypto';
import { eq, lt } from 'drizzle-orm';

import type { Deps } from '../../deps.js';
import { issuerOf } from '../issuer.js';
import type { Factor } from './factors.js';
import { assertionCredentialId, passkeyAuthenticationOptions, verifyPasskeyAssertion, type AuthenticationOptions, type RelyingParty } from './webauthn.js';
import { schemaOf } from '../../db/open.js';
import { changes } from '../../db/run.js';

/** How long a page's passkey challenge may be answered (ms). */
export const PASSKEY_CHALLENGE_TTL_MS = 5 * 60 * 1000;

/** What a page sends back: the browser's assertion, and the challenge its sealed form carried. */
export interface PasskeyProof {
  response: unknown;
  challenge: string;
  /** When the page showed the challenge (ms): it is remembered as answered until this plus PASSKEY_CHALLENGE_TTL_MS. */
  issuedAt: number;
}

/** A passkey that passed, and what it proves (RFC 8176 `hwk` or `swk`). */
export interface PassedPasskey {
  factor: Factor;
  method: 'hwk' | 'swk';
  userVerified: boolean;
}

function relyingParty(deps: Deps): RelyingParty {
  return { name: '', issuer: issuerOf(deps) };
}

/**
 * Options for `navigator.credentials.get`: for the passkeys among `factors` (a second step), or,
 * with none, for any discoverable passkey (a sign-in without a password, which must verify the
 * user: the passkey is then the only factor given).
 */
export async function passkeySignInOptions(deps: Deps, factors: readonly Factor[]): Promise<AuthenticationOptions> {
  const allowed = factors.flatMap((factor) => (factor.type === 'webauthn' && factor.status === 'active' && factor.credential ? [factor.credential] : []));
  return await passkeyAuthenticationOptions(relyingParty(deps), allowed, allowed.length === 0 ? 'required' : 'preferred');
}

/** Records the challenge as answered: false when it was already (a replayed assertion, or a form posted twice). */
async function spendChallenge(deps: Deps, proof: PasskeyProof): Promise<boolean> {
  const now = deps.now();
  const spent = await deps.db.transaction(async (tx) => {
    const { passkeyChallenges } = schemaOf(tx);
    await tx.delete(passkeyChallenges).where(lt(passkeyChallenges.expiresAt, now));
    return await tx
      .insert(passkeyChallenges)
      .values({ challengeHash: createHash('sha256').update(proof.challenge).digest('base64url'), expiresAt: proof.issuedAt + PASSKEY_CHALLENGE_TTL_MS })
      .onConflictDoNothing();
  });
  return changes(spent) === 1;
}

/**
 * Checks an assertion against the passkeys among `factors`; the challenge is spent first, whether
 * or not the assertion passes. A pass stores the new signature counter and the time of use.
 * `requireUserVerification` for a sign-in without a password. Undefined when it does not pass.
 */
export async function checkPasskey(
  deps: Deps,
  factors: readonly Factor[],
  proof: PasskeyProof,
  requireUserVerification: boolean,
): Promise<PassedPasskey | undefined> {
  const { userFactors } = schemaOf(deps.db);
  if (!(await spendChallenge(deps, proof))) return undefined;
  const id = assertionCredentialId(proof.response);
  const factor = factors.find((candidate) => candidate.type === 'webauthn' && candidate.status === 'active' && candidate.credential?.id === id);
  if (!factor?.credential) return undefined;
  const verified = await verifyPasskeyAssertion(relyingParty(deps), proof.challenge, factor.credential, proof.response, requireUserVerification);
  if (!verified) return undefined;
  const now = deps.now();
  await deps.db
    .update(userFactors)
    .set({ credential: { ...factor.credential, counter: verified.newCounter }, lastUsed: now })
    .where(eq(userFactors.id, factor.id));
  return { factor, method: verified.method, userVerified: verified.userVerified };
}
