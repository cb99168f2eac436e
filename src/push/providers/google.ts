/**
 * Firebase Cloud Messaging HTTP v1 (`POST /v1/projects/{id}/messages:send`). The OAuth access
 * token comes from the service account's `token_uri` by the JWT bearer grant (RFC 7523 2.1,
 * Google "Using OAuth 2.0 for Server to Server Applications"): an RS256 assertion signed with the
 * account's private key, the token cached until shortly before it expires and shared by every
 * request in flight.
 */
import { SignJWT, importPKCS8 } from 'jose';
import { IllegalArgument, RequiredProperty } from '../../errors.js';
import { checkPrivateKey } from './fields.js';
import {
  networkFailure,
  retryAfterMs,
  type NotifierConfig,
  type Provider,
  type ProviderOptions,
  type PushClient,
  type PushMessage,
  type PushOutcome,
} from './types.js';

export const FCM_URL = 'https://fcm.googleapis.com';
const FCM_SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
// Renew a minute early so no request goes out with a token that expires on the way.
const TOKEN_MARGIN_MS = 60_000;

/** FCM error codes that mean the registration token is no longer usable (like APNs' 410). */
const UNREGISTERED_CODES: ReadonlySet<string> = new Set(['UNREGISTERED', 'INVALID_ARGUMENT']);
const RETRY_CODES: ReadonlySet<string> = new Set(['QUOTA_EXCEEDED', 'UNAVAILABLE', 'INTERNAL']);

export interface ServiceAccount {
  project_id: string;
  private_key: string;
  private_key_id?: string;
  client_email: string;
  token_uri: string;
}

function serviceAccountOf(body: Record<string, unknown>): ServiceAccount {
  const given = body.credentials ?? body.serviceAccount;
  if (given === undefined || given === null)
    throw RequiredProperty('credentials (the service-account JSON) is required', { fields: { credentials: 'required' } });
  let account: unknown = given;
  if (typeof given === 'string') {
    try {
      account = JSON.parse(given);
    } catch {
      throw IllegalArgument('credentials is not valid JSON', { fields: { credentials: 'must be the service-account JSON' } });
    }
  }
  if (typeof account !== 'object' || account === null || Array.isArray(account)) {
    throw IllegalArgument('credentials must be the service-account JSON object', { fields: { credentials: 'must be a JSON object' } });
  }
  const fields = account as Record<string, unknown>;
  if (fields.type !== 'service_account')
    throw IllegalArgument("credentials.type must be 'service_account'", { fields: { 'credentials.type': "must be 'service_account'" } });
  for (const name of ['project_id', 'private_key', 'client_email', 'token_uri']) {
    if (typeof fields[name] !== 'string' || fields[name] === '') {
      throw IllegalArgument(`credentials.${name} is required`, { fields: { [`credentials.${name}`]: 'required' } });
    }
  }
  const tokenUri = fields.token_uri as string;
  if (!URL.canParse(tokenUri) || !/^https?:$/.test(new URL(tokenUri).protocol)) {
    throw IllegalArgument('credentials.token_uri must be an http(s) URL', { fields: { 'credentials.token_uri': 'must be an http(s) URL' } });
  }
  return {
    project_id: fields.project_id as string,
    private_key: fields.private_key as string,
    private_key_id: typeof fields.private_key_id === 'string' ? fields.private_key_id : undefined,
    client_email: fields.client_email as string,
    token_uri: tokenUri,
  };
}

/** The FCM `message`: a text becomes the notification body; an object is used as given. */
export function fcmMessage(message: PushMessage, now: number): Record<string, unknown> {
  const base: Record<string, unknown> =
    typeof message.payload === 'string' ? { notification: { body: message.payload } } : { ...(message.payload as Record<string, unknown>) };
  base.token = message.token;
  if (message.expire !== undefined) {
    const seconds = Math.max(0, Math.ceil((message.expire - now) / 1000));
    const android = (base.android ?? {}) as Record<string, unknown>;
    const apns = (base.apns ?? {}) as { headers?: Record<string, string> };
    base.android = { ...android, ttl: `${seconds}s` };
    base.apns = { ...apns, headers: { ...apns.headers, 'apns-expiration': String(Math.floor(message.expire / 1000)) } };
  }
  return base;
}

interface FcmError {
  error?: { code?: number; message?: string; status?: string; details?: { '@type'?: string; errorCode?: string }[] };
}

function errorCodeOf(body: FcmError, status: number): { code: string; message: string } {
  const detail = body.error?.details?.find((one) => typeof one.errorCode === 'string')?.errorCode;
  return { code: detail ?? body.error?.status ?? `HTTP_${status}`, message: body.error?.message ?? `FCM answered ${status}` };
}

/** An OAuth access token of the service account and when to stop using it. */
interface AccessToken {
  readonly value: string;
  readonly expiresAt: number;
}

