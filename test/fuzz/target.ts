/**
 * What the fuzz suite aims at: a real server (a port, on the test database) holding one of
 * everything a path can name — organization acme and its admin alice, application sandbox, the
 * app user fred, the dog rex that likes the bone, group pack, role walker, an OAuth client, an
 * identity provider, a notifier, a device, notifications and a receipt — and the tokens of its
 * callers. A fuzzed request the server accepts may change or delete any of it (that is what an
 * admin may do), so after each accepted write the fixture is put back as it was, by a sysadmin.
 */
import { request as httpRequest } from 'node:http';
import { createApp } from '../../server/app.js';
import type { RunningServer } from '../../server/serve.js';
import { startTestServer } from '../database.js';
import { ORG, readResponse, type TestResponse } from '../helpers.js';
import type { Caller, FuzzRequest, Operation, Reality } from './generate.js';

const SYSADMIN = { username: 'root', password: 'fuzz-sysadmin-password' };
const FRED = { username: 'fred', email: 'fred@example.com', password: 'sesame-street' };
const APP = '/acme/sandbox';

/** A response as the fuzz suite reads it: the test response, and its headers as sent. */
export interface Answer extends TestResponse {
  rawHeaders: string[];
}

/** One thing of the fixture: how to see it is there, and how to make it again. */
interface Piece {
  check: string;
  make: [method: string, path: string, body?: unknown][];
}

// In order: what a later piece is made in or points at comes first.
const PIECES: Piece[] = [
  { check: '/management/orgs/acme', make: [['POST', '/management/orgs', ORG]] },
  { check: '/management/users/alice', make: [['PUT', '/management/users/{alice}', { username: ORG.username, email: ORG.email, name: ORG.name }]] },
  { check: '/management/orgs/acme/users/alice', make: [['PUT', '/management/orgs/acme/users/{alice}']] },
  { check: `/management/orgs/acme/apps/sandbox/credentials`, make: [['POST', '/management/orgs/acme/apps', { name: 'sandbox' }]] },
  { check: `${APP}/users/fred`, make: [['POST', `${APP}/users`, FRED]] },
  { check: `${APP}/dogs/rex`, make: [['POST', `${APP}/dogs`, { name: 'rex', age: 3 }]] },
  { check: `${APP}/dogs/spot`, make: [['POST', `${APP}/dogs`, { name: 'spot', age: 5 }]] },
  { check: `${APP}/bones/bone`, make: [['POST', `${APP}/bones`, { name: 'bone' }]] },
  { check: `${APP}/dogs/rex/likes/bones/bone`, make: [['POST', `${APP}/dogs/rex/likes/bones/bone`]] },
  { check: `${APP}/groups/pack`, make: [['POST', `${APP}/groups`, { path: 'pack' }]] },
  { check: `${APP}/groups/pack/users/fred`, make: [['POST', `${APP}/groups/pack/users/fred`]] },
  { check: `${APP}/roles/walker`, make: [['POST', `${APP}/roles`, { name: 'walker', title: 'Walker' }]] },
  { check: `${APP}/roles/walker/users/fred`, make: [['POST', `${APP}/roles/walker/users/fred`]] },
  { check: `${APP}/notifiers/dev`, make: [['POST', `${APP}/notifiers`, { name: 'dev', provider: 'noop', environment: 'development' }]] },
  { check: `${APP}/devices/phone`, make: [['POST', `${APP}/devices`, { name: 'phone', 'dev.notifier.id': 'phone-token' }]] },
  { check: `${APP}/users/fred/devices/phone`, make: [['POST', `${APP}/users/fred/devices/phone`]] },
  {
    check: '/management/orgs/acme/apps/sandbox/identity-providers/corp',
    make: [['POST', '/management/orgs/acme/apps/sandbox/identity-providers', { name: 'corp', issuer: 'https://corp.example', client_id: 'sandbox' }]],
  },
];

/** The uuids of the fixture's things, read again after every repair (a thing made again has a new one). */
interface Uuids {
  org: string;
  app: string;
  alice: string;
  fred: string;
  rex: string;
  bone: string;
  pack: string;
  dev: string;
  phone: string;
  notification: string;
  receipt: string;
  client: string;
}

