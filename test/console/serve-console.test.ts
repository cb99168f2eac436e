/**
 * /console over HTTP (docs/console.md): the built page under a strict Content-Security-Policy for
 * any path below /console, its hashed files cached for a year, and the built-in client
 * `idp-console` at the authorize endpoint; `--no-console` turns both off. Needs dist/console
 * (`npm run build`).
 */
import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers.js';
import { resolveConfig } from '../../src/config.js';

const ASSETS = new URL('../../dist/console/assets/', import.meta.url);

function authorizeQuery(redirectUri: string): string {
  return new URLSearchParams({
    client_id: 'idp-console',
    redirect_uri: redirectUri,
    response_type: 'code',
    scope: 'openid api offline_access',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
  }).toString();
}

describe('the console, on', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(() => app.close());

  it('answers the page for /console and every path below it, under a CSP without inline scripts or styles', async () => {
    for (const path of ['/console', '/console/', '/console/orgs/demo/apps/sandbox', '/console/callback?code=x&state=y']) {
      const response = await app.request('GET', path);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(response.text).toContain('<div id="console"></div>');
      expect(response.headers.get('cache-control')).toBe('no-cache');
      const csp = response.headers.get('content-security-policy')!;
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("style-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain('unsafe-inline');
      expect(response.headers.get('x-frame-options')).toBe('DENY');
    }
  });

  it('serves the built files with their type and a year of cache, and refuses any other name', async () => {
    const script = readdirSync(ASSETS).find((name) => name.endsWith('.js'))!;
    const response = await app.request('GET', `/console/assets/${script}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const page = await app.request('GET', '/console/');
    expect(page.text).toContain(`/console/assets/${script}`);

    for (const name of ['missing-0000.js', 'index.html', '..%2Fpackage.json', 'x.exe']) {
      const refused = await app.request('GET', `/console/assets/${name}`);
      expect(refused.status, name).toBe(name.includes('%2F') ? 400 : 404);
      expect(refused.body.error).toBe(name.includes('%2F') ? 'invalid_path' : 'not_found');
    }
  });

  it('has the public client idp-console, which returns only to {issuer}/console/callback', async () => {
    const page = await app.request('GET', `/connect/authorize?${authorizeQuery('http://idp.test/console/callback')}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('id="password"');
    const elsewhere = await app.request('GET', `/connect/authorize?${authorizeQuery('http://evil.example/console/callback')}`);
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.text).toContain('not registered');
    const loopback = await app.request('GET', `/connect/authorize?${authorizeQuery('http://127.0.0.1:9999/callback')}`);
    expect(loopback.status).toBe(400);
  });

  it('refuses the password grant for idp-console: admins sign in through the browser', async () => {
    const response = await app.request('POST', '/connect/token', { form: { grant_type: 'password', client_id: 'idp-console', username: 'a', password: 'b' } });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('unauthorized_client');
  });
});

describe('the console, off (--no-console)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp({ console: false });
  });
  afterAll(() => app.close());

  it('answers 404 below /console and knows no client idp-console', async () => {
    for (const path of ['/console/', '/console/orgs', '/console/assets/index.js']) {
      const response = await app.request('GET', path);
      expect(response.status, path).toBe(404);
      expect(response.body.error_description).toContain('--no-console');
    }
    const authorize = await app.request('GET', `/connect/authorize?${authorizeQuery('http://idp.test/console/callback')}`);
    expect(authorize.status).toBe(400);
    expect(authorize.text).toContain('idp-console');
  });

  it('is what --no-console and IDP_CONSOLE=false say; without the flag (commander gives true) IDP_CONSOLE decides', () => {
    expect(resolveConfig({}, {}).console).toBe(true);
    expect(resolveConfig({ console: false }, {}).console).toBe(false);
    expect(resolveConfig({ console: true }, { IDP_CONSOLE: 'false' }).console).toBe(false);
    expect(resolveConfig({ console: false }, { IDP_CONSOLE: 'true' }).console).toBe(false);
    expect(() => resolveConfig({}, { IDP_CONSOLE: 'maybe' })).toThrow('IDP_CONSOLE must be true or false');
  });
});
