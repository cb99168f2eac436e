/**
 * Validating an authorize request (docs/api.md#authorize-endpoint, OIDC Core 3.1.2.1, RFC 6749
 * 4.1.1), in the order RFC 6749 4.1.2.1 dictates: first the client and its redirect URI — a failure
 * there is shown to the user and never redirected — then everything else, whose failures go back to
 * the client at that redirect URI in the response mode it asked for.
 */
import { eq } from 'drizzle-orm';

import type { Deps } from '../../deps.js';
import {
  AppError,
  InvalidRequest,
  InvalidScope,
  InvalidRequestObject,
  isAppError,
  RequestUriNotSupported,
  UnauthorizedClient,
  UnsupportedResponseType,
} from '../../errors.js';
import { findClient, isPublicClient, isRedirectUriAllowed, scopesFor, type Client } from '../clients/find.js';
import { parseAcrValues, type AcrValues } from './acr-values.js';
import { parseScope, resolveScope, type Scope } from '../scopes.js';
import { findIdentityProviderByName } from '../federation/identity-providers.js';
import { readRequestObject } from './request-object.js';
import { parseClaimsRequest, type ClaimsRequest } from './claims-request.js';
import { canonicalResponseType, RESPONSE_TYPES, type ResponsePart } from './response-types.js';
import { parseResources } from '../tokens/resources.js';
import { first } from '../../db/run.js';
import { schemaOf } from '../../db/open.js';

export type ResponseMode = 'query' | 'fragment' | 'form_post';
export const RESPONSE_MODES: readonly ResponseMode[] = ['query', 'fragment', 'form_post'];

const IDENTITY_SCOPES: readonly string[] = ['openid', 'profile', 'email', 'address', 'phone'];
const RESOURCE_SCOPES: readonly string[] = ['api'];

export type Prompt = 'none' | 'login' | 'consent' | 'select_account';
export const PROMPTS: readonly Prompt[] = ['none', 'login', 'consent', 'select_account'];

/**
 * Where and how a response (or an error) goes back to the client. Mode `device`: a device
 * authorization allowed at /device (RFC 8628), whose answer waits for the device's next poll and
 * is shown to the user on a page; it has no redirect URI.
 */
export interface RedirectTarget {
  redirectUri: string;
  mode: ResponseMode | 'device';
  state?: string;
}

export interface AuthorizeRequest extends RedirectTarget {
  client: Client;
  /** The response type in canonical order, e.g. `code id_token`. */
  responseType: string;
  parts: ReadonlySet<ResponsePart>;
  scope: Scope[];
  nonce?: string;
  prompt: ReadonlySet<Prompt>;
  maxAge?: number;
  codeChallenge?: string;
  codeChallengeMethod?: 'S256' | 'plain';
  loginHint?: string;
  uiLocales?: string;
  /** `acr_values`, with the `acr` classes of `claims` among `classes`. */
  acr: AcrValues;
  /** The `claims` parameter (OIDC Core 5.5). */
  claims: ClaimsRequest;
  /** The request's parameters as received, to carry it through the sign-in and consent forms. */
  query: string;
  /** The id of the device authorization (RFC 8628) this request allows, in mode `device`. */
  device?: string;
  /** The `resource` parameters (RFC 8707): what the tokens are to be for. */
  resources: string[];
  /** RFC 9449 10: the thumbprint of the DPoP key the code is bound to (`dpop_jkt`). */
  dpopJkt?: string;
}

export type UnsafeReason =
  'missing_client_id' | 'unknown_client' | 'missing_redirect_uri' | 'unregistered_redirect_uri' | 'invalid_request_object' | 'invalid_request_uri';

/** A failure that must not be redirected (RFC 6749 4.1.2.1): the user sees the error page. */
export class UnsafeRedirectError extends AppError {
  readonly reason: UnsafeReason;
  constructor(reason: UnsafeReason, description: string) {
    super(400, 'invalid_request', description);
    this.name = 'UnsafeRedirectError';
    this.reason = reason;
  }
}

/** A failure reported to the client at its (verified) redirect URI. */
export class RedirectedError extends Error {
  readonly target: RedirectTarget;
  readonly error: AppError;
  constructor(target: RedirectTarget, error: AppError) {
    super(error.message);
    this.name = 'RedirectedError';
    this.target = target;
    this.error = error;
  }
}

