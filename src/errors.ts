/**
 * The one error type of the core. Each kind knows its HTTP status and its wire name, so every
 * boundary (HTTP, CLI) turns it into output in one place. OAuth kinds carry the RFC 6749 5.2 /
 * OIDC error codes as their wire names; management kinds use Usergrid's snake_case names
 * (docs/api.md#errors).
 */
export type ErrorFields = Record<string, string>;

export class AppError extends Error {
  readonly status: number;
  readonly error: string;
  readonly fields: ErrorFields;
  readonly headers: Record<string, string>;

  constructor(status: number, error: string, description: string, options: { fields?: ErrorFields; headers?: Record<string, string>; cause?: unknown } = {}) {
    super(description, { cause: options.cause });
    this.name = 'AppError';
    this.status = status;
    this.error = error;
    this.fields = options.fields ?? {};
    this.headers = options.headers ?? {};
  }
}

type Options = ConstructorParameters<typeof AppError>[3];

function kind(status: number, error: string) {
  return (description: string, options?: Options) => new AppError(status, error, description, options);
}

// Management and data API (docs/api.md#errors).
export const BadRequest = kind(400, 'bad_request');
export const IllegalArgument = kind(400, 'illegal_argument');
export const RequiredProperty = kind(400, 'required_property_not_found');
export const DuplicateUniqueProperty = kind(400, 'duplicate_unique_property_exists');
export const QueryParse = kind(400, 'query_parse');
export const InvalidJson = kind(400, 'json_parse');
export const JsonTooDeep = kind(400, 'json_too_deep');
export const InvalidPath = kind(400, 'invalid_path');
/** A wrong current password given to change it (Usergrid's name, which its SDKs branch on). */
export const InvalidUsernameOrPassword = kind(400, 'auth_invalid_username_or_password');
export const Unauthorized = kind(401, 'unauthorized');
export const ExpiredToken = kind(401, 'expired_token');
export const Forbidden = kind(403, 'forbidden');
/** RFC 9470 3: the token is good, but its user signed in too long ago or not strongly enough for this; sign in again. */
export const InsufficientUserAuthentication = kind(401, 'insufficient_user_authentication');

/**
 * RFC 9470 3: `insufficient_user_authentication` with its challenge, in the scheme the token came
 * with (`DPoP` for a DPoP-bound one, RFC 9449 7.1), saying what sign-in would do: `acr_values`
 * and/or `max_age`, for the client to send its user through /connect/authorize with.
 */
export function stepUpRequired(description: string, wanted: { acr?: string; maxAge?: number; scheme?: 'Bearer' | 'DPoP' }): AppError {
  const quoted = description.replaceAll('"', "'");
  const challenge = [
    `${wanted.scheme ?? 'Bearer'} error="insufficient_user_authentication"`,
    `error_description="${quoted}"`,
    ...(wanted.acr === undefined ? [] : [`acr_values="${wanted.acr}"`]),
    ...(wanted.maxAge === undefined ? [] : [`max_age=${wanted.maxAge}`]),
  ];
  return InsufficientUserAuthentication(description, { headers: { 'WWW-Authenticate': challenge.join(', ') } });
}
export const NotFound = kind(404, 'not_found');
export const EntityNotFound = kind(404, 'entity_not_found');
export const OrganizationNotFound = kind(404, 'organization_not_found');
export const ApplicationNotFound = kind(404, 'application_not_found');
export const UserNotFound = kind(404, 'user_not_found');
export const MethodNotAllowed = kind(405, 'method_not_allowed');
export const Conflict = kind(409, 'conflict');
export const PayloadTooLarge = kind(413, 'payload_too_large');
export const RequestTimeout = kind(408, 'request_timeout');
export const UnsupportedMediaType = kind(415, 'unsupported_media_type');
export const RangeNotSatisfiable = kind(416, 'range_not_satisfiable');
export const TooManyRequests = kind(429, 'too_many_requests');
export const Internal = kind(500, 'internal_error');

// Mailed activation and password-reset links, and the captcha in front of them.
export const InvalidLink = kind(400, 'invalid_link');
export const LinkExpired = kind(400, 'link_expired');
export const LinkAlreadyUsed = kind(400, 'link_already_used');
export const CaptchaFailed = kind(400, 'captcha_failed');
export const CaptchaUnavailable = kind(502, 'captcha_unavailable');

// OAuth 2.0 token endpoint errors (RFC 6749 5.2, RFC 8693 2.2.2).
export const InvalidRequest = kind(400, 'invalid_request');
export const InvalidClient = kind(401, 'invalid_client');
export const InvalidGrant = kind(400, 'invalid_grant');
export const UnauthorizedClient = kind(400, 'unauthorized_client');
export const UnsupportedGrantType = kind(400, 'unsupported_grant_type');
export const InvalidScope = kind(400, 'invalid_scope');
export const InvalidToken = kind(401, 'invalid_token');
export const InvalidTarget = kind(400, 'invalid_target');
// RFC 8628 3.5: the answers to a device polling the token endpoint.
export const AuthorizationPending = kind(400, 'authorization_pending');
export const SlowDown = kind(400, 'slow_down');
export const DeviceCodeExpired = kind(400, 'expired_token');
// RFC 6750 3.1 (protected resources), RFC 7591 3.2.2.
export const InsufficientScope = kind(403, 'insufficient_scope');
export const InvalidClientMetadata = kind(400, 'invalid_client_metadata');
export const InvalidRedirectUri = kind(400, 'invalid_redirect_uri');

// Authorization endpoint errors sent back to the client (RFC 6749 4.1.2.1, OIDC Core 3.1.2.6).
export const AccessDenied = kind(400, 'access_denied');
export const UnsupportedResponseType = kind(400, 'unsupported_response_type');
export const LoginRequired = kind(400, 'login_required');
export const ConsentRequired = kind(400, 'consent_required');
export const InteractionRequired = kind(400, 'interaction_required');
export const InvalidRequestObject = kind(400, 'invalid_request_object');
export const RequestUriNotSupported = kind(400, 'request_uri_not_supported');
export const TemporarilyUnavailable = kind(503, 'temporarily_unavailable');

// DPoP (RFC 9449 12.2): a proof that does not check out, and the server's nonce asked for.
export const InvalidDpopProof = kind(400, 'invalid_dpop_proof');
export const UseDpopNonce = kind(400, 'use_dpop_nonce');

export function isAppError(value: unknown): value is AppError {
  return value instanceof AppError;
}
