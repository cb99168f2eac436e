/**
 * The security headers every response of `idp serve` carries: added where the HTTP server is
 * made (server/middleware/secure-headers.ts), and by the app itself for a request that does not
 * come through that server, so a real server and `app.request()` answer with the same ones.
 * Strict-Transport-Security only when the issuer is https.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSecureServer } from '../../server/middleware/secure-headers.js';
import { startTestServer } from '../database.js';
import { createTestApp, expectOAuthError, expectRefusal, readResponse, type TestResponse } from '../helpers.js';

const EXPECTED: Record<string, string> = {
  'cross-origin-opener-policy': 'same-origin',
  'origin-agent-cluster': '?1',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-frame-options': 'DENY',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
};
const HSTS = { 'strict-transport-security': 'max-age=15552000; includeSubDomains' };

type Send = (method: string, path: string, init?: { headers?: Record<string, string>; body?: string }) => Promise<TestResponse>;
type Target = { send: Send; close: () => Promise<void> };

/** A real `idp serve` (its Node responses add the headers), or the app alone through app.request(). */
const TARGETS: [string, (issuer?: string) => Promise<Target>][] = [
  [
    'a real server',
    async (issuer) => {
      const server = await startTestServer({ port: '0', ...(issuer && { issuer }) });
      return {
        send: async (method, path, init) => readResponse(await fetch(`${server.url}${path}`, { method, redirect: 'manual', ...init })),
        close: () => server.close(),
      };
    },
  ],
  [
    'app.request()',
    async (issuer) => {
      const t = await createTestApp(issuer ? { issuer } : {});
      return { send: (method, path, init) => t.request(method, path, init), close: async () => t.close() };
    },
  ],
];

describe.each(TARGETS)('security headers from %s', (_, open) => {
  let target: Target;
  beforeAll(async () => {
    target = await open();
  });
  afterAll(() => target.close());

  const request = (method: string, path: string) =>
    target.send(
      method,
      path,
      method === 'POST' ? { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=client_credentials&client_id=nobody' } : {},
    );

  // A success, an error from onError, an OAuth error with its own headers, a page, and a path refused before routing.
  it.each([
    ['GET', '/status', (response: TestResponse) => expect(response.status).toBe(200)],
    ['GET', '/no/such/thing/here', (response: TestResponse) => expectRefusal(response, 404, 'organization_not_found')],
    ['POST', '/connect/token', (response: TestResponse) => expectOAuthError(response, 401, 'invalid_client')],
    [
      'GET',
      '/connect/authorize?client_id=nobody',
      (response: TestResponse) => expect([response.status, response.text]).toEqual([400, expect.stringContaining('data-error="unknown_client"')]),
    ],
    ['GET', '/acme/app/dogs/a%2Fb', (response: TestResponse) => expectRefusal(response, 400, 'invalid_path')],
  ])('%s %s carries every one, once, and no Cross-Origin-Resource-Policy nor HSTS over http', async (method, path, answered) => {
    const response = await request(method, path);
    answered(response);
    // One value each: a header set both by the server and by a page is not sent twice.
    for (const [name, value] of Object.entries(EXPECTED)) expect(response.headers.get(name), name).toBe(value);
    expect(response.headers.get('cross-origin-resource-policy')).toBeNull();
    expect(response.headers.get('strict-transport-security')).toBeNull();
  });

  it('keeps the headers a response sets itself: a page its Content-Security-Policy and no-store', async () => {
    const page = await target.send('GET', '/connect/authorize?client_id=nobody');
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.headers.get('cache-control')).toContain('no-store');
  });
});

describe.each(TARGETS)('security headers from %s whose issuer is https', (_, open) => {
  // The issuer is where clients reach the server: behind a proxy that ends TLS, the server itself speaks http.
  let target: Target;
  beforeAll(async () => {
    target = await open('https://idp.example');
  });
  afterAll(() => target.close());

  it.each([
    ['/status', 200],
    ['/no/such/thing/here', 404],
  ])('GET %s carries Strict-Transport-Security besides every other one', async (path, status) => {
    const response = await target.send('GET', path);
    expect(response.status).toBe(status);
    for (const [name, value] of Object.entries({ ...EXPECTED, ...HSTS })) expect(response.headers.get(name), name).toBe(value);
  });
});

