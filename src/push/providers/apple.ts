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
import { networkFailure, retryAfterMs, type NotifierConfig, type Provider, type ProviderOptions, type PushClient, type PushMessage, type PushOutcome } from './types.js';

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
  if (!APPLE_ID.test(value)) throw IllegalArgument(`${field} must be the ten-character id Apple shows, such as ABC123DEFG`, { fields: { [field]: 'malformed' } });
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

export function createAppleClient(notifier: NotifierConfig, options: ProviderOptions): PushClient {
  const baseUrl = options.baseUrl ?? APNS_HOSTS[notifier.environment];
  const topic = String(notifier.visible.topic);
  const keyId = String(notifier.visible.keyId);
  const teamId = String(notifier.visible.teamId);
  let key: Promise<CryptoKey> | undefined;
  let token: { value: string; issuedAt: number } | undefined;
  let session: ClientHttp2Session | undefined;

  async function providerToken(): Promise<string> {
    const now = options.now();
    if (token !== undefined && now - token.issuedAt < TOKEN_REFRESH_MS) return token.value;
    key ??= importPKCS8(notifier.secret.p8, 'ES256');
    const value = await new SignJWT({})
      .setProtectedHeader({ alg: 'ES256', kid: keyId })
      .setIssuer(teamId)
      .setIssuedAt(Math.floor(now / 1000))
      .sign(await key);
    // Two sends may sign at once; keep whichever finished first so every stream shares one token.
    if (token === undefined || now - token.issuedAt >= TOKEN_REFRESH_MS) token = { value, issuedAt: now };
    return token.value;
  }

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

  function request(headers: Record<string, string>, body: string): Promise<Answer> {
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
      stream.on('end', () => (answer ? resolve({ ...answer, body: text }) : reject(Object.assign(new Error('APNs closed the stream without answering'), { code: 'STREAM_CLOSED' }))));
      stream.on('error', reject);
      stream.on('close', () => {
        if (answer === undefined) reject(Object.assign(new Error('APNs did not answer in time'), { code: 'TIMEOUT' }));
      });
      stream.end(body);
    });
  }

  return {
    async send(message: PushMessage): Promise<PushOutcome> {
      const body = apnsBody(message.payload);
      const pushType = apnsPushType(body);
      let answer: Answer;
      try {
        answer = await request(
          {
            ':method': 'POST',
            ':path': `/3/device/${encodeURIComponent(message.token)}`,
            authorization: `bearer ${await providerToken()}`,
            'apns-id': message.id,
            'apns-topic': topic,
            'apns-push-type': pushType,
            // 0: deliver once or not at all; otherwise APNs keeps trying until then.
            'apns-expiration': String(message.expire === undefined ? 0 : Math.floor(message.expire / 1000)),
            'apns-priority': pushType === 'background' ? '5' : '10',
            'content-type': 'application/json',
          },
          JSON.stringify(body),
        );
      } catch (error) {
        return networkFailure(error);
      }
      return classify(answer);
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

  function classify(answer: Answer): PushOutcome {
    if (answer.status === 200) {
      const id = answer.headers['apns-id'];
      return { kind: 'sent', providerId: typeof id === 'string' ? id : undefined };
    }
    const reason = reasonOf(answer.body) ?? `HTTP ${answer.status}`;
    const message = `APNs answered ${answer.status} ${reason}`;
    if (answer.status === 410 || UNREGISTERED_REASONS.has(reason)) return { kind: 'unregistered', code: reason, message };
    if (answer.status === 403 && reason === 'ExpiredProviderToken') {
      token = undefined;
      return { kind: 'retry', code: reason, message, retryAfterMs: 0 };
    }
    if (answer.status === 429 || answer.status >= 500) {
      const after = answer.headers['retry-after'];
      return { kind: 'retry', code: reason, message, retryAfterMs: retryAfterMs(typeof after === 'string' ? after : undefined, options.now()) };
    }
    return { kind: 'rejected', code: reason, message };
  }
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
