/**
 * The OpenID Provider Metadata (OpenID Connect Discovery 1.0 section 3, RFC 8414): every value
 * is what this server actually does.
 */
import { ACR_VALUES } from './factors/second-factor.js';
import type { Deps } from '../deps.js';
import { issuerOf } from './issuer.js';
import { grants } from './grants/index.js';
import { SCOPES } from './scopes.js';
import { PROMPTS, RESPONSE_MODES } from './authorize/authorize-request.js';
import { RESPONSE_TYPES } from './authorize/response-types.js';
import { LOCALES } from './authorize/locales.js';
import { ASYMMETRIC_ALGS, HMAC_ALGS } from './clients/client-keys.js';
import { SUBJECT_TYPES } from './clients/sector-identifiers.js';

const SECRET_METHODS = ['client_secret_basic', 'client_secret_post'];
const JWT_METHODS = ['client_secret_jwt', 'private_key_jwt'];
const JWT_ALGS = [...ASYMMETRIC_ALGS, ...HMAC_ALGS];
import { DPOP_ALGS } from './tokens/dpop.js';
import { USER_CLAIMS } from './tokens/user-claims.js';

export const JWKS_PATH = '/.well-known/openid-configuration/jwks';

export function discoveryDocument(deps: Deps): Record<string, unknown> {
  const issuer = issuerOf(deps);
  return {
    issuer,
    authorization_endpoint: `${issuer}/connect/authorize`,
    token_endpoint: `${issuer}/connect/token`,
    jwks_uri: `${issuer}${JWKS_PATH}`,
    userinfo_endpoint: `${issuer}/connect/userinfo`,
    introspection_endpoint: `${issuer}/connect/introspect`,
    revocation_endpoint: `${issuer}/connect/revocation`,
    end_session_endpoint: `${issuer}/connect/endsession`,
    // RFC 8628 4.
    device_authorization_endpoint: `${issuer}/connect/deviceauthorization`,
    // RFC 9126 5: required of every client with `idp serve --require-par`, else of those whose metadata says so.
    pushed_authorization_request_endpoint: `${issuer}/connect/par`,
    require_pushed_authorization_requests: deps.config.requirePushedAuthorizationRequests,
    // RFC 7591: with an initial access token, or none for an application that allows open registration.
    registration_endpoint: `${issuer}/connect/register`,
    scopes_supported: SCOPES,
    response_types_supported: RESPONSE_TYPES,
    response_modes_supported: RESPONSE_MODES,
    // The token endpoint's grants, and the authorize endpoint's implicit one (RFC 8414 2).
    grant_types_supported: [...grants.keys(), 'implicit'],
    // OIDC Core 8: per client, `subject_type` (docs/api.md#pairwise-subject-identifiers).
    subject_types_supported: SUBJECT_TYPES,
    id_token_signing_alg_values_supported: [deps.config.idTokenAlg],
    // docs/api.md#client-authentication-with-a-jwt: private_key_jwt and client_secret_jwt (RFC 7523).
    token_endpoint_auth_methods_supported: [...SECRET_METHODS, ...JWT_METHODS, 'none'],
    token_endpoint_auth_signing_alg_values_supported: JWT_ALGS,
    introspection_endpoint_auth_methods_supported: [...SECRET_METHODS, ...JWT_METHODS],
    introspection_endpoint_auth_signing_alg_values_supported: JWT_ALGS,
    revocation_endpoint_auth_methods_supported: [...SECRET_METHODS, ...JWT_METHODS, 'none'],
    revocation_endpoint_auth_signing_alg_values_supported: JWT_ALGS,
    code_challenge_methods_supported: ['S256', 'plain'],
    // RFC 9449 5.1: the algorithms of DPoP proofs.
    dpop_signing_alg_values_supported: DPOP_ALGS,
    claims_supported: [...USER_CLAIMS, 'iss', 'aud', 'exp', 'iat', 'auth_time', 'nonce', 'amr', 'acr'],
    // docs/api.md#second-factors: a password, a password and a second factor, a passkey.
    acr_values_supported: [...ACR_VALUES],
    prompt_values_supported: PROMPTS,
    ui_locales_supported: LOCALES,
    // RFC 9207: every authorization response carries `iss`.
    authorization_response_iss_parameter_supported: true,
    // docs/api.md#claims: single claims for userinfo and the ID token, and an essential acr.
    claims_parameter_supported: true,
    // docs/api.md#request-objects: by value; by reference only through pushed authorization requests.
    request_parameter_supported: true,
    request_object_signing_alg_values_supported: [...ASYMMETRIC_ALGS, ...HMAC_ALGS, 'none'],
    request_uri_parameter_supported: false,
  };
}
