/**
 * APNs over HTTP/2 with provider-token authentication (Apple, "Sending notification requests to
 * APNs" and "Establishing a token-based connection to APNs"): one TLS connection per notifier
 * carrying many concurrent streams, an ES256 JWT signed with the `.p8` key (`kid` = key id,
 * `iss` = team id) reused for well under the hour Apple allows and renewed after that.
 */
import { connect, constants, type ClientHttp2Session } from 'node:http2';
import { SignJWT, importPKCS8, type CryptoKey } from 'jose';
import { IllegalArgument } from '../../errors.js';
import { checkPrivateKey, requireText } from './fields.js';
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

export const APNS_HOSTS = {
  production: 'https://api.push.apple.com',
  development: 'https://api.sandbox.push.apple.com',
} as const;

// Apple refuses tokens older than an hour and throttles renewals more often than every 20
// minutes; 50 minutes sits between the two.
const TOKEN_REFRESH_MS = 50 * 60 * 1000;

// Apple key ids and team ids are ten characters, upper-case letters and digits.
const APPLE_ID = /^[A-Z0-9]{10}$/;

/** Answers that mean the token will never work again for this topic (like 410 Unregistered). */
const UNREGISTERED_REASONS: ReadonlySet<string> = new Set(['BadDeviceToken', 'DeviceTokenNotForTopic', 'Unregistered', 'ExpiredToken']);

function appleId(body: Record<string, unknown>, field: string): string {
  const value = requireText(body, field);
  if (!APPLE_ID.test(value))
    throw IllegalArgument(`${field} must be the ten-character id Apple shows, such as ABC123DEFG`, { fields: { [field]: 'malformed' } });
  return value;
}

/** An APNs body: a text becomes the alert; an object is sent as given (it carries `aps`). */
export function apnsBody(payload: unknown): Record<string, unknown> {
  if (typeof payload === 'string') return { aps: { alert: payload } };
  return payload as Record<string, unknown>;
}

