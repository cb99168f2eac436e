/**
 * The security headers every response of `idp serve` carries: they are added where the HTTP
 * server is made (server/middleware/secure-headers.ts), so this test asks a real server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer } from '../database.js';
import type { RunningServer } from '../../server/serve.js';

const EXPECTED: Record<string, string> = {
  'cross-origin-opener-policy': 'same-origin',
  'origin-agent-cluster': '?1',
  'referrer-policy': 'no-referrer',
  'strict-transport-security': 'max-age=15552000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-frame-options': 'DENY',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
};

describe('security headers', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startTestServer({ port: '0' });
  });
  afterAll(() => server.close());

  // A success, an error from onError, an OAuth error with its own headers, and a page.
  it.each([
    ['GET', '/status', 200],
    ['GET', '/no/such/thing/here', 404],
    ['POST', '/connect/token', 401],
    ['GET', '/connect/authorize?client_id=nobody', 400],
  ])('%s %s (%i) carries every one, once, and no Cross-Origin-Resource-Policy', async (method, path, status) => {
    const response = await fetch(`${server.url}${path}`, {
      method,
      redirect: 'manual',
      ...(method === 'POST' && { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=client_credentials&client_id=nobody' }),
    });
    expect(response.status).toBe(status);
    // One value each: a header set both by the server and by a page is not sent twice.
    for (const [name, value] of Object.entries(EXPECTED)) expect(response.headers.get(name), name).toBe(value);
    expect(response.headers.get('cross-origin-resource-policy')).toBeNull();
  });

  it('keeps the headers a response sets itself: a page its Content-Security-Policy and no-store', async () => {
    const page = await fetch(`${server.url}/connect/authorize?client_id=nobody`);
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.headers.get('cache-control')).toContain('no-store');
  });
});
