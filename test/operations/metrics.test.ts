/**
 * GET /metrics on the real app: who may read it, and that the counters move with the requests a
 * user makes — by route template, grant type, error, sign-in result and throttle — and that
 * the Grafana dashboard of docs/ reads only metrics the server has.
 */
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensureSuperuser } from '../../src/management/admin-users.js';
import { adminToken, createTestApp, expectRefusal, type Clock, type TestApp } from '../helpers.js';
import { basic, createTenant, token, type Tenant } from '../oauth/fixtures.js';
import { familiesOf, parseSamples, valueOf } from './scrape.js';

const METRICS_TOKEN = 'scrape-me-please-0123456789';

let t: TestApp;
let tenant: Tenant;
let root: string;
const clock: Clock = { now: Date.now() };

beforeEach(async () => {
  clock.now = Date.now();
  t = await createTestApp({ metricsToken: METRICS_TOKEN }, { now: () => clock.now });
  tenant = await createTenant(t);
  await ensureSuperuser(t.deps, 'root', 'root-password-1');
  root = await adminToken(t, 'root', 'root-password-1');
});
afterEach(() => t.close());

async function scrape(): Promise<string> {
  const res = await t.request('GET', '/metrics', { token: METRICS_TOKEN });
  expect(res.status, res.text).toBe(200);
  return res.text;
}

describe('GET /metrics: who may read it', () => {
  it('answers the metrics token and a sysadmin, in the Prometheus text format, never cached', async () => {
    // The app runs in this process: its CPU counters count from the start of the process, not of the first scrape.
    const spent = process.cpuUsage();
    for (const credential of [METRICS_TOKEN, root]) {
      const res = await t.request('GET', '/metrics', { token: credential });
      expect(res.status, res.text).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.text).toMatch(/^# HELP idp_http_request_duration_seconds /m);
      // Process metrics live in the server's own registry.
      expect(valueOf(res.text, 'process_cpu_user_seconds_total')).toBeGreaterThanOrEqual(spent.user / 1e6);
      expect(valueOf(res.text, 'process_cpu_system_seconds_total')).toBeGreaterThanOrEqual(spent.system / 1e6);
      expect(valueOf(res.text, 'process_cpu_seconds_total')).toBeGreaterThanOrEqual((spent.user + spent.system) / 1e6);
    }
  });

  it('refuses no token and a wrong one with 401, an administrator who is no sysadmin with 403', async () => {
    const none = await t.request('GET', '/metrics');
    expectRefusal(none, 401, 'unauthorized');
    expect(none.headers.get('cache-control')).toBe('no-store');
    expectRefusal(await t.request('GET', '/metrics', { token: `${METRICS_TOKEN}x` }), 401, 'unauthorized');
    expectRefusal(await t.request('GET', '/metrics', { token: METRICS_TOKEN.slice(0, -1) }), 401, 'unauthorized');
    expectRefusal(await t.request('GET', '/metrics', { headers: { authorization: basic('root', 'root-password-1') } }), 401, 'unauthorized');
    expectRefusal(await t.request('GET', '/metrics', { token: tenant.adminToken }), 403, 'forbidden');
  });

  it('has no token of its own unless --metrics-token gives one', async () => {
    const plain = await createTestApp();
    try {
      // An empty bearer is no bearer at all: without the flag nothing but a sysadmin's token opens it.
      expectRefusal(await plain.request('GET', '/metrics', { token: METRICS_TOKEN }), 401, 'unauthorized');
    } finally {
      await plain.close();
    }
  });
});

