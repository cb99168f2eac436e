/**
 * Builds the real app on a fresh :memory: database (real migrations, real storage) and drives it
 * with app.request() — no port. Only CLI and end-to-end tests open sockets.
 */
import { expect } from 'vitest';
import { openTestDatabase, startTestServer } from './database.js';
import { resolveConfig, type Config, type ServeFlags } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { createDeps } from '../src/create-deps.js';
import type { Deps } from '../src/deps.js';
import { createApp } from '../server/app.js';

export interface TestApp {
  deps: Deps;
  request(method: string, path: string, options?: RequestOptions): Promise<TestResponse>;
  /** The same request, its answer unread: for bodies that are not text (an asset's bytes). */
  send(path: string, init: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

export interface RequestOptions {
  json?: unknown;
  form?: Record<string, string>;
  /** Any body: text, or FormData for a multipart upload. */
  body?: string | FormData;
  headers?: Record<string, string>;
  token?: string;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

/**
 * A test clock: build the app with `{ now: () => clock.now }` and move `now` forward to let time
 * pass (expiry, schedules, lifetimes) without waiting for it.
 */
export interface Clock {
  now: number;
}

export async function createTestApp(overrides: Partial<Config> = {}, options: { now?: () => number } = {}): Promise<TestApp> {
  const database = await openTestDatabase();
  const config: Config = {
    ...resolveConfig({ db: ':memory:', logLevel: (process.env.IDP_TEST_LOG_LEVEL as 'silent' | undefined) ?? 'silent' }, {}),
    issuer: 'http://idp.test',
    ...overrides,
  };
  const deps = await createDeps(database.db, config, createLogger(config.logLevel), options.now);
  const app = createApp(deps);
  const send = async (path: string, init: RequestInit) => app.request(`http://idp.test${path}`, init);
  return { deps, request: requestVia(send), send, close: () => database.close() };
}

/**
 * The same, but over a real `idp serve` (its own HTTP server on a free port): for what only
 * Node's response adds (server/middleware/secure-headers.ts). `flags` as `idp serve` takes them,
 * `config` over what they resolve to.
 */
export async function createServedTestApp(flags: ServeFlags = {}, config: Partial<Config> = {}): Promise<TestApp> {
  const server = await startTestServer({ port: '0', ...flags }, { config });
  const send = (path: string, init: RequestInit) => fetch(`${server.url}${path}`, { ...init, redirect: 'manual' });
  return {
    deps: server.deps,
    request: requestVia(send),
    send,
    close: () => server.close(),
  };
}

/** TestApp.request on top of `send`, which answers a path and a fetch init. */
function requestVia(send: (path: string, init: RequestInit) => Response | Promise<Response>): TestApp['request'] {
  return async (method, path, options = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    let body = options.body;
    if (options.json !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = JSON.stringify(options.json);
    } else if (options.form !== undefined) {
      headers['content-type'] ??= 'application/x-www-form-urlencoded';
      body = new URLSearchParams(options.form).toString();
    }
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    return readResponse(await send(path, { method, headers, body }));
  };
}

/** One JSON request to a server already running at `base` (a spawned `idp serve`), read as readResponse reads it. */
export async function requestServer(base: string, method: string, path: string, options: { json?: unknown; token?: string } = {}): Promise<TestResponse> {
  const headers: Record<string, string> = {};
  if (options.json !== undefined) headers['content-type'] = 'application/json';
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  return readResponse(await fetch(`${base}${path}`, { method, headers, body: options.json === undefined ? undefined : JSON.stringify(options.json) }));
}

/** requestServer, failing on any answer but 200; the answer's body. */
export async function callServer(base: string, method: string, path: string, options: { json?: unknown; token?: string } = {}): Promise<TestResponse['body']> {
  const res = await requestServer(base, method, path, options);
  if (res.status !== 200) throw new Error(`${method} ${path} → ${res.status} ${res.text}`);
  return res.body;
}

/** A response as tests read it, from app.request() or from fetch() to a server: its JSON, if any, parsed. */
export async function readResponse(response: Pick<Response, 'status' | 'headers' | 'text'>): Promise<TestResponse> {
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}

export const ORG = { organization: 'acme', username: 'alice', name: 'Alice Admin', email: 'alice@example.com', password: 'correct-horse' };

/** Creates an organization (open sign-up) and signs its admin in; returns the admin's token. */
export async function signUp(t: TestApp, org: typeof ORG = ORG): Promise<string> {
  const created = await t.request('POST', '/management/orgs', { json: org });
  if (created.status !== 200) throw new Error(`sign-up failed: ${created.text}`);
  return adminToken(t, org.username, org.password);
}

export async function adminToken(t: TestApp, username: string, password: string): Promise<string> {
  const res = await t.request('POST', '/management/token', { json: { grant_type: 'password', username, password } });
  if (res.status !== 200) throw new Error(`admin sign-in failed: ${res.text}`);
  return res.body.access_token;
}

/**
 * Every row of every table, to prove a failed request changed nothing stored. `except` names
 * tables a refusal may rightly touch (the login throttle counts a wrong password).
 */
export async function snapshot(t: Pick<TestApp, 'deps'>, options: { except?: readonly string[] } = {}): Promise<string> {
  const driver = t.deps.db.$client;
  const tables = await driver.query<{ name: string }>(
    driver.dialect === 'sqlite'
      ? `select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name`
      : `select table_name as name from information_schema.tables where table_schema = current_schema() order by table_name`,
  );
  const rows = [];
  for (const { name } of tables) {
    if (options.except?.includes(name)) continue;
    // Every row, in an order of the whole row: `order by 1` alone leaves rows that share their
    // first column (a user's recovery codes) in whatever order the plan of the moment gives.
    const keyed = (await driver.query(`select * from "${name}"`)).map((row) => [JSON.stringify(row), row] as const);
    rows.push([name, keyed.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row)]);
  }
  return JSON.stringify(rows);
}

/**
 * A refusal as a client sees it: the status and the error's wire name, with a description
 * (docs/api.md, "Errors"). Every test of a refused request asserts through this one helper, so
 * no test accepts "some 4xx".
 */
export function expectRefusal(res: TestResponse, status: number, error: string): void {
  expect(res.status, res.text).toBe(status);
  expect(res.body?.error, res.text).toBe(error);
  expectErrorBody(res);
}

/**
 * The error body every refusal has (docs/api.md, "Errors"), whatever its error: a snake_case
 * `error` with a description, and `code` and `message` agreeing with them where present.
 */
export function expectErrorBody(res: TestResponse): void {
  expect(res.body?.error, res.text).toMatch(/^[a-z][a-z0-9_]*$/);
  expect(typeof res.body.error_description, res.text).toBe('string');
  // The management and data APIs add Usergrid's code and message; OAuth endpoints answer RFC 6749 5.2's pair only.
  if ('code' in res.body) {
    expect(res.body.code, res.text).toBe(res.status);
    expect(res.body.message, res.text).toBe(res.body.error_description);
  }
}

/** An OAuth endpoint's refusal (RFC 6749 5.2): the error, a description, and never cached. */
export function expectOAuthError(res: TestResponse, status: number, error: string): void {
  expectRefusal(res, status, error);
  expect(res.headers.get('cache-control')).toBe('no-store');
}

/**
 * Sends a request that must be refused and proves it wrote nothing: every table holds the same
 * rows after as before. Returns the response for further checks. `t` is a test app or a server
 * running in this process (both carry their deps).
 */
export async function expectRefusedUnchanged(
  t: Pick<TestApp, 'deps'>,
  send: () => Promise<TestResponse>,
  status: number,
  error: string,
  options: { except?: readonly string[] } = {},
): Promise<TestResponse> {
  const before = await snapshot(t, options);
  const res = await send();
  expectRefusal(res, status, error);
  expect(await snapshot(t, options), `${status} ${error} must leave every table unchanged`).toBe(before);
  return res;
}

/**
 * A refusal that names exactly `fields`, in `fields` and in the message (docs/api.md, "Errors":
 * `fields` names each offending field).
 */
export function expectFieldsNamed(res: TestResponse, ...fields: string[]): void {
  expect(Object.keys(res.body.fields).sort(), res.text).toEqual([...fields].sort());
  for (const field of fields) expect(res.body.error_description).toContain(field);
}

/**
 * Each field of a user record that only the server or an administrator sets, with a value a user
 * might try to give it (docs/api.md, "Entities").
 */
export const RESERVED_USER_FIELDS: Readonly<Record<string, unknown>> = {
  adminUser: true,
  roles: ['admin'],
  activated: true,
  disabled: false,
  uuid: '0190f4c2-0000-7000-8000-00000000beef',
  type: 'admin',
  created: 0,
  modified: 0,
  metadata: { path: '/users/root' },
  passwordHash: 'scrypt$forged',
  credentials: { password: 'forged' },
  phone_number_verified: true,
};
