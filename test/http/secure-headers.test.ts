import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers.js';

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
  let t: TestApp;
  afterEach(() => t.close());

  // A success, an error from onError, an OAuth error with its own headers, and a page.
  it.each([
    ['GET', '/status', 200],
    ['GET', '/no/such/thing/here', 404],
    ['POST', '/connect/token', 401],
    ['GET', '/connect/authorize?client_id=nobody', 400],
  ])('%s %s (%i) carries every one, and no Cross-Origin-Resource-Policy', async (method, path, status) => {
    t = await createTestApp();
    const response = await t.request(method, path, method === 'POST' ? { form: { grant_type: 'client_credentials', client_id: 'nobody' } } : {});
    expect(response.status).toBe(status);
    for (const [name, value] of Object.entries(EXPECTED)) expect(response.headers.get(name), name).toBe(value);
    expect(response.headers.get('cross-origin-resource-policy')).toBeNull();
  });
});
