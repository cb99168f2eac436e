/**
 * The response types of the authorize endpoint (OAuth 2.0 Multiple Response Types 3, OIDC Core
 * 3.1, 3.2, 3.3), each written in canonical order (code, id_token, token): what discovery
 * lists, what a client may register, and what an authorize request may ask for.
 */
export const RESPONSE_PARTS = ['code', 'id_token', 'token'] as const;
export type ResponsePart = (typeof RESPONSE_PARTS)[number];

/** The code flow, the implicit flow, and the hybrid flow's three (OIDC Core 3.3). */
export const RESPONSE_TYPES: readonly string[] = ['code', 'id_token', 'token', 'id_token token', 'code id_token', 'code token', 'code id_token token'];

/**
 * A response type's words in canonical order ("token code" is "code token"), or undefined when
 * it is not one of RESPONSE_TYPES (an unknown or repeated word, or an unsupported mix).
 */
export function canonicalResponseType(text: string): { responseType: string; parts: Set<ResponsePart> } | undefined {
  const words = text.split(' ').filter((word) => word !== '');
  const parts = new Set(words);
  if (parts.size !== words.length || ![...parts].every((part) => (RESPONSE_PARTS as readonly string[]).includes(part))) return undefined;
  const responseType = RESPONSE_PARTS.filter((part) => parts.has(part)).join(' ');
  return RESPONSE_TYPES.includes(responseType) ? { responseType, parts: parts as Set<ResponsePart> } : undefined;
}
