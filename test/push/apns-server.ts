/**
 * A local APNs: HTTP/2 over TLS with a certificate made for the test, checking each request the
 * way Apple documents it (method, path, provider token signed with the team's key, topic, push
 * type, id, expiration, JSON body) and answering as a test decides. Every request is recorded;
 * a request that breaks a rule is answered 400 and listed in `problems`.
 */
import { createSecureServer, type Http2SecureServer, type IncomingHttpHeaders, type ServerHttp2Session, type ServerHttp2Stream } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';
import { decodeProtectedHeader, importSPKI, jwtVerify } from 'jose';
import { trackArrivals } from '../arrivals.js';

export interface ApnsRequest {
  token: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
  claims: { iss?: unknown; iat?: unknown };
  at: number;
}

export interface ApnsAnswer {
  status: number;
  reason?: string;
  headers?: Record<string, string>;
  /** Holds the answer until this settles: the request stays in flight as long as a test wants. */
  after?: Promise<unknown>;
}

export interface LocalApns {
  url: string;
  cert: string;
  requests: ApnsRequest[];
  problems: string[];
  /** TLS connections opened so far. */
  connections: () => number;
  /** Most streams open at once. */
  maxConcurrentStreams: () => number;
  answer: (request: ApnsRequest, attempt: number) => ApnsAnswer;
  /** Resolves once `requests` holds at least `count` requests. */
  received(count: number): Promise<void>;
  close(): Promise<void>;
}

export interface ApnsExpectations {
  publicKey: string;
  keyId: string;
  teamId: string;
  topic: string;
}

const UUID = /^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$/i;

export async function startLocalApns(expect: ApnsExpectations): Promise<LocalApns> {
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], { keyType: 'ec', algorithm: 'sha256' });
  const key = await importSPKI(expect.publicKey, 'ES256');
  const server: Http2SecureServer = createSecureServer({ key: pems.private, cert: pems.cert, allowHTTP1: false });
  const attempts = new Map<string, number>();
  const sessions = new Set<ServerHttp2Session>();
  let connections = 0;
  let open = 0;
  let maxOpen = 0;
  const local: LocalApns = {
    url: '',
    cert: pems.cert,
    requests: [],
    problems: [],
    connections: () => connections,
    maxConcurrentStreams: () => maxOpen,
    answer: () => ({ status: 200 }),
    received: async (count) => void (await arrivals.nth(count - 1)),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const arrivals = trackArrivals(local.requests);
  // A client that is killed mid-send (the crash test SIGKILLs idp serve) resets its connection:
  // that is expected here, not a failure of the test, so socket, session and stream errors are
  // absorbed instead of surfacing as uncaught exceptions.
  const ignore = () => undefined;
  server.on('secureConnection', (socket) => {
    connections += 1;
    socket.on('error', ignore);
  });
  server.on('session', (session) => {
    sessions.add(session);
    session.on('error', ignore);
    session.on('close', () => sessions.delete(session));
  });
  server.on('stream', (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => {
    stream.on('error', ignore);
    open += 1;
    maxOpen = Math.max(maxOpen, open);
    stream.on('close', () => (open -= 1));
    let text = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => (text += chunk));
    stream.on('end', () => void handle(stream, headers, text));
  });

  function reply(stream: ServerHttp2Stream, answer: ApnsAnswer, apnsId: string) {
    if (stream.destroyed) return;
    stream.respond({ ':status': answer.status, 'apns-id': apnsId, ...answer.headers });
    stream.end(answer.status === 200 ? '' : JSON.stringify({ reason: answer.reason ?? 'BadRequest' }));
  }

  async function handle(stream: ServerHttp2Stream, headers: IncomingHttpHeaders, text: string) {
    const problems: string[] = [];
    const path = String(headers[':path']);
    const token = decodeURIComponent(path.replace(/^\/3\/device\//, ''));
    if (headers[':method'] !== 'POST') problems.push(`method ${headers[':method']}`);
    if (!/^\/3\/device\/[^/]+$/.test(path)) problems.push(`path ${path}`);
    if (headers['apns-topic'] !== expect.topic) problems.push(`apns-topic ${headers['apns-topic']}`);
    if (!['alert', 'background'].includes(String(headers['apns-push-type']))) problems.push(`apns-push-type ${headers['apns-push-type']}`);
    if (!UUID.test(String(headers['apns-id']))) problems.push(`apns-id ${headers['apns-id']}`);
    if (!/^\d+$/.test(String(headers['apns-expiration']))) problems.push(`apns-expiration ${headers['apns-expiration']}`);
    if (!['5', '10'].includes(String(headers['apns-priority']))) problems.push(`apns-priority ${headers['apns-priority']}`);
    if (headers['content-type'] !== 'application/json') problems.push(`content-type ${headers['content-type']}`);
    let claims: ApnsRequest['claims'] = {};
    const authorization = String(headers.authorization ?? '');
    try {
      const jwt = authorization.replace(/^bearer /, '');
      const header = decodeProtectedHeader(jwt);
      if (header.alg !== 'ES256' || header.kid !== expect.keyId) problems.push(`token header ${JSON.stringify(header)}`);
      claims = (await jwtVerify(jwt, key, { issuer: expect.teamId, algorithms: ['ES256'] })).payload;
      if (typeof claims.iat !== 'number' || Math.abs(Date.now() / 1000 - claims.iat) > 3600) problems.push(`iat ${claims.iat}`);
    } catch (error) {
      problems.push(`authorization: ${(error as Error).message}`);
    }
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(text) as Record<string, unknown>;
      if (typeof body.aps !== 'object') problems.push('body without aps');
    } catch {
      problems.push(`body is not JSON: ${text}`);
    }
    const apnsId = String(headers['apns-id']);
    if (problems.length > 0) {
      local.problems.push(...problems);
      return reply(stream, { status: 400, reason: 'TestCheckFailed' }, apnsId);
    }
    const request: ApnsRequest = { token, headers, body, claims, at: Date.now() };
    local.requests.push(request);
    const attempt = (attempts.get(apnsId) ?? 0) + 1;
    attempts.set(apnsId, attempt);
    const answer = local.answer(request, attempt);
    arrivals.arrived();
    await answer.after;
    reply(stream, answer, apnsId);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  local.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = local.close;
  local.close = async () => {
    for (const session of sessions) session.destroy();
    await close();
  };
  return local;
}