export interface FuzzTarget {
  server: RunningServer;
  /** Path parameters naming the fixture's things (names and uuids), and strings that mean something here. */
  reality: Reality;
  send(request: FuzzRequest, timeoutMs: number): Promise<Answer>;
  /** After a request the server accepted: wait for the push worker, then make again what the request changed of the fixture. */
  settle(request: FuzzRequest): Promise<void>;
  close(): Promise<void>;
}

export async function startFuzzTarget(): Promise<FuzzTarget> {
  const server = await startTestServer({ port: '0', superuser: `${SYSADMIN.username}:${SYSADMIN.password}` });
  const app = createApp(server.deps);
  // The fixture is made and repaired in this process (not through the socket the fuzzer uses),
  // so the password throttle of the fuzzer's address never stands in its way.
  const local = async (method: string, path: string, token?: string, json?: unknown): Promise<TestResponse> => {
    const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
    if (json !== undefined) headers['content-type'] = 'application/json';
    return readResponse(await app.request(`http://idp.test${path}`, { method, headers, body: json === undefined ? undefined : JSON.stringify(json) }));
  };
  const must = async (method: string, path: string, token?: string, json?: unknown) => {
    const res = await local(method, path, token, json);
    if (res.status !== 200) throw new Error(`fuzz fixture: ${method} ${path} → ${res.status} ${res.text}`);
    return res.body;
  };
  const signIn = async (path: string, username: string, password: string) =>
    (await must('POST', path, undefined, { grant_type: 'password', username, password })).access_token as string;

  const sysadmin = await signIn('/management/token', SYSADMIN.username, SYSADMIN.password);
  const tokens: Record<Caller, string | undefined> = { admin: undefined, 'app user': undefined, none: undefined };
  const uuids = {} as Uuids;
  let clientId = '';

  async function repair(): Promise<void> {
    let made = false;
    for (const piece of PIECES) {
      if ((await local('GET', piece.check, sysadmin)).status === 200) continue;
      for (const [method, path, body] of piece.make) await must(method, path.replace('{alice}', uuids.alice), sysadmin, body);
      made = true;
    }
    const there = async (path: string) => (await local('GET', path, sysadmin)).status === 200;
    if (made || uuids.app === undefined || !(await there(`/management/orgs/acme/apps/sandbox/clients/${clientId}`))) await readUuids();
    else if (!(await there(`${APP}/notifications/${uuids.notification}`)) || !(await there(`${APP}/receipts/${uuids.receipt}`))) await notificationAndReceipt();
    const fred = await local('GET', `${APP}/users/me`, tokens['app user']);
    if (fred.status !== 200) {
      await must('PUT', `${APP}/users/fred`, sysadmin, { activated: true, disabled: false, email: FRED.email });
      await must('PUT', `${APP}/users/fred/password`, sysadmin, { newpassword: FRED.password });
      tokens['app user'] = await signIn(`${APP}/token`, FRED.username, FRED.password);
    }
    if ((await local('GET', '/management/orgs/acme/apps/sandbox/credentials', tokens.admin)).status !== 200) {
      tokens.admin = await signIn('/management/token', ORG.username, ORG.password);
    }
  }

  async function readUuids(): Promise<void> {
    const uuidOf = async (path: string) => (await must('GET', path, sysadmin)).entities[0].uuid as string;
    Object.assign(uuids, {
      org: await uuidOf('/management/orgs/acme'),
      app: (await must('GET', APP, sysadmin)).application as string,
      alice: await uuidOf('/management/users/alice'),
      fred: await uuidOf(`${APP}/users/fred`),
      rex: await uuidOf(`${APP}/dogs/rex`),
      bone: await uuidOf(`${APP}/bones/bone`),
      pack: await uuidOf(`${APP}/groups/pack`),
      dev: await uuidOf(`${APP}/notifiers/dev`),
      phone: await uuidOf(`${APP}/devices/phone`),
    });
    const clients = (await must('GET', '/management/orgs/acme/apps/sandbox/clients', sysadmin)).entities as { client_id: string }[];
    if (clients.length === 0) {
      const made = await must('POST', '/management/orgs/acme/apps/sandbox/clients', sysadmin, {
        client_name: 'web',
        redirect_uris: ['https://web.example/cb'],
      });
      clients.push(made.entities[0]);
    }
    clientId = clients[0].client_id;
    await notificationAndReceipt();
  }

  /** A notification due tomorrow (still to be sent) and a receipt of one that was sent. */
  async function notificationAndReceipt(): Promise<void> {
    const pending = (await must('GET', `${APP}/notifications?ql=${encodeURIComponent("select * where state = 'SCHEDULED'")}`, sysadmin)).entities;
    uuids.notification =
      pending[0]?.uuid ??
      (await must('POST', `${APP}/devices/phone/notifications`, sysadmin, { payloads: { dev: 'later' }, deliver: Date.now() + 86_400_000 })).entities[0].uuid;
    let receipts = (await must('GET', `${APP}/receipts`, sysadmin)).entities;
    if (receipts.length === 0) {
      await must('POST', `${APP}/devices/phone/notifications`, sysadmin, { payloads: { dev: 'now' } });
      await server.deliveriesIdle();
      receipts = (await must('GET', `${APP}/receipts`, sysadmin)).entities;
    }
    uuids.receipt = receipts[0]?.uuid ?? '00000000-0000-4000-8000-000000000000';
  }

  await must('POST', '/management/orgs', sysadmin, ORG);
  tokens.admin = await signIn('/management/token', ORG.username, ORG.password);
  uuids.alice = (await must('GET', '/management/users/alice', sysadmin)).entities[0].uuid;
  await repair();
  await must('POST', `${APP}/users/fred/permissions`, sysadmin, { permission: 'get:/cats/**' });
  const cursors = [];
  for (const ql of [undefined, 'select * order by age desc', 'select * order by name', 'select * where age > 0 order by created asc, color desc']) {
    const page = await must('GET', `${APP}/dogs?limit=1${ql === undefined ? '' : `&ql=${encodeURIComponent(ql)}`}`, sysadmin);
    cursors.push({ ql, payload: JSON.parse(Buffer.from(page.cursor, 'base64url').toString()) });
  }
  await must('POST', `${APP}/users/fred/activities`, sysadmin, { verb: 'post', content: 'hello', actor: { displayName: 'fred' } });

  return {
    server,
    reality: {
      params: (op) => realParams(op, uuids, clientId),
      cursors,
      get values() {
        return [
          ...Object.values(tokens).filter((token) => token !== undefined),
          clientId,
          'https://web.example/cb',
          FRED.username,
          FRED.email,
          FRED.password,
          ORG.username,
          ORG.email,
          server.url,
          'openid profile email offline_access api',
          'code id_token',
          'S256',
          'tenant:acme',
          'idp:corp',
          'urn:ietf:params:oauth:token-type:access_token',
          'get,put,post,delete:/**',
          "select * where name = 'rex'",
          uuids.rex,
          uuids.notification,
        ];
      },
    },
    send: (request, timeoutMs) => send(server, request, tokens, timeoutMs),
    async settle(request) {
      if (request.method === 'GET') return;
      // Only a push route queues deliveries; waiting for the worker costs a poll interval.
      const push = /notif|devices/i.test(request.path);
      if (push) await server.deliveriesIdle();
      await repair();
      if (push) await server.deliveriesIdle();
    },
    close: () => server.close(),
  };
}

