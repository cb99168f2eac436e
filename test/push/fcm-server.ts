/**
 * A local FCM HTTP v1 endpoint and OAuth token endpoint on 127.0.0.1. The token endpoint checks
 * the JWT bearer assertion (RFC 7523: RS256 signature by the service account's key, iss, aud,
 * scope, exp) and issues short tokens; the send endpoint checks the bearer token, the project
 * path and the message, and answers as a test decides.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { importSPKI, jwtVerify } from 'jose';

export interface FcmMessage {
  token: string;
  message: Record<string, unknown>;
}

export interface FcmAnswer {
  status: number;
  errorCode?: string;
  status_?: string;
  headers?: Record<string, string>;
}

export interface LocalFcm {
  url: string;
  tokenUri: string;
  messages: FcmMessage[];
  problems: string[];
  tokensIssued: () => number;
  answer: (message: FcmMessage, attempt: number) => FcmAnswer;
  /** Seconds a token from the token endpoint lives. */
  tokenLifetime: number;
  /** Forget every issued token: the next send gets 401. */
  revokeTokens(): void;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += chunk;
  return text;
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

export async function startLocalFcm(expect: { publicKey: string; clientEmail: string; projectId: string }): Promise<LocalFcm> {
  const key = await importSPKI(expect.publicKey, 'RS256');
  const issued = new Set<string>();
  const attempts = new Map<string, number>();
  let tokens = 0;
  const server: Server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const local: LocalFcm = {
    url: base,
    tokenUri: `${base}/token`,
    messages: [],
    problems: [],
    tokensIssued: () => tokens,
    answer: () => ({ status: 200 }),
    tokenLifetime: 3600,
    revokeTokens: () => issued.clear(),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const text = await readBody(req);
    if (req.url === '/token') {
      const form = new URLSearchParams(text);
      try {
        if (req.headers['content-type'] !== 'application/x-www-form-urlencoded') throw new Error(`content-type ${req.headers['content-type']}`);
        if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') throw new Error(`grant_type ${form.get('grant_type')}`);
        const { payload, protectedHeader } = await jwtVerify(form.get('assertion') ?? '', key, {
          issuer: expect.clientEmail,
          audience: local.tokenUri,
          algorithms: ['RS256'],
        });
        if (payload.scope !== 'https://www.googleapis.com/auth/firebase.messaging') throw new Error(`scope ${payload.scope}`);
        if (typeof payload.exp !== 'number' || typeof payload.iat !== 'number' || payload.exp - payload.iat > 3600) throw new Error('exp');
        if (protectedHeader.kid !== 'key-1') throw new Error(`kid ${protectedHeader.kid}`);
      } catch (error) {
        local.problems.push(`token: ${(error as Error).message}`);
        return json(res, 400, { error: 'invalid_grant', error_description: (error as Error).message });
      }
      const token = `ya29.${randomUUID()}`;
      issued.add(token);
      tokens += 1;
      return json(res, 200, { access_token: token, expires_in: local.tokenLifetime, token_type: 'Bearer' });
    }
    if (req.method !== 'POST' || req.url !== `/v1/projects/${expect.projectId}/messages:send`) {
      local.problems.push(`send: ${req.method} ${req.url}`);
      return json(res, 404, { error: { code: 404, status: 'NOT_FOUND', message: 'no such path' } });
    }
    const bearer = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
    if (!issued.has(bearer))
      return json(res, 401, { error: { code: 401, status: 'UNAUTHENTICATED', message: 'Request had invalid authentication credentials.' } });
    let message: Record<string, unknown>;
    try {
      message = (JSON.parse(text) as { message: Record<string, unknown> }).message;
      if (typeof message.token !== 'string') throw new Error('message.token');
    } catch (error) {
      local.problems.push(`send body: ${(error as Error).message}`);
      return json(res, 400, { error: { code: 400, status: 'INVALID_ARGUMENT', message: 'bad body' } });
    }
    const received = { token: message.token as string, message };
    local.messages.push(received);
    const attempt = (attempts.get(received.token) ?? 0) + 1;
    attempts.set(received.token, attempt);
    const answer = local.answer(received, attempt);
    if (answer.status === 200) return json(res, 200, { name: `projects/${expect.projectId}/messages/${randomUUID()}` });
    const details = answer.errorCode ? [{ '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode: answer.errorCode }] : [];
    return json(
      res,
      answer.status,
      { error: { code: answer.status, status: answer.status_ ?? answer.errorCode ?? 'UNKNOWN', message: `answered ${answer.status}`, details } },
      answer.headers,
    );
  }
  return local;
}