/** What an authorization request is read from (RFC 6749 4.1.1, OpenID Connect Core 3.1.2.1, RFC 7636 4.3). */
export const AUTHORIZE_PARAMETERS: readonly string[] = [
  'response_type',
  'client_id',
  'redirect_uri',
  'scope',
  'state',
  'response_mode',
  'nonce',
  'prompt',
  'max_age',
  'acr_values',
  'code_challenge',
  'code_challenge_method',
  'login_hint',
  'ui_locales',
  // OIDC Core 5.5.
  'claims',
  'request',
  // RFC 9126 4: a pushed request, by the reference /connect/par gave.
  'request_uri',
  // RFC 8707 2: may be sent more than once (tokens/resources.ts).
  'resource',
  // RFC 9449 10.
  'dpop_jkt',
];

/** RFC 9449 10 and RFC 7638: a JWK SHA-256 thumbprint, base64url without padding. */
const JKT = /^[A-Za-z0-9_-]{43}$/;

function parseDpopJkt(text: string | undefined): string | undefined {
  if (text !== undefined && !JKT.test(text)) throw InvalidRequest('dpop_jkt must be the base64url SHA-256 thumbprint of a JWK (RFC 7638), 43 characters');
  return text;
}

/** RFC 6749 3.1: a parameter sent more than once is an error; absent and empty are the same. */
function single(params: URLSearchParams, name: string): string | undefined {
  const values = params.getAll(name);
  if (values.length > 1) throw InvalidRequest(`${name} is given more than once`);
  return values[0] === '' ? undefined : values[0];
}

/** The client and its exact redirect URI; nothing is redirected until both check out. */
export async function findRedirectTarget(deps: Deps, params: URLSearchParams): Promise<{ client: Client; redirectUri: string }> {
  const clientIds = params.getAll('client_id');
  if (clientIds.length === 0 || clientIds[0] === '') throw new UnsafeRedirectError('missing_client_id', 'client_id is missing');
  const client = clientIds.length === 1 ? await findClient(deps, clientIds[0]!) : undefined;
  if (!client) throw new UnsafeRedirectError('unknown_client', `no client '${clientIds[0]}'`);
  const redirectUris = params.getAll('redirect_uri');
  if (redirectUris.length === 0 || redirectUris[0] === '') throw new UnsafeRedirectError('missing_redirect_uri', 'redirect_uri is missing');
  if (redirectUris.length > 1 || !isRedirectUriAllowed(client, redirectUris[0]!)) {
    throw new UnsafeRedirectError('unregistered_redirect_uri', `redirect_uri '${redirectUris[0]}' is not registered for client '${client.clientId}'`);
  }
  return { client, redirectUri: redirectUris[0]! };
}

/**
 * `none` (OAuth 2.0 Multiple Response Types 4): a sign-in that issues nothing and returns only
 * `state`. Not offered to registered clients (nor in discovery): the account page's built-in
 * clients use it (clients/find.ts), and the authorize request checks each client's response types.
 */
const NO_RESPONSE = 'none';

function parseResponseType(text: string | undefined): { responseType: string; parts: Set<ResponsePart> } {
  if (!text) throw InvalidRequest('response_type is missing');
  if (text === NO_RESPONSE) return { responseType: NO_RESPONSE, parts: new Set() };
  const canonical = canonicalResponseType(text);
  if (!canonical) throw UnsupportedResponseType(`response_type '${text}' is not supported; use one of ${RESPONSE_TYPES.join(', ')}`);
  return canonical;
}

/** OAuth 2.0 Multiple Response Types 2.1: query for `code` alone, fragment for anything with a token. */
function carriesTokens(parts: ReadonlySet<string>): boolean {
  return parts.has('token') || parts.has('id_token');
}

function defaultMode(parts: ReadonlySet<string>): ResponseMode {
  return carriesTokens(parts) ? 'fragment' : 'query';
}

/** The response mode asked for, when it is one this request may use. */
function usableMode(text: string | undefined, parts: ReadonlySet<string>): ResponseMode | undefined {
  if (!RESPONSE_MODES.includes(text as ResponseMode)) return undefined;
  // Multiple Response Types 2.1: tokens never travel in a query string (logs, Referer).
  return text === 'query' && carriesTokens(parts) ? undefined : (text as ResponseMode);
}

