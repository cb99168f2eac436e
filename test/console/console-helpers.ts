/**
 * What the console's browser tests share: a server with the demo data and a headless Chromium
 * (started before and closed after the file's tests), a JSON call behind the browser's back, the
 * sign-in through /connect/authorize, and axe-core on the page as it is.
 *
 * Screenshots go where test/chromium.ts says.
 */
import { afterAll, beforeAll } from 'vitest';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { HAS_CHROMIUM, launchChromium, SCREENSHOTS } from '../chromium.js';
export { expectAccessible } from '../chromium.js';
import type { RunningServer } from '../../server/serve.js';
import type { ServeFlags } from '../../src/config.js';
import type { Deps } from '../../src/deps.js';
import { startTestServer } from '../database.js';

export const SHOTS = SCREENSHOTS;
export const DEMO = { username: 'demo', password: 'demo-password' };

export interface User {
  username: string;
  password: string;
}

export interface ConsoleHarness {
  /** The server's address, e.g. http://127.0.0.1:41234. */
  readonly url: string;
  readonly browser: Browser;
  /** A JSON call with an admin's password token (the demo admin's unless `user`), for what a test sets up or checks behind the browser. */
  api(method: string, path: string, body?: unknown, user?: User): Promise<{ status: number; body: any }>;
  /** Opens the console and signs in as `user` on the sign-in page; returns on the console's first screen. */
  signIn(page: Page, user: User): Promise<void>;
  /** A page of its own (a new browser context: no session shared) at 1280×800, or as `options` say. */
  openPage(options?: BrowserContextOptions): Promise<Page>;
  /** The server's storage, for what no public request makes. */
  readonly deps: Deps;
}

/**
 * A server with the demo data (and `flags`) and a browser for the file's tests. `env` gives the
 * server's environment when it starts (after the file's earlier `beforeAll`s, so a local push
 * provider started there can be named).
 */
export function useConsoleServer(flags: ServeFlags = {}, env: () => Record<string, string> = () => ({})): ConsoleHarness {
  let server: RunningServer | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    if (!HAS_CHROMIUM) return;
    mkdirSync(SHOTS, { recursive: true });
    server = await startTestServer(
      {
        host: '127.0.0.1',
        port: '0',
        fixtures: fileURLToPath(new URL('../../fixtures/demo.json', import.meta.url)),
        ...flags,
      },
      { env: env() },
    );
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });
  const harness: ConsoleHarness = {
    get url() {
      return server!.url;
    },
    get browser() {
      return browser!;
    },
    async api(method, path, body, user = DEMO) {
      const token = await fetch(`${harness.url}/management/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ grant_type: 'password', ...user }),
      }).then((response) => response.json() as Promise<{ access_token: string }>);
      const response = await fetch(`${harness.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token.access_token}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, body: await response.json() };
    },
    async signIn(page, user) {
      await page.goto(`${harness.url}/console/`);
      await page.waitForURL(/\/connect\/authorize/);
      await page.fill('#login', user.username);
      await page.fill('#password', user.password);
      await page.click('button[type=submit]');
      await page.waitForURL((url) => url.pathname.startsWith('/console/') && url.pathname !== '/console/callback');
    },
    get deps() {
      return server!.deps;
    },
    async openPage(options = {}) {
      const context = await harness.browser.newContext({ viewport: { width: 1280, height: 800 }, ...options });
      const page = await context.newPage();
      page.setDefaultTimeout(10_000);
      return page;
    },
  };
  return harness;
}

export async function heading(page: Page): Promise<string> {
  return ((await page.locator('h1').textContent()) ?? '').trim();
}

/** Tabs from the screen's heading until the element `selector` matches has the focus: it must be reached by the keyboard. */
export async function tabTo(page: Page, selector: string): Promise<void> {
  await page.locator('h1').focus();
  for (let step = 0; step < 60; step++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate((wanted) => document.activeElement?.matches(wanted) === true, selector)) return;
  }
  throw new Error(`${selector} is not reached by Tab`);
}
