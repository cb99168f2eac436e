/**
 * What the console's browser tests share: the demo admin, where screenshots go, axe-core on the
 * page as it is, signing in through /connect/authorize, and the API behind the browser.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import { mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { HAS_CHROMIUM, launchChromium } from '../chromium.js';
import type { RunningServer } from '../../server/serve.js';
import { startTestServer } from '../database.js';

const AXE = fileURLToPath(new URL('../../node_modules/axe-core/axe.min.js', import.meta.url));
/** Screenshots go to the temporary directory; with IDP_SCREENSHOTS=docs, to docs/screenshots/ (the README shows them). */
export const SHOTS =
  process.env.IDP_SCREENSHOTS === 'docs' ? fileURLToPath(new URL('../../docs/screenshots/', import.meta.url)) : join(tmpdir(), 'idp-console');
export const DEMO = { username: 'demo', password: 'demo-password' };

/** A server with the demo fixtures and a browser, for the file's tests: started before them, closed after. */
export function useConsole(): { readonly server: RunningServer; readonly browser: Browser } {
  const started: { server?: RunningServer; browser?: Browser } = {};
  beforeAll(async () => {
    if (!HAS_CHROMIUM) return;
    mkdirSync(SHOTS, { recursive: true });
    started.server = await startTestServer({ host: '127.0.0.1', port: '0', fixtures: fileURLToPath(new URL('../../fixtures/demo.json', import.meta.url)) });
    started.browser = await launchChromium();
  });
  afterAll(async () => {
    await started.browser?.close();
    await started.server?.close();
  });
  return {
    get server() {
      return started.server!;
    },
    get browser() {
      return started.browser!;
    },
  };
}

/** A JSON call with an admin's password token, for what a test sets up or checks behind the browser. */
export async function adminApi(base: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const token = await fetch(`${base}/management/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'password', ...DEMO }),
  }).then((response) => response.json() as Promise<{ access_token: string }>);
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token.access_token}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

const axeSource = readFileSync(AXE, 'utf8');

/**
 * No serious or critical accessibility violation on the page as it is now. axe runs through the
 * debugging protocol, as page.evaluate does: the console's CSP rightly refuses a script tag added.
 */
export async function expectAccessible(page: Page, screen: string): Promise<void> {
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const result = await (window as any).axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((violation: any) => ({ id: violation.id, impact: violation.impact, nodes: violation.nodes.length }));
  });
  expect(
    violations.filter((violation: { impact: string }) => violation.impact === 'serious' || violation.impact === 'critical'),
    screen,
  ).toEqual([]);
}

export async function heading(page: Page): Promise<string> {
  return ((await page.locator('h1').textContent()) ?? '').trim();
}

export async function signIn(page: Page, base: string, user: { username: string; password: string }): Promise<void> {
  await page.goto(`${base}/console/`);
  await page.waitForURL(/\/connect\/authorize/);
  await page.fill('#login', user.username);
  await page.fill('#password', user.password);
  await page.click('button[type=submit]');
  await page.waitForURL((url) => url.pathname.startsWith('/console/') && url.pathname !== '/console/callback');
}