/** Status, status text and raw header lines (duplicates kept) of one GET to a server running `listener` (with HSTS). */
async function rawResponse(listener: RequestListener): Promise<{ status: number; message: string; lines: [string, string][] }> {
  const server = createSecureServer(listener, { hsts: true });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  try {
    const { port } = server.address() as AddressInfo;
    return await new Promise((resolve, reject) => {
      get(`http://127.0.0.1:${port}/`, (response) => {
        const lines: [string, string][] = [];
        for (let index = 0; index < response.rawHeaders.length; index += 2)
          lines.push([response.rawHeaders[index].toLowerCase(), response.rawHeaders[index + 1]]);
        response.resume();
        response.on('end', () => resolve({ status: response.statusCode ?? 0, message: response.statusMessage ?? '', lines }));
      }).on('error', reject);
    });
  } finally {
    await new Promise((done) => server.close(done));
  }
}

function valuesOf(lines: [string, string][], name: string): string[] {
  return lines.filter(([key]) => key === name).map(([, value]) => value);
}

describe('security headers as the response writes its head', () => {
  it.each<[string, RequestListener, Record<string, string[]>]>([
    [
      'an object of headers, one overriding a default in another case',
      (_, res) => {
        res.writeHead(200, { 'x-frame-options': 'SAMEORIGIN', 'Content-Type': 'text/plain' });
        res.end('ok');
      },
      { 'x-frame-options': ['SAMEORIGIN'], 'content-type': ['text/plain'] },
    ],
    [
      'a header set before the head is written implicitly',
      (_, res) => {
        res.setHeader('Referrer-Policy', 'origin');
        res.end('ok');
      },
      { 'referrer-policy': ['origin'] },
    ],
    [
      'a flat list keeping its own duplicates',
      (_, res) => {
        res.writeHead(200, ['Set-Cookie', 'a=1', 'Set-Cookie', 'b=2', 'X-XSS-Protection', '1']);
        res.end();
      },
      { 'set-cookie': ['a=1', 'b=2'], 'x-xss-protection': ['1'] },
    ],
  ])('%s: its own values win, every default is there once', async (_, listener, own) => {
    const { status, lines } = await rawResponse(listener);
    expect(status).toBe(200);
    for (const [name, value] of Object.entries({ ...EXPECTED, ...HSTS })) expect(valuesOf(lines, name), name).toEqual(own[name] ?? [value]);
    for (const [name, values] of Object.entries(own)) expect(valuesOf(lines, name), name).toEqual(values);
  });

  it('adds Cache-Control: no-store to a response marked no-store, unless it has a Cache-Control of its own', async () => {
    const marked =
      (own: Record<string, string>): RequestListener =>
      (_, res) => {
        (res as { noStore?: boolean }).noStore = true;
        res.writeHead(200, own);
        res.end();
      };
    expect(valuesOf((await rawResponse(marked({}))).lines, 'cache-control')).toEqual(['no-store']);
    expect(valuesOf((await rawResponse(marked({ 'Cache-Control': 'private, max-age=60' }))).lines, 'cache-control')).toEqual(['private, max-age=60']);
    const unmarked = await rawResponse((_, res) => res.end());
    expect(valuesOf(unmarked.lines, 'cache-control')).toEqual([]);
  });

  it('keeps a status text and a list of pairs', async () => {
    const { status, message, lines } = await rawResponse((_, res) => {
      res.writeHead(201, 'Made', [['X-Frame-Options', 'SAMEORIGIN']] as unknown as string[]);
      res.end();
    });
    expect([status, message]).toEqual([201, 'Made']);
    expect(valuesOf(lines, 'x-frame-options')).toEqual(['SAMEORIGIN']);
    expect(valuesOf(lines, 'x-content-type-options')).toEqual(['nosniff']);
  });
});
