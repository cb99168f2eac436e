/**
 * The enrollment step of a sign-in held to a second factor (docs/account.md#second-factor-required)
 * in a real browser (headless Chromium): the password, then the authenticator app's setup with a
 * code computed here from the secret the page shows (otpauth), the recovery codes, and back at the
 * client with a code. Each page is checked with axe-core and photographed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import type { Browser } from 'playwright-core';
import { TOTP } from 'otpauth';
import { expectAccessible, HAS_CHROMIUM, launchChromium, SCREENSHOTS, startClientSite } from '../chromium.js';
import { startTestServer } from '../database.js';
import { api, createClient, createFixture, USER, type Fixture, type RegisteredClient } from './support.js';

let fixture: Fixture;
let browser: Browser;
let rp: Server;
let rpUrl: string;
let client: RegisteredClient;

beforeAll(async () => {
  if (!HAS_CHROMIUM) return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  ({ server: rp, url: rpUrl } = await startClientSite());
  fixture = await createFixture(await startTestServer({ host: '127.0.0.1', port: '0' }));
  client = await createClient(fixture, { client_name: 'Shop app', require_pkce: false, require_consent: false, redirect_uris: [`${rpUrl}/callback`] });
  await api(fixture, 'PUT', '/management/orgs/acme/apps/shop', { secondFactorRequired: true });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await fixture?.server.close();
  rp?.close();
});

describe.skipIf(!HAS_CHROMIUM)(`the enrollment step in a real browser${HAS_CHROMIUM ? '' : ' (skipped: /usr/bin/chromium is missing)'}`, () => {
  it('sets up an authenticator app after the password, shows the recovery codes, then goes back to the client', async () => {
    const context = await browser.newContext({ viewport: { width: 900, height: 1100 } });
    const page = await context.newPage();
    const query = new URLSearchParams({
      client_id: client.client_id,
      redirect_uri: `${rpUrl}/callback`,
      response_type: 'code',
      scope: 'openid',
      state: 'enroll',
    });
    await page.goto(`${fixture.url}/connect/authorize?${query}`);
    await page.fill('#login', USER.username);
    await page.fill('#password', USER.password);
    await page.click('button[type=submit]');

    await page.waitForURL((url) => url.pathname === '/connect/authorize/login');
    expect(await page.locator('h1').textContent()).toBe('Set up two-step verification');
    expect(await page.locator('img.qr').isVisible()).toBe(true);
    expect(await page.locator('#otp').getAttribute('autocomplete')).toBe('one-time-code');
    await expectAccessible(page, 'enrollment step');
    await page.screenshot({ path: `${SCREENSHOTS}/sign-in-enrollment.png`, fullPage: true });

    const secret = (await page.locator('#totp-secret').textContent())!.trim();
    await page.fill('#otp', new TOTP({ secret, algorithm: 'SHA1', digits: 6, period: 30 }).generate());
    await page.click('form[action="/connect/authorize/enroll"] button');
    await page.waitForURL((url) => url.pathname === '/connect/authorize/enroll');
    expect(await page.locator('ul.codes li').count()).toBe(10);
    await expectAccessible(page, 'recovery codes of the enrollment step');
    await page.screenshot({ path: `${SCREENSHOTS}/sign-in-enrollment-codes.png`, fullPage: true });

    await page.click('form[action="/connect/authorize/enrolled"] button');
    await page.waitForURL((url) => url.href.startsWith(`${rpUrl}/callback`));
    const back = new URL(page.url());
    expect(back.searchParams.get('code')).toEqual(expect.any(String));
    expect(back.searchParams.get('state')).toBe('enroll');
    await context.close();
  });
});
