/**
 * The OpenID Provider Metadata (OpenID Connect Discovery 1.0 section 3, RFC 8414): every value
 * is what this server actually does. The authorization and end-session endpoints are not listed
 * until they exist; `response_types_supported` is empty for the same reason.
 */
import type { Deps } from '../deps.js';
import { issuerOf } from './access-tokens.js';
import { grants } from './grants/index.js';
import { SCOPES } from './scopes.js';

export const JWKS_PATH = '/.well-known/openid-configuration/jwks';

export function discoveryDocument(deps: Deps): Record<string, unknown> {
  const issuer = issuerOf(deps);
  return {
    issuer,
    token_endpoint: `${issuer}/connect/token`,
    jwks_uri: `${issuer}${JWKS_PATH}`,
    userinfo_endpoint: `${issuer}/connect/userinfo`,
    introspection_endpoint: `${issuer}/connect/introspect`,
    revocation_endpoint: `${issuer}/connect/revocation`,
    scopes_supported: SCOPES,
    response_types_supported: [],
    grant_types_supported: [...grants.keys()],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: [deps.config.idTokenAlg],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    code_challenge_methods_supported: ['S256', 'plain'],
    claims_supported: ['sub', 'iss', 'aud', 'exp', 'iat', 'auth_time', 'nonce', 'amr', 'preferred_username', 'name', 'picture', 'updated_at', 'email'],
    claims_parameter_supported: false,
    request_parameter_supported: false,
    request_uri_parameter_supported: false,
  };
}
