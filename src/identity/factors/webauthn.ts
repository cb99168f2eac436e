/**
 * Passkey enrollment (WebAuthn Level 3 registration, through @simplewebauthn/server): the options
 * for the browser's `navigator.credentials.create`, and the check of what it answers. The relying
 * party is the issuer: its host is the RP ID, its origin the only origin accepted.
 */
import { generateRegistrationOptions, verifyRegistrationResponse, type RegistrationResponseJSON } from '@simplewebauthn/server';
import { IllegalArgument } from '../../errors.js';
import type { StoredCredential } from '../../db/schema.js';

export interface RelyingParty {
  /** What the browser shows the user: the application's name, or idp. */
  name: string;
  issuer: string;
}

export interface PasskeyUser {
  uuid: string;
  username: string;
}

export type RegistrationOptions = Awaited<ReturnType<typeof generateRegistrationOptions>>;

export async function passkeyRegistrationOptions(rp: RelyingParty, user: PasskeyUser, registered: readonly StoredCredential[]): Promise<RegistrationOptions> {
  return await generateRegistrationOptions({
    rpName: rp.name,
    rpID: new URL(rp.issuer).hostname,
    userName: user.username,
    userID: new TextEncoder().encode(user.uuid),
    attestationType: 'none',
    // The same authenticator twice would be one factor counted as two.
    excludeCredentials: registered.map((credential) => ({ id: credential.id, transports: credential.transports })),
    authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
  });
}

/**
 * The credential the browser's registration response proves, for the challenge the options
 * carried. @throws 400 `illegal_argument` naming `response` when it does not verify.
 */
export async function verifyPasskeyRegistration(rp: RelyingParty, challenge: string, response: unknown): Promise<StoredCredential> {
  const refuse = (why: string) => IllegalArgument(`the passkey registration was not accepted: ${why}`, { fields: { response: why } });
  if (typeof response !== 'object' || response === null) throw refuse("send the browser's answer to navigator.credentials.create as JSON");
  let verified;
  try {
    verified = await verifyRegistrationResponse({
      response: response as RegistrationResponseJSON,
      expectedChallenge: challenge,
      expectedOrigin: new URL(rp.issuer).origin,
      expectedRPID: new URL(rp.issuer).hostname,
      requireUserVerification: false,
    });
  } catch (error) {
    throw refuse(error instanceof Error ? error.message : 'it does not verify');
  }
  if (!verified.verified) throw refuse('it does not verify');
  const { credential } = verified.registrationInfo;
  return {
    id: credential.id,
    publicKey: Buffer.from(credential.publicKey).toString('base64url'),
    counter: credential.counter,
    ...(credential.transports && { transports: credential.transports }),
  };
}