const encode = (values: Record<string, string>) => Object.fromEntries(Object.entries(values).map(([k, v]) => [k, encodeURIComponent(v)]));

/** Data API paths that fit together: a collection, one of its entities, a relation and what it leads to. */
function scenes(u: Uuids): Record<string, string>[] {
  return [
    { collection: 'dogs', entityId: 'rex', relation: 'likes', type: 'bones', entityId2: 'bone' },
    { collection: 'dog', entityId: u.rex, relation: 'likes', type: 'bones', entityId2: u.bone },
    { collection: 'users', entityId: 'fred', relation: 'devices', type: 'devices', entityId2: 'phone' },
    { collection: 'users', entityId: 'me', relation: 'permissions', type: 'users', entityId2: 'fred' },
    { collection: 'users', entityId: u.fred, relation: 'activities', type: 'activities', entityId2: 'x' },
    { collection: 'users', entityId: 'fred', relation: 'feed', type: 'groups', entityId2: 'pack' },
    { collection: 'groups', entityId: 'pack', relation: 'users', type: 'users', entityId2: 'fred' },
    { collection: 'roles', entityId: 'walker', relation: 'users', type: 'users', entityId2: FRED.email },
    { collection: 'devices', entityId: 'phone', relation: 'notifications', type: 'notifiers', entityId2: 'dev' },
    { collection: 'dogs', entityId: 'rex', relation: 'connecting', type: 'likes', entityId2: 'bone' },
  ];
}

