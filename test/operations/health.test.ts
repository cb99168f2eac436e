/**
 * GET /healthz and GET /readyz: what a load balancer sees when all is well, and when the
 * database stops answering — a closed SQLite handle, and a PostgreSQL server behind a TCP proxy
 * that refuses connections, then accepts them and never answers, then forwards them again.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config.js';
import type { SqliteDriver } from '../../src/db/sqlite.js';
import { startServer, type RunningServer } from '../../server/serve.js';
import { POSTGRES_URL, postgresProblem, TEST_DATABASE_URL } from '../database.js';
import { createTestApp, expectRefusal, readResponse, type TestApp } from '../helpers.js';

const postgres = await postgresProblem();
if (postgres !== undefined) console.warn(`test/operations/health: the PostgreSQL outage test is skipped: ${postgres}`);

describe('on the test database', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await createTestApp();
  });
  afterEach(() => t.close());

  it('answers /healthz and /readyz with 200 {"status":"ok"}, without a token, never cached', async () => {
    for (const path of ['/healthz', '/readyz']) {
      const res = await t.request('GET', path);
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual({ status: 'ok' });
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
  });

  it('documents both, and /metrics, in /openapi.json', async () => {
    const doc = (await t.request('GET', '/openapi.json')).body;
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/healthz', '/readyz', '/metrics']));
    expect(doc.paths['/readyz'].get.responses['503']).toBeDefined();
  });

  it.skipIf(TEST_DATABASE_URL !== undefined)('says 503 on /readyz, and why, once the SQLite handle is closed; /healthz stays 200', async () => {
    (t.deps.db.$client as SqliteDriver).sqlite.close();
    const res = await t.request('GET', '/readyz');
    expectRefusal(res, 503, 'temporarily_unavailable');
    expect(res.body.error_description).toMatch(/^not ready: the database does not answer/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect((await t.request('GET', '/healthz')).status).toBe(200);
  });
});

/** A TCP proxy to PostgreSQL that can forward, refuse (closed port) or swallow (a hung server). */
async function startProxy(target: URL): Promise<{ port: number; mode(next: 'forward' | 'refuse' | 'swallow'): Promise<void>; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let mode: 'forward' | 'swallow' = 'forward';
  let server: Server | undefined;
  let port = 0;
  const listen = () =>
    new Promise<void>((resolve) => {
      server = createServer((client) => {
        sockets.add(client);
        client.on('close', () => sockets.delete(client));
        client.on('error', () => undefined);
        if (mode === 'swallow') return;
        const upstream = connect(Number(target.port || 5432), target.hostname);
        sockets.add(upstream);
        upstream.on('close', () => sockets.delete(upstream));
        upstream.on('error', () => client.destroy());
        client.pipe(upstream).pipe(client);
      });
      server.listen(port, '127.0.0.1', () => {
        port = (server!.address() as AddressInfo).port;
        resolve();
      });
    });
  const stop = async () => {
    for (const socket of sockets) socket.destroy();
    if (server) await new Promise<void>((resolve) => server!.close(() => resolve()));
    server = undefined;
  };
  await listen();
  return {
    port,
    async mode(next) {
      await stop();
      if (next === 'refuse') return;
      mode = next;
      await listen();
    },
    close: stop,
  };
}

describe.skipIf(postgres !== undefined)('on PostgreSQL behind a proxy', () => {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  let server: RunningServer;
  let proxy: Awaited<ReturnType<typeof startProxy>>;

  beforeEach(async () => {
    const target = new URL(TEST_DATABASE_URL ?? POSTGRES_URL);
    proxy = await startProxy(target);
    const url = new URL(target);
    url.host = `127.0.0.1:${proxy.port}`;
    url.searchParams.set('options', `-c search_path=${schema}`);
    server = await startServer(resolveConfig({ port: '0', logLevel: 'silent', databasePoolSize: '2', databaseUrl: url.toString() }, {}));
  });
  afterEach(async () => {
    await proxy.mode('forward');
    await server.close();
    await proxy.close();
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL ?? POSTGRES_URL });
    await client.connect();
    await client.query(`drop schema if exists "${schema}" cascade`);
    await client.end();
  });

  const readyz = async () => readResponse(await fetch(`${server.url}/readyz`));

  it('says 503 while the server refuses connections or does not answer, within seconds, and 200 again once it is back', async () => {
    expect((await readyz()).status).toBe(200);

    await proxy.mode('refuse');
    const refused = await readyz();
    expectRefusal(refused, 503, 'temporarily_unavailable');
    expect(refused.body.error_description).toMatch(/^not ready: the database does not answer \((ECONNREFUSED|ECONNRESET|57P01|.*terminated.*)\)$/);

    await proxy.mode('swallow');
    const started = Date.now();
    const hung = await readyz();
    expectRefusal(hung, 503, 'temporarily_unavailable');
    expect(hung.body.error_description).toBe('not ready: the database did not answer within 2000 ms');
    expect(Date.now() - started).toBeLessThan(5000);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);

    await proxy.mode('forward');
    expect((await readyz()).status).toBe(200);
  });
});