describe('GET /metrics: what it counts', () => {
  it('counts a token issued under its grant type, and a refusal under its error', async () => {
    const before = await scrape();
    const issued = await token(t, { grant_type: 'client_credentials' }, { authorization: basic(tenant.app.client_id, tenant.app.client_secret) });
    expect(issued.status, issued.text).toBe(200);
    const refused = await token(t, { grant_type: 'client_credentials' }, { authorization: basic(tenant.app.client_id, 'wrong') });
    expect(refused.status).toBe(401);
    const after = await scrape();
    const issuedCount = (text: string) => valueOf(text, 'idp_tokens_issued_total', { grant_type: 'client_credentials' });
    expect(issuedCount(after) - issuedCount(before)).toBe(1);
    const refusedCount = (text: string) => valueOf(text, 'idp_token_errors_total', { error: 'invalid_client' });
    expect(refusedCount(after) - refusedCount(before)).toBe(1);
  });

  it('labels a request with its route template, never the URL that was asked', async () => {
    const missing = await t.request('GET', '/acme/sandbox/dogs/no-such-dog-4711', { token: tenant.adminToken });
    expect(missing.status).toBe(404);
    expect((await t.request('GET', '/management/nothing-here-4711')).status).toBe(404);
    const text = await scrape();
    expect(text).not.toContain('4711');
    const requests = (route: string, status: string) => valueOf(text, 'idp_http_request_duration_seconds_count', { route, method: 'GET', status });
    expect(requests('/{orgId}/{appId}/{collection}/{entityId}', '404')).toBe(1);
    expect(requests('/management/*', '404')).toBe(1);
    // Every route label is a template of the route table, or the one name for "no route".
    const routes = new Set(parseSamples(text).flatMap((sample) => (sample.labels.route === undefined ? [] : [sample.labels.route])));
    for (const route of routes) expect(route).toMatch(/^(unmatched|\/[\w{}./*-]*)$/);
  });

  it('counts sign-ins by result and attempts the throttle refused', async () => {
    const signIn = (password: string) => t.request('POST', '/management/token', { json: { grant_type: 'password', username: 'alice', password } });
    expect((await signIn('correct-horse')).status).toBe(200);
    for (let i = 0; i < 6; i++) expect((await signIn('wrong-horse')).status).toBe(400);
    const throttled = await signIn('wrong-horse');
    expectRefusal(throttled, 429, 'too_many_requests');
    const text = await scrape();
    const signIns = (result: string) => valueOf(text, 'idp_sign_ins_total', { realm: 'admin', result });
    // alice signed in at sign-up, once more here; root once.
    expect(signIns('success')).toBe(3);
    expect(signIns('invalid_credentials')).toBe(6);
    expect(signIns('throttled')).toBe(1);
    expect(valueOf(text, 'idp_throttled_total', { kind: 'sign_in' })).toBe(1);
  });

  it('reads the push queue at scrape time: its depth and how long the oldest due delivery has waited', async () => {
    const app = '/acme/sandbox';
    const admin = { token: tenant.adminToken };
    expect((await t.request('POST', `${app}/notifiers`, { json: { name: 'dev', provider: 'noop', environment: 'development' }, ...admin })).status).toBe(200);
    const devices = Array.from({ length: 3 }, (_, i) => ({ name: `phone-${i}`, 'dev.notifier.id': `token-${i}` }));
    expect((await t.request('POST', `${app}/devices`, { json: devices, ...admin })).status).toBe(200);
    const sent = await t.request('POST', `${app}/devices/*/notifications`, { json: { payloads: { dev: 'hello' } }, ...admin });
    expect(sent.status, sent.text).toBe(200);
    // No delivery worker runs beside app.request(): the deliveries wait.
    clock.now += 90_000;
    const text = await scrape();
    expect(valueOf(text, 'idp_push_queue_depth', { provider: 'noop', state: 'queued' })).toBe(3);
    expect(valueOf(text, 'idp_push_queue_oldest_age_seconds', { provider: 'noop' })).toBeGreaterThanOrEqual(90);
  });

  it("reports the PostgreSQL pool's use, and no pool on SQLite", async () => {
    const text = await scrape();
    if (t.deps.db.$client.dialect === 'sqlite') {
      expect(text).not.toMatch(/^idp_db_pool_connections\{/m);
      return;
    }
    // The test database's pool (test/database.ts) holds 4.
    const max = valueOf(text, 'idp_db_pool_connections', { state: 'max' });
    expect(max).toBe(4);
    const open = valueOf(text, 'idp_db_pool_connections', { state: 'open' });
    expect(open).toBeGreaterThanOrEqual(1);
    expect(open).toBeLessThanOrEqual(max);
    expect(valueOf(text, 'idp_db_pool_connections', { state: 'idle' })).toBeLessThanOrEqual(open);
    expect(valueOf(text, 'idp_db_pool_connections', { state: 'waiting' })).toBe(0);
  });

  it('times the statements of the storage layer', async () => {
    const text = await scrape();
    expect(valueOf(text, 'idp_db_query_duration_seconds_count')).toBeGreaterThan(10);
    expect(valueOf(text, 'idp_db_query_duration_seconds_sum')).toBeGreaterThan(0);
  });
});

describe('docs/grafana-dashboard.json', () => {
  it('is valid JSON whose every idp_ metric is one the server exposes', async () => {
    const dashboard = JSON.parse(readFileSync('docs/grafana-dashboard.json', 'utf8'));
    const expressions: string[] = dashboard.panels.flatMap((panel: { targets?: { expr: string }[] }) => (panel.targets ?? []).map((target) => target.expr));
    expect(expressions.length).toBeGreaterThan(5);
    const families = familiesOf(await scrape());
    const used = new Set(expressions.flatMap((expr) => [...expr.matchAll(/\b((?:idp|process|nodejs)_\w+)/g)].map((match) => match[1])));
    expect(used.size).toBeGreaterThan(5);
    for (const name of used) {
      const family = name.replace(/_(bucket|sum|count)$/, '');
      expect(families.has(name) || families.has(family), `${name} is not in a scrape`).toBe(true);
    }
  });
});