/** Asks the account's token endpoint for an access token (JWT bearer grant, RFC 7523 2.1). */
async function fetchAccessToken(account: ServiceAccount, options: ProviderOptions): Promise<AccessToken> {
  const iat = Math.floor(options.now() / 1000);
  const assertion = await new SignJWT({ scope: FCM_SCOPE })
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT', ...(account.private_key_id && { kid: account.private_key_id }) })
    .setIssuer(account.client_email)
    .setAudience(account.token_uri)
    .setIssuedAt(iat)
    .setExpirationTime(iat + 3600)
    .sign(await importPKCS8(account.private_key, 'RS256'));
  const response = await fetch(account.token_uri, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: JWT_BEARER, assertion }).toString(),
    signal: AbortSignal.timeout(options.timeoutMs),
  });
  const body = (await response.json().catch(() => ({}))) as { access_token?: unknown; expires_in?: unknown; error?: unknown; error_description?: unknown };
  if (!response.ok || typeof body.access_token !== 'string') {
    const reason = typeof body.error === 'string' ? body.error : `HTTP ${response.status}`;
    throw Object.assign(new Error(`the token endpoint refused the service account: ${reason}`), { code: 'TOKEN_REFUSED', status: response.status });
  }
  const lifetime = typeof body.expires_in === 'number' ? body.expires_in * 1000 : 3600_000;
  return { value: body.access_token, expiresAt: options.now() + lifetime - TOKEN_MARGIN_MS };
}

/** The access token every request shares: one fetch at a time, cached until shortly before it expires. */
interface AccessTokens {
  current(): Promise<string>;
  /** FCM refused the token: the next send fetches a new one. */
  forget(): void;
}

function createAccessTokens(account: ServiceAccount, options: ProviderOptions): AccessTokens {
  let cached: AccessToken | undefined;
  let pending: Promise<string> | undefined;
  return {
    current() {
      if (cached !== undefined && options.now() < cached.expiresAt) return Promise.resolve(cached.value);
      pending ??= fetchAccessToken(account, options)
        .then((token) => (cached = token).value)
        .finally(() => (pending = undefined));
      return pending;
    },
    forget() {
      cached = undefined;
    },
  };
}

/** What an FCM error answer means for the delivery; a refused access token is forgotten. */
function classifyError(response: Response, text: string, tokens: AccessTokens, now: number): PushOutcome {
  let body: FcmError;
  try {
    body = JSON.parse(text) as FcmError;
  } catch {
    body = {};
  }
  const { code, message } = errorCodeOf(body, response.status);
  if (UNREGISTERED_CODES.has(code)) return { kind: 'unregistered', code, message };
  if (response.status === 401) {
    tokens.forget();
    return { kind: 'retry', code, message, retryAfterMs: 0 };
  }
  if (RETRY_CODES.has(code) || response.status === 429 || response.status >= 500) {
    return { kind: 'retry', code, message, retryAfterMs: retryAfterMs(response.headers.get('retry-after') ?? undefined, now) };
  }
  return { kind: 'rejected', code, message };
}

export function createGoogleClient(notifier: NotifierConfig, options: ProviderOptions): PushClient {
  const account = JSON.parse(notifier.secret.credentials) as ServiceAccount;
  const endpoint = `${(options.baseUrl ?? FCM_URL).replace(/\/+$/, '')}/v1/projects/${encodeURIComponent(account.project_id)}/messages:send`;
  const tokens = createAccessTokens(account, options);
  return {
    async send(message: PushMessage): Promise<PushOutcome> {
      let token: string;
      try {
        token = await tokens.current();
      } catch (error) {
        const status = (error as { status?: number }).status;
        // The token endpoint said no (invalid_grant, unknown account): retrying will not help.
        if (status !== undefined && status >= 400 && status < 500) return { kind: 'rejected', code: 'TOKEN_REFUSED', message: (error as Error).message };
        return networkFailure(error);
      }
      let response: Response;
      let text: string;
      try {
        response = await fetch(endpoint, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ message: fcmMessage(message, options.now()) }),
          signal: AbortSignal.timeout(options.timeoutMs),
        });
        text = await response.text();
      } catch (error) {
        return networkFailure(error);
      }
      if (!response.ok) return classifyError(response, text, tokens, options.now());
      const name = (JSON.parse(text) as { name?: unknown }).name;
      return { kind: 'sent', providerId: typeof name === 'string' ? name : undefined };
    },
    async close() {
      tokens.forget();
    },
  };
}

export const googleProvider: Provider = {
  name: 'google',
  async validate(body) {
    const account = serviceAccountOf(body);
    await checkPrivateKey(account.private_key, 'RS256', 'credentials.private_key');
    return {
      visible: { projectId: account.project_id, clientEmail: account.client_email, tokenUri: account.token_uri },
      secret: { credentials: JSON.stringify(account) },
    };
  },
  createClient: createGoogleClient,
};