function parseMode(text: string | undefined, parts: ReadonlySet<string>): ResponseMode {
  if (text === undefined) return defaultMode(parts);
  const mode = usableMode(text, parts);
  if (mode === undefined && text === 'query') throw InvalidRequest('response_mode query cannot carry tokens; use fragment or form_post');
  if (mode === undefined) throw InvalidRequest(`response_mode '${text}' is not supported; use ${RESPONSE_MODES.join(', ')}`);
  return mode;
}

/**
 * `id_token` alone takes identity scopes only, `token` alone resource scopes only
 * (docs/api.md#authorize-endpoint).
 */
function checkScope(scope: readonly Scope[], parts: ReadonlySet<ResponsePart>, responseType: string): void {
  if (parts.has('id_token') && !scope.includes('openid')) throw InvalidScope(`response_type ${responseType} needs the openid scope`);
  if (responseType === 'id_token' && scope.some((item) => !IDENTITY_SCOPES.includes(item))) {
    throw InvalidScope(`response_type id_token allows only identity scopes (${IDENTITY_SCOPES.join(', ')})`);
  }
  if (responseType === 'token' && scope.some((item) => !RESOURCE_SCOPES.includes(item))) {
    throw InvalidScope('response_type token allows only resource scopes (api)');
  }
  // Refresh tokens come only from the token endpoint, after a code exchange.
  if (!parts.has('code') && scope.includes('offline_access')) throw InvalidScope(`offline_access needs a response_type with code`);
}

function parsePrompt(text: string | undefined): Set<Prompt> {
  const values = new Set((text ?? '').split(' ').filter((value) => value !== ''));
  for (const value of values) {
    if (!PROMPTS.includes(value as Prompt)) throw InvalidRequest(`prompt '${value}' is not supported; use ${PROMPTS.join(', ')}`);
  }
  // OIDC Core 3.1.2.1: none with any other value is an error.
  if (values.has('none') && values.size > 1) throw InvalidRequest('prompt none cannot be combined with other values');
  return values as Set<Prompt>;
}

function parseMaxAge(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d{1,10}$/.test(text)) throw InvalidRequest('max_age must be a whole number of seconds');
  return Number(text);
}

function parsePkce(
  client: Client,
  parts: ReadonlySet<ResponsePart>,
  challenge: string | undefined,
  method: string | undefined,
): Pick<AuthorizeRequest, 'codeChallenge' | 'codeChallengeMethod'> {
  if (!parts.has('code')) return {};
  if (challenge === undefined) {
    if (method !== undefined) throw InvalidRequest('code_challenge_method was sent without code_challenge');
    if (client.requirePkce || isPublicClient(client)) throw InvalidRequest('code_challenge is required for this client (PKCE, RFC 7636)');
    return {};
  }
  // RFC 7636 4.2 and 4.3: plain when no method is sent; 43 to 128 unreserved characters.
  const codeChallengeMethod = method ?? 'plain';
  if (codeChallengeMethod !== 'S256' && codeChallengeMethod !== 'plain')
    throw InvalidRequest(`code_challenge_method '${codeChallengeMethod}' is not supported; use S256`);
  if (codeChallengeMethod === 'plain' && !client.allowPlainPkce) throw InvalidRequest('code_challenge_method plain is not allowed for this client; use S256');
  if (!/^[A-Za-z0-9._~-]{43,128}$/.test(challenge)) throw InvalidRequest('code_challenge must be 43 to 128 characters of A-Z, a-z, 0-9, -, ., _ and ~');
  return { codeChallenge: challenge, codeChallengeMethod };
}

async function checkAcr(deps: Deps, client: Client, acr: AcrValues): Promise<void> {
  const { organizations } = schemaOf(deps.db);
  if (acr.idp !== undefined) {
    if (!client.appUuid || !client.identityProviders.includes(acr.idp)) throw InvalidRequest(`identity provider '${acr.idp}' is not allowed for this client`);
    if (!(await findIdentityProviderByName(deps, client.appUuid, acr.idp)))
      throw InvalidRequest(`identity provider '${acr.idp}' is not configured for this application`);
  }
  // tenant:NAME limits admin sign-in to an organization, which must exist.
  if (acr.tenant !== undefined && client.appUuid === null) {
    const org = await first(deps.db.select({ uuid: organizations.uuid }).from(organizations).where(eq(organizations.nameKey, acr.tenant.toLowerCase())));
    if (!org) throw InvalidRequest(`no organization '${acr.tenant}' (acr_values tenant)`);
  }
}