/** `background` for content-available pushes without anything shown, else `alert` (apns-push-type). */
export function apnsPushType(body: Record<string, unknown>): 'alert' | 'background' {
  const aps = body.aps;
  if (typeof aps !== 'object' || aps === null) return 'alert';
  const { alert, sound, badge } = aps as Record<string, unknown>;
  const silent = (aps as Record<string, unknown>)['content-available'] === 1 && alert === undefined && sound === undefined && badge === undefined;
  return silent ? 'background' : 'alert';
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** The provider token a notifier's requests carry, shared by every stream and renewed before Apple's hour. */
interface ProviderTokens {
  current(): Promise<string>;
  /** APNs called the token expired: the next send signs a new one. */
  forget(): void;
}

function createProviderTokens(notifier: NotifierConfig, now: () => number): ProviderTokens {
  const keyId = String(notifier.visible.keyId);
  const teamId = String(notifier.visible.teamId);
  let key: Promise<CryptoKey> | undefined;
  let token: { value: string; issuedAt: number } | undefined;
  return {
    async current() {
      const signedAt = now();
      if (token !== undefined && signedAt - token.issuedAt < TOKEN_REFRESH_MS) return token.value;
      key ??= importPKCS8(notifier.secret.p8, 'ES256');
      const value = await new SignJWT({})
        .setProtectedHeader({ alg: 'ES256', kid: keyId })
        .setIssuer(teamId)
        .setIssuedAt(Math.floor(signedAt / 1000))
        .sign(await key);
      // Two sends may sign at once; keep whichever finished first so every stream shares one token.
      if (token === undefined || signedAt - token.issuedAt >= TOKEN_REFRESH_MS) token = { value, issuedAt: signedAt };
      return token.value;
    },
    forget() {
      token = undefined;
    },
  };
}

/** One HTTP/2 connection to APNs, opened on the first request and again after it closes. */
interface ApnsConnection {
  request(headers: Record<string, string>, body: string): Promise<Answer>;
  close(): Promise<void>;
}

function createApnsConnection(baseUrl: string, options: ProviderOptions): ApnsConnection {
  let session: ClientHttp2Session | undefined;

  function connection(): ClientHttp2Session {
    if (session !== undefined && !session.closed && !session.destroyed) return session;
    const opened = connect(baseUrl, { ca: options.ca });
    // A failed or closed connection is replaced on the next send; its streams fail and retry.
    opened.on('error', () => opened.destroy());
    opened.on('goaway', () => opened.close());
    opened.on('close', () => {
      if (session === opened) session = undefined;
    });
    opened.unref();
    session = opened;
    return opened;
  }

  return {
    request(headers, body) {
      return new Promise((resolve, reject) => {
        const stream = connection().request(headers);
        stream.setTimeout(options.timeoutMs, () => stream.close(constants.NGHTTP2_CANCEL));
        let answer: Answer | undefined;
        let text = '';
        stream.on('response', (responseHeaders) => {
          answer = { status: Number(responseHeaders[':status']), headers: responseHeaders, body: '' };
        });
        stream.setEncoding('utf8');
        stream.on('data', (chunk: string) => (text += chunk));
        stream.on('end', () =>
          answer ? resolve({ ...answer, body: text }) : reject(Object.assign(new Error('APNs closed the stream without answering'), { code: 'STREAM_CLOSED' })),
        );
        stream.on('error', reject);
        stream.on('close', () => {
          if (answer === undefined) reject(Object.assign(new Error('APNs did not answer in time'), { code: 'TIMEOUT' }));
        });
        stream.end(body);
      });
    },
    async close() {
      const open = session;
      session = undefined;
      if (open === undefined || open.closed) return;
      // The connection is unref'd so an idle one never holds the process; closing must.
      open.ref();
      await new Promise<void>((resolve) => open.close(() => resolve()));
    },
  };
}

/** The request headers of one message (Apple, "Sending notification requests to APNs"). */
function apnsHeaders(message: PushMessage, pushType: 'alert' | 'background', topic: string, providerToken: string): Record<string, string> {
  return {
    ':method': 'POST',
    ':path': `/3/device/${encodeURIComponent(message.token)}`,
    authorization: `bearer ${providerToken}`,
    'apns-id': message.id,
    'apns-topic': topic,
    'apns-push-type': pushType,
    // 0: deliver once or not at all; otherwise APNs keeps trying until then.
    'apns-expiration': String(message.expire === undefined ? 0 : Math.floor(message.expire / 1000)),
    'apns-priority': pushType === 'background' ? '5' : '10',
    'content-type': 'application/json',
  };
}

/** What an APNs answer means for the delivery; an expired provider token is forgotten. */
function classify(answer: Answer, tokens: ProviderTokens, now: number): PushOutcome {
  if (answer.status === 200) {
    const id = answer.headers['apns-id'];
    return { kind: 'sent', providerId: typeof id === 'string' ? id : undefined };
  }
  const reason = reasonOf(answer.body) ?? `HTTP ${answer.status}`;
  const message = `APNs answered ${answer.status} ${reason}`;
  if (answer.status === 410 || UNREGISTERED_REASONS.has(reason)) return { kind: 'unregistered', code: reason, message };
  if (answer.status === 403 && reason === 'ExpiredProviderToken') {
    tokens.forget();
    return { kind: 'retry', code: reason, message, retryAfterMs: 0 };
  }
  if (answer.status === 429 || answer.status >= 500) {
    const after = answer.headers['retry-after'];
    return { kind: 'retry', code: reason, message, retryAfterMs: retryAfterMs(typeof after === 'string' ? after : undefined, now) };
  }
  return { kind: 'rejected', code: reason, message };
}

export function createAppleClient(notifier: NotifierConfig, options: ProviderOptions): PushClient {
  const topic = String(notifier.visible.topic);
  const tokens = createProviderTokens(notifier, () => options.now());
  const connection = createApnsConnection(options.baseUrl ?? APNS_HOSTS[notifier.environment], options);
  return {
    async send(message: PushMessage): Promise<PushOutcome> {
      const body = apnsBody(message.payload);
      let answer: Answer;
      try {
        answer = await connection.request(apnsHeaders(message, apnsPushType(body), topic, await tokens.current()), JSON.stringify(body));
      } catch (error) {
        return networkFailure(error);
      }
      return classify(answer, tokens, options.now());
    },
    close: () => connection.close(),
  };
}

function reasonOf(body: string): string | undefined {
  try {
    const reason = (JSON.parse(body) as { reason?: unknown }).reason;
    return typeof reason === 'string' ? reason : undefined;
  } catch {
    return undefined;
  }
}

export const appleProvider: Provider = {
  name: 'apple',
  async validate(body) {
    const p8 = requireText(body, 'p8', ['p8', 'key']);
    const keyId = appleId(body, 'keyId');
    const teamId = appleId(body, 'teamId');
    const topic = requireText(body, 'topic');
    await checkPrivateKey(p8, 'ES256', 'p8');
    return { visible: { keyId, teamId, topic }, secret: { p8 } };
  },
  createClient: createAppleClient,
};
