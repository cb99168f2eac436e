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

/**
 * The fixture, made and repaired in this process through the app itself (not through the socket
 * the fuzzer uses), so the password throttle of the fuzzer's address never stands in its way.
 */
class Fixture {
  readonly tokens: Record<Caller, string | undefined> = { admin: undefined, 'app user': undefined, none: undefined };
  readonly uuids = {} as Uuids;
  readonly cursors: Reality['cursors'][number][] = [];
  clientId = '';
  private sysadmin = '';
  private readonly app: ReturnType<typeof createApp>;

  constructor(readonly server: RunningServer) {
    this.app = createApp(server.deps);
  }

  async local(method: string, path: string, token?: string, json?: unknown): Promise<TestResponse> {
    const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
    if (json !== undefined) headers['content-type'] = 'application/json';
    const body = json === undefined ? undefined : JSON.stringify(json);
    return readResponse(await this.app.request(`http://idp.test${path}`, { method, headers, body }));
  }

  /** A request of the sysadmin that must succeed; its body. */
  async must(method: string, path: string, json?: unknown, token = this.sysadmin) {
    const res = await this.local(method, path, token, json);
    if (res.status !== 200) throw new Error(`fuzz fixture: ${method} ${path} → ${res.status} ${res.text}`);
    return res.body;
  }

  async signIn(path: string, username: string, password: string): Promise<string> {
    return (await this.must('POST', path, { grant_type: 'password', username, password }, '')).access_token;
  }

  async make(): Promise<void> {
    this.sysadmin = await this.signIn('/management/token', SYSADMIN.username, SYSADMIN.password);
    await this.must('POST', '/management/orgs', ORG);
    this.tokens.admin = await this.signIn('/management/token', ORG.username, ORG.password);
    this.uuids.alice = (await this.must('GET', '/management/users/alice')).entities[0].uuid;
    await this.repair();
    await this.must('POST', `${APP}/users/fred/permissions`, { permission: 'get:/cats/**' });
    await this.must('POST', `${APP}/users/fred/activities`, { verb: 'post', content: 'hello', actor: { displayName: 'fred' } });
    for (const ql of [undefined, 'select * order by age desc', 'select * order by name', 'select * where age > 0 order by created asc, color desc']) {
      const page = await this.must('GET', `${APP}/dogs?limit=1${ql === undefined ? '' : `&ql=${encodeURIComponent(ql)}`}`);
      this.cursors.push({ ql, payload: JSON.parse(Buffer.from(page.cursor, 'base64url').toString()) });
    }
  }

  /** Makes again what is missing, and signs the callers in again where their tokens stopped working. */
  async repair(): Promise<void> {
    let made = false;
    for (const piece of PIECES) {
      if ((await this.local('GET', piece.check, this.sysadmin)).status === 200) continue;
      for (const [method, path, body] of piece.make) await this.must(method, path.replace('{alice}', this.uuids.alice), body);
      made = true;
    }
    const there = async (path: string) => (await this.local('GET', path, this.sysadmin)).status === 200;
    const { notification, receipt } = this.uuids;
    if (made || this.uuids.app === undefined || !(await there(`/management/orgs/acme/apps/sandbox/clients/${this.clientId}`))) await this.readUuids();
    else if (!(await there(`${APP}/notifications/${notification}`)) || !(await there(`${APP}/receipts/${receipt}`))) await this.notificationAndReceipt();
    if ((await this.local('GET', `${APP}/users/me`, this.tokens['app user'])).status !== 200) {
      await this.must('PUT', `${APP}/users/fred`, { activated: true, disabled: false, email: FRED.email });
      await this.must('PUT', `${APP}/users/fred/password`, { newpassword: FRED.password });
      this.tokens['app user'] = await this.signIn(`${APP}/token`, FRED.username, FRED.password);
    }
    if ((await this.local('GET', '/management/orgs/acme/apps/sandbox/credentials', this.tokens.admin)).status !== 200) {
      this.tokens.admin = await this.signIn('/management/token', ORG.username, ORG.password);
    }
  }

  private async readUuids(): Promise<void> {
    const uuidOf = async (path: string) => (await this.must('GET', path)).entities[0].uuid as string;
    Object.assign(this.uuids, {
      org: await uuidOf('/management/orgs/acme'),
      app: (await this.must('GET', APP)).application as string,
      alice: await uuidOf('/management/users/alice'),
      fred: await uuidOf(`${APP}/users/fred`),
      rex: await uuidOf(`${APP}/dogs/rex`),
      bone: await uuidOf(`${APP}/bones/bone`),
      pack: await uuidOf(`${APP}/groups/pack`),
      dev: await uuidOf(`${APP}/notifiers/dev`),
      phone: await uuidOf(`${APP}/devices/phone`),
    });
    const clients = (await this.must('GET', '/management/orgs/acme/apps/sandbox/clients')).entities as { client_id: string }[];
    if (clients.length === 0) {
      const web = { client_name: 'web', redirect_uris: ['https://web.example/cb'] };
      clients.push((await this.must('POST', '/management/orgs/acme/apps/sandbox/clients', web)).entities[0]);
    }
    this.clientId = clients[0].client_id;
    await this.notificationAndReceipt();
  }

  /** A notification due tomorrow (still to be sent) and a receipt of one that was sent. */
  private async notificationAndReceipt(): Promise<void> {
    const pending = (await this.must('GET', `${APP}/notifications?ql=${encodeURIComponent("select * where state = 'SCHEDULED'")}`)).entities;
    const later = { payloads: { dev: 'later' }, deliver: Date.now() + 86_400_000 };
    this.uuids.notification = pending[0]?.uuid ?? (await this.must('POST', `${APP}/devices/phone/notifications`, later)).entities[0].uuid;
    let receipts = (await this.must('GET', `${APP}/receipts`)).entities;
    if (receipts.length === 0) {
      await this.must('POST', `${APP}/devices/phone/notifications`, { payloads: { dev: 'now' } });
      await this.server.deliveriesIdle();
      receipts = (await this.must('GET', `${APP}/receipts`)).entities;
    }
    this.uuids.receipt = receipts[0]?.uuid ?? '00000000-0000-4000-8000-000000000000';
  }

  /** Strings that mean something here, for request bodies. */
  values(): string[] {
    const { tokens, clientId, uuids } = this;
    return [
      ...Object.values(tokens).filter((token) => token !== undefined),
      clientId,
      'https://web.example/cb',
      FRED.username,
      FRED.email,
      FRED.password,
      ORG.username,
      ORG.email,
      this.server.url,
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
  }
}

export async function startFuzzTarget(): Promise<FuzzTarget> {
  const server = await startTestServer({ port: '0', superuser: `${SYSADMIN.username}:${SYSADMIN.password}` });
  const fixture = new Fixture(server);
  await fixture.make();
  return {
    server,
    reality: {
      params: (op) => realParams(op, fixture.uuids, fixture.clientId),
      cursors: fixture.cursors,
      get values() {
        return fixture.values();
      },
    },
    send: (request, timeoutMs) => send(server, request, fixture.tokens, timeoutMs),
    async settle(request) {
      if (request.method === 'GET') return;
      // Only a push route queues deliveries; waiting for the worker costs a poll interval.
      const push = /notif|devices/i.test(request.path);
      if (push) await server.deliveriesIdle();
      await fixture.repair();
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
