/**
 * Passkeys (WebAuthn Level 3, through @simplewebauthn/server): enrollment (the options for the
 * browser's `navigator.credentials.create` and the check of what it answers) and sign-in (the
 * options for `navigator.credentials.get` and the check of its assertion). The relying party is
 * the issuer: its host is the RP ID, its origin the only origin accepted.
 */
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
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
    ...(verified.registrationInfo.credentialDeviceType === 'multiDevice' && { multiDevice: true }),
  };
}

export type AuthenticationOptions = Awaited<ReturnType<typeof generateAuthenticationOptions>>;

/**
 * The options of one passkey sign-in: for `allowed` passkeys (a second step, whose user is known)
 * or for any passkey of this relying party the authenticator holds (discoverable credentials,
 * `allowed` empty). A fresh random challenge each time.
 */
export async function passkeyAuthenticationOptions(
  rp: RelyingParty,
  allowed: readonly StoredCredential[],
  userVerification: 'required' | 'preferred',
): Promise<AuthenticationOptions> {
  return await generateAuthenticationOptions({
    rpID: new URL(rp.issuer).hostname,
    allowCredentials: allowed.map((credential) => ({ id: credential.id, transports: credential.transports })),
    userVerification,
  });
}

/** The credential id an assertion names (`id`), before anything else of it is checked. */
export function assertionCredentialId(response: unknown): string | undefined {
  const id = (response as { id?: unknown } | null)?.id;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/** What a verified assertion proves (RFC 8176 `amr`): a key on one device (`hwk`) or one synced between devices (`swk`). */
export interface VerifiedAssertion {
  newCounter: number;
  userVerified: boolean;
  method: 'hwk' | 'swk';
}

/**
 * Checks an assertion of `credential` for `challenge`: signature, origin, RP ID, and a signature
 * counter that went up (a cloned authenticator's does not). Returns undefined when any of that
 * fails, or when `requireUserVerification` and the authenticator did not verify the user.
 */
export async function verifyPasskeyAssertion(
  rp: RelyingParty,
  challenge: string,
  credential: StoredCredential,
  response: unknown,
  requireUserVerification: boolean,
): Promise<VerifiedAssertion | undefined> {
  try {
    const verified = await verifyAuthenticationResponse({
      response: response as AuthenticationResponseJSON,
      expectedChallenge: challenge,
      expectedOrigin: new URL(rp.issuer).origin,
      expectedRPID: new URL(rp.issuer).hostname,
      credential: {
        id: credential.id,
        publicKey: new Uint8Array(Buffer.from(credential.publicKey, 'base64url')),
        counter: credential.counter,
        transports: credential.transports,
      },
      requireUserVerification,
    });
    if (!verified.verified) return undefined;
    const info = verified.authenticationInfo;
    // A backed-up (synced) passkey lives in software; a device-bound one in the authenticator's hardware.
    return { newCounter: info.newCounter, userVerified: info.userVerified, method: info.credentialDeviceType === 'multiDevice' ? 'swk' : 'hwk' };
  } catch {
    return undefined;
  }
}