/**
 * The request's parameters: those of its request object (request-object.ts) when it sends one,
 * which is then verified before anything else is read from it. A request object that will not do
 * goes back to the client only at a redirect URI registered for it that the query names;
 * otherwise the user sees the error page.
 */
async function withRequestObject(deps: Deps, params: URLSearchParams): Promise<URLSearchParams> {
  if (!params.has('request')) return params;
  const clientIds = params.getAll('client_id');
  const client = clientIds.length === 1 && clientIds[0] !== '' ? await findClient(deps, clientIds[0]!) : undefined;
  if (!client) throw new UnsafeRedirectError(clientIds.length === 0 ? 'missing_client_id' : 'unknown_client', 'a request object needs client_id in the query');
  try {
    if (params.has('request_uri')) throw InvalidRequestObject('send request or request_uri, not both');
    return await readRequestObject(deps, client, single(params, 'request') ?? '');
  } catch (error) {
    if (!isAppError(error)) throw error;
    const redirectUri = params.getAll('redirect_uri');
    if (redirectUri.length !== 1 || !isRedirectUriAllowed(client, redirectUri[0]!)) throw new UnsafeRedirectError('invalid_request_object', error.message);
    const typeWords = new Set((params.get('response_type') ?? '').split(' '));
    throw new RedirectedError({ redirectUri: redirectUri[0]!, mode: defaultMode(typeWords), state: params.getAll('state')[0] || undefined }, error);
  }
}

/**
 * The whole request, validated. Throws UnsafeRedirectError before the redirect URI is trusted and
 * RedirectedError after.
 */
export async function parseAuthorizeRequest(deps: Deps, sent: URLSearchParams): Promise<AuthorizeRequest> {
  const params = await withRequestObject(deps, sent);
  const { client, redirectUri } = await findRedirectTarget(deps, params);
  // Until response_type and response_mode are known, errors use the defaults they imply.
  const typeWords = new Set((params.get('response_type') ?? '').split(' '));
  let target: RedirectTarget = { redirectUri, mode: defaultMode(typeWords), state: params.getAll('state')[0] || undefined };
  try {
    const state = single(params, 'state');
    target = { ...target, state };
    const modeText = single(params, 'response_mode');
    target = { ...target, mode: usableMode(modeText, typeWords) ?? target.mode };
    const { responseType, parts } = parseResponseType(single(params, 'response_type'));
    const mode = parseMode(modeText, parts);
    target = { redirectUri, mode, state };
    // Request objects by reference come with pushed authorization requests only.
    if (params.has('request_uri')) throw RequestUriNotSupported('request_uri is not supported: send the request object by value, as request');
    if (!client.responseTypes.includes(responseType)) throw UnauthorizedClient(`this client may not use response_type ${responseType}`);
    const requested = parseScope(single(params, 'scope'));
    if (!requested) throw InvalidRequest('scope is missing');
    const scope = resolveScope(requested, scopesFor(client, 'authorization_code'));
    checkScope(scope, parts, responseType);
    const nonce = single(params, 'nonce');
    // OIDC Core 3.2.2.1 and 3.3.2.11: an ID token from the front channel needs a nonce.
    if (parts.has('id_token') && nonce === undefined) throw InvalidRequest(`nonce is required for response_type ${responseType}`);
    const claims = parseClaimsRequest(single(params, 'claims'));
    const acr = parseAcrValues(single(params, 'acr_values'));
    acr.classes.push(...claims.acr.filter((value) => !acr.classes.includes(value)));
    await checkAcr(deps, client, acr);
    return {
      ...target,
      client,
      responseType,
      parts,
      scope,
      nonce,
      prompt: parsePrompt(single(params, 'prompt')),
      maxAge: parseMaxAge(single(params, 'max_age')),
      ...parsePkce(client, parts, single(params, 'code_challenge'), single(params, 'code_challenge_method')),
      loginHint: single(params, 'login_hint'),
      uiLocales: single(params, 'ui_locales'),
      acr,
      claims,
      query: params.toString(),
      resources: parseResources(params.getAll('resource')),
      dpopJkt: parseDpopJkt(single(params, 'dpop_jkt')),
    };
  } catch (error) {
    if (error instanceof AppError) throw new RedirectedError(target, error);
    throw error;
  }
}
