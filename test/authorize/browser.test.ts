/**
 * A real browser (Debian's headless Chromium driven by playwright-core): sign in, consent, get
 * a code; single sign-on on the second visit; logout ends it; the error page for a bad
 * redirect_uri; the German sign-in page; a user with a TOTP factor typing the code their
 * authenticator would show (computed here with otpauth). The client's site is a small local HTTP server, so
 * nothing leaves the machine. One browser for the whole file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { HAS_CHROMIUM, launchChromium, startClientSite } from './chromium.js';
import { decodeJwt } from 'jose';
import { TOTP } from 'otpauth';
import { api, createClient, createFixture, exchangeCode, startIdp, USER, type Fixture, type RegisteredClient } from './support.js';

const SCREENSHOT = join(tmpdir(), 'idp-sign-in-de.png');

let fixture: Fixture;
let client: RegisteredClient;
let browser: Browser;
let rp: Awaited<ReturnType<typeof startClientSite>>;
let rpUrl: string;

beforeAll(async () => {
  if (!HAS_CHROMIUM) return;
  rp = await startClientSite();
  rpUrl = rp.url;
  fixture = await createFixture(await startIdp());
  client = await createClient(fixture, { require_pkce: false, redirect_uris: [`${rpUrl}/callback`], post_logout_redirect_uris: [`${rpUrl}/bye`] });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await fixture?.server.close();
  rp?.close();
});

async function newPage(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext();
  return { context, page: await context.newPage() };
}

function authorizeUrl(extra: Record<string, string> = {}): string {
  return `${fixture.url}/connect/authorize?${new URLSearchParams({ client_id: client.client_id, redirect_uri: `${rpUrl}/callback`, response_type: 'code', scope: 'openid profile email', state: 'browser', ...extra })}`;
}

function atClient(page: Page, path: string): Promise<void> {
  return page.waitForURL((url) => url.origin === rpUrl && url.pathname === path);
}

describe.skipIf(!HAS_CHROMIUM)(`real browser${HAS_CHROMIUM ? '' : ' (skipped: /usr/bin/chromium is missing; apt-get install -y chromium)'}`, () => {
  it('signs in, consents, is redirected with a code; the second authorize is silent; logout ends the session', async () => {
    const { context, page } = await newPage();
    await page.goto(authorizeUrl({ login_hint: 'bob' }));
    await expectText(page.locator('h1'), 'Sign in');
    expect(await page.inputValue('#login')).toBe('bob');
    await page.fill('#password', USER.password);
    await page.click('button[type=submit]');
    await page.waitForURL(/\/connect\/authorize\/login$/);
    await expectText(page.locator('h1'), 'Allow access?');
    expect(await page.locator('ul.scopes li').allTextContents()).toEqual(['Know who you are', 'See your name, username and picture', 'See your email address']);
    await page.click('button[value=allow]');
    await atClient(page, '/callback');
    const first = new URL(page.url());
    expect(first.searchParams.get('code')).toBeTruthy();
    expect(first.searchParams.get('state')).toBe('browser');

    await page.goto(authorizeUrl({ state: 'silent' }));
    await atClient(page, '/callback');
    expect(new URL(page.url()).searchParams.get('state')).toBe('silent');

    await page.goto(`${fixture.url}/connect/endsession?client_id=${client.client_id}&post_logout_redirect_uri=${encodeURIComponent(`${rpUrl}/bye`)}&state=out`);
    await page.click('button[value=logout]');
    await atClient(page, '/bye');
    expect(new URL(page.url()).searchParams.get('state')).toBe('out');

    await page.goto(authorizeUrl({ prompt: 'none' }));
    await atClient(page, '/callback');
    expect(new URL(page.url()).searchParams.get('error')).toBe('login_required');
    await context.close();
  });

  it('shows the error page for a redirect_uri that is not registered, and stays on it', async () => {
    const { context, page } = await newPage();
    const response = await page.goto(authorizeUrl({ redirect_uri: 'https://evil.example/steal' }));
    expect(response?.status()).toBe(400);
    expect(page.url().startsWith(fixture.url)).toBe(true);
    expect(await page.locator('[role=alert]').textContent()).toContain('not registered for this application');
    await context.close();
  });

  it('shows the sign-in page in German for ui_locales=de, styled', async () => {
    const { context, page } = await newPage();
    await page.goto(authorizeUrl({ ui_locales: 'de', acr_values: 'tenant:acme' }));
    await expectText(page.locator('h1'), 'Anmelden');
    await expectText(page.locator('label[for=login]'), 'Benutzername oder E-Mail');
    await expectText(page.locator('button[type=submit]'), 'Anmelden');
    // The stylesheet loaded under the page's CSP: the card has its border radius.
    expect(await page.locator('main').evaluate((main) => getComputedStyle(main).borderRadius)).toBe('12px');
    await page.setViewportSize({ width: 800, height: 640 });
    await page.screenshot({ path: SCREENSHOT });
    await context.close();
  });
});

describe.skipIf(!HAS_CHROMIUM)(`real browser, second factor${HAS_CHROMIUM ? '' : ' (skipped: /usr/bin/chromium is missing)'}`, () => {
  it('asks a user with a TOTP factor for the code after the password, refuses a wrong one, and the ID token says mfa', async () => {
    const dora = { username: 'dora', email: 'dora@example.com', password: 'doras-password-1' };
    await api(fixture, 'POST', '/acme/shop/users', dora);
    const enrolled = await api(fixture, 'POST', '/acme/shop/users/dora/factors', { type: 'totp' });
    const { id, secret } = enrolled.entities[0] as { id: string; secret: string };
    const totp = new TOTP({ secret, algorithm: 'SHA1', digits: 6, period: 30 });
    await api(fixture, 'POST', `/acme/shop/users/dora/factors/${id}/verify`, { code: totp.generate() });

    const { context, page } = await newPage();
    await page.goto(authorizeUrl({ login_hint: 'dora' }));
    await page.fill('#password', dora.password);
    await page.click('button[type=submit]');
    await expectText(page.locator('h1'), 'Two-step verification');
    expect(await page.getAttribute('#otp', 'autocomplete')).toBe('one-time-code');
    expect(await page.getAttribute('#otp', 'inputmode')).toBe('numeric');
    // The code that activated the factor is spent; the next step's is accepted (RFC 6238 5.2).
    const code = totp.generate({ timestamp: Date.now() + 30_000 });
    await page.fill('#otp', code === '000000' ? '111111' : '000000');
    await page.click('button[type=submit].wide');
    expect(await page.locator('[role=alert]').textContent()).toBe('The code is not correct, or was used already.');
    await page.fill('#otp', code);
    await page.click('button[type=submit].wide');
    await expectText(page.locator('h1'), 'Allow access?');
    await page.click('button[value=allow]');
    await atClient(page, '/callback');
    const tokens = await exchangeCode(fixture, client, new URL(page.url()).searchParams.get('code')!, { redirect_uri: `${rpUrl}/callback` });
    expect(decodeJwt(tokens.id_token)).toMatchObject({ amr: ['pwd', 'otp', 'mfa'], acr: 'urn:idp:acr:mfa', preferred_username: 'dora' });
    await context.close();
  });
});

async function expectText(locator: ReturnType<Page['locator']>, text: string): Promise<void> {
  expect((await locator.textContent())?.trim()).toBe(text);
}
