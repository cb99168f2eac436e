/**
 * Our `acr` values (docs/api.md#second-factors), weakest first: what a sign-in proved, as tokens
 * say it (identity/factors/second-factor.ts) and as permissions may demand it (access/permissions.ts,
 * RFC 9470).
 */
export const ACR_VALUES = ['urn:idp:acr:pwd', 'urn:idp:acr:mfa', 'urn:idp:acr:phr'] as const;
/** A password alone. */
export const PWD_ACR = 'urn:idp:acr:pwd';
/** Two factors. */
export const MFA_ACR = 'urn:idp:acr:mfa';
/** Phishing-resistant: a passkey, which answers only its own origin. */
export const PHR_ACR = 'urn:idp:acr:phr';

/** How strong an `acr` value is: its place in ACR_VALUES, -1 for none of ours. */
export function acrRank(acr: string | undefined): number {
  return (ACR_VALUES as readonly string[]).indexOf(acr ?? '');
}