function realParams(op: Operation, u: Uuids, clientId: string): Record<string, string>[] {
  const management = op.template.startsWith('/management');
  const id = /notifiers\/\{id\}/.test(op.template)
    ? ['dev', u.dev]
    : /notifications\/\{id\}/.test(op.template)
      ? [u.notification]
      : /receipts\/\{id\}/.test(op.template)
        ? [u.receipt]
        : [u.phone, u.notification, u.receipt, 'phone'];
  const options: Record<string, string[]> = {
    orgId: ['acme', u.org],
    appId: ['sandbox', u.app],
    userId: management ? ['alice', ORG.email, u.alice] : ['fred', 'me', u.fred, FRED.email],
    clientId: [clientId],
    providerId: ['corp'],
    deviceId: ['phone', u.phone, '*'],
    groupId: ['pack', u.pack],
    asset: ['swagger-ui.css'],
    id,
  };
  const scene = op.pathParams.includes('collection') ? scenes(u) : [{}];
  // As many assignments as the longest list of choices; each parameter cycles through its own.
  const count = Math.max(scene.length, ...op.pathParams.map((name) => options[name]?.length ?? 1));
  return Array.from({ length: count }, (_, i) => {
    const values: Record<string, string> = { ...scene[i % scene.length] };
    for (const name of op.pathParams) if (options[name]) values[name] = options[name][i % options[name].length];
    return encode(Object.fromEntries(op.pathParams.map((name) => [name, values[name] ?? name])));
  });
}

/**
 * Sends the request byte for byte (node:http with a `path`: nothing resolves or re-encodes it), on
 * a connection of its own: a kept-alive one the server closes as idle while a request is written
 * to it would look like a connection the server dropped.
 */
function send(server: RunningServer, request: FuzzRequest, tokens: Record<Caller, string | undefined>, timeoutMs: number): Promise<Answer> {
  const { hostname, port } = new URL(server.url);
  const headers: Record<string, string> = { ...request.headers };
  const token = tokens[request.caller];
  if (token !== undefined && headers.authorization === undefined) headers.authorization = `Bearer ${token}`;
  if (request.body !== undefined && headers['transfer-encoding'] === undefined) headers['content-length'] = String(request.body.length);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({ hostname, port, method: request.method, path: request.path, headers, agent: false, timeout: timeoutMs }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.once('error', reject);
      incoming.once('end', async () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const answer = await readResponse({ status: incoming.statusCode ?? 0, headers: headersOf(incoming.rawHeaders), text: async () => text });
        resolve({ ...answer, rawHeaders: incoming.rawHeaders });
      });
    });
    outgoing.once('timeout', () => outgoing.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    outgoing.once('error', reject);
    outgoing.end(request.body);
  });
}

/** The headers a web Headers object can hold (it refuses some bytes a socket may carry). */
function headersOf(raw: string[]): Headers {
  const headers = new Headers();
  for (let i = 0; i + 1 < raw.length; i += 2) {
    try {
      headers.append(raw[i], raw[i + 1]);
    } catch {
      // rawHeaders keeps it for the checks.
    }
  }
  return headers;
}
