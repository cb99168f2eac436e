/**
 * The account page in a real browser (Debian's headless Chromium driven by playwright-core): the
 * sign-in through /connect/authorize, a password change (the old password then fails), an
 * authenticator app enrolled with codes computed here (otpauth), recovery codes regenerated, a
 * passkey added with the DevTools protocol's virtual authenticator, another browser's session
 * ended, an application's access revoked, a factor removed; every page checked with axe-core
 * (no serious or critical violation) and photographed to docs/screenshots/. Then the admin
 * users' page. The server listens on `localhost`: WebAuthn refuses an IP address as the
 * relying party's id.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import { expectAccessible, HAS_CHROMIUM, launchChromium, SCREENSHOTS, startClientSite } from '../chromium.js';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { TOTP } from 'otpauth';
import { startTestServer } from '../database.js';
import { ADMIN, createClient, createFixture, USER, type Fixture, type RegisteredClient } from '../authorize/support.js';

let fixture: Fixture;
let browser: Browser;
let rp: Server;
let rpUrl: string;
let client: RegisteredClient;

beforeAll(async () => {
  if (!HAS_CHROMIUM) return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  ({ server: rp, url: rpUrl } = await startClientSite());
  fixture = await createFixture(await startTestServer({ host: 'localhost', port: '0' }));
  client = await createClient(fixture, { client_name: 'Shop app', require_pkce: false, redirect_uris: [`${rpUrl}/callback`] });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await fixture?.server.close();
  rp?.close();
});

async function newPage(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 900, height: 1000 } });
  return { context, page: await context.newPage() };
}

async function signIn(page: Page, login: string, password: string): Promise<void> {
  await page.waitForURL(/\/connect\/authorize\?/);
  await page.fill('#login', login);
  await page.fill('#password', password);
  await page.click('button[type=submit]');
}

async function passwordGrant(username: string, password: string): Promise<number> {
  const response = await fetch(`${fixture.url}/acme/shop/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'password', username, password }),
  });
  return response.status;
}

const accountPath = () => `${fixture.url}/acme/shop/account`;

describe.skipIf(!HAS_CHROMIUM)(`account page in a real browser${HAS_CHROMIUM ? '' : ' (skipped: /usr/bin/chromium is missing)'}`, () => {
  it("an app user signs in, changes the password, adds an authenticator app, recovery codes and a passkey, ends another browser's session, revokes an application", async () => {
    const { context, page } = await newPage();
    await page.goto(accountPath());
    await signIn(page, USER.username, USER.password);
    await page.waitForURL((url) => url.pathname.endsWith(`/${fixture.appUuid}/account`));
    expect(await page.locator('h1').textContent()).toBe('Your account');
    expect(await page.locator('[data-session=current]').count()).toBe(1);
    await expectAccessible(page, 'account page 1');
    await page.screenshot({ path: `${SCREENSHOTS}/account-page.png`, fullPage: true });

    // The password: the current one is required, and the old one no longer signs in.
    const newPassword = 'a-new-password-for-bob';
    await page.fill('#current-password', USER.password);
    await page.fill('#new-password', newPassword);
    await page.fill('#new-password2', newPassword);
    await page.click('form[action$="/account/password"] button');
    await expect.poll(() => page.locator('.notice').textContent()).toBe('Your password was changed.');
    expect(await passwordGrant(USER.username, USER.password)).toBe(400);
    expect(await passwordGrant(USER.username, newPassword)).toBe(200);

    // An authenticator app: the QR code and key, then the code it would show.
    await page.fill('#totp-name', 'Phone');
    await page.click('form[action$="/account/totp"] button');
    expect(await page.locator('h1').textContent()).toBe('Set up an authenticator app');
    await expectAccessible(page, 'account page 2');
    await page.screenshot({ path: `${SCREENSHOTS}/account-totp.png`, fullPage: true });
    const totp = new TOTP({ secret: (await page.locator('#totp-secret').textContent())!, algorithm: 'SHA1', digits: 6, period: 30 });
    await page.fill('#otp', totp.generate() === '000000' ? '111111' : '000000');
    await page.click('form[action$="/account/totp/verify"] button');
    expect(await page.locator('[role=alert]').textContent()).toContain('The code is not correct');
    await page.fill('#otp', totp.generate());
    await page.click('form[action$="/account/totp/verify"] button');
    // The first factor brings ten recovery codes, shown once.
    expect(await page.locator('h1').textContent()).toBe('Your recovery codes');
    const first = await page.locator('ul.codes code').allTextContents();
    expect(first).toHaveLength(10);
    await expectAccessible(page, 'account page 3');
    await page.screenshot({ path: `${SCREENSHOTS}/account-recovery-codes.png`, fullPage: true });
    await page.click('a.button');
    expect(await page.locator('section[aria-labelledby=totp-title] li strong').allTextContents()).toEqual(['Phone']);

    // New recovery codes replace the old ones.
    await page.click('form[action$="/account/recovery-codes"] button');
    const second = await page.locator('ul.codes code').allTextContents();
    expect(second).toHaveLength(10);
    expect(second.filter((code) => first.includes(code))).toEqual([]);
    await page.click('a.button');

    // A passkey, made by the DevTools protocol's virtual authenticator.
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
    });
    await page.fill('#passkey-name', 'Laptop');
    await page.click('#add-passkey button');
    await page.waitForURL(/notice=passkey_added/);
    expect(await page.locator('.notice').textContent()).toBe('The passkey was added.');
    expect(await page.locator('section[aria-labelledby=passkeys-title] li strong').allTextContents()).toEqual(['Laptop']);
    expect(await page.locator('section[aria-labelledby=passkeys-title] li').textContent()).toContain('last used never');

    // Another browser signs in; this one ends its session, and that browser is asked to sign in again.
    const other = await newPage();
    await other.page.goto(accountPath());
    await signIn(other.page, USER.username, newPassword);
    await other.page.fill('#otp', totp.generate({ timestamp: Date.now() + 30_000 }));
    await other.page.click('button[type=submit]');
    await other.page.waitForURL((url) => url.pathname.endsWith('/account'));
    await page.reload();
    expect(await page.locator('[data-session]').count()).toBe(2);
    await page.click('[data-session=other] button');
    expect(await page.locator('.notice').textContent()).toBe('The session was ended.');
    expect(await page.locator('[data-session]').count()).toBe(1);
    await other.page.goto(accountPath());
    await other.page.waitForURL(/\/connect\/authorize\?/);
    await other.context.close();

    // An application the user allowed: listed, then revoked; it must ask again.
    const authorize = `${fixture.url}/connect/authorize?${new URLSearchParams({ client_id: client.client_id, redirect_uri: `${rpUrl}/callback`, response_type: 'code', scope: 'openid profile' })}`;
    await page.goto(authorize);
    await page.click('button[value=allow]');
    await page.waitForURL((url) => url.origin === rpUrl);
    await page.goto(accountPath());
    expect(await page.locator('[data-client] strong').allTextContents()).toEqual(['Shop app']);
    await page.click(`[data-client="${client.client_id}"] button`);
    expect(await page.locator('.notice').textContent()).toBe("The application's access was revoked.");
    expect(await page.locator('[data-client]').count()).toBe(0);
    await page.goto(`${authorize}&prompt=none`);
    await page.waitForURL((url) => url.origin === rpUrl);
    expect(new URL(page.url()).searchParams.get('error')).toBe('consent_required');

    // Removing the authenticator app (signed in minutes ago at most).
    await page.goto(accountPath());
    await page.click('section[aria-labelledby=totp-title] li button');
    expect(await page.locator('.notice').textContent()).toBe('The second factor was removed.');
    expect(await page.locator('section[aria-labelledby=totp-title] li').count()).toBe(0);

    // In German.
    await page.goto(`${accountPath()}?ui_locales=de`);
    expect(await page.locator('h1').textContent()).toBe('Ihr Konto');
    await expectAccessible(page, 'account page 4');
    await context.close();
  }, 90_000);

  it('an admin user signs in to /management/account', async () => {
    const { context, page } = await newPage();
    await page.goto(`${fixture.url}/management/account`);
    await signIn(page, ADMIN.username, ADMIN.password);
    await page.waitForURL((url) => url.pathname === '/management/account');
    expect(await page.locator('h1').textContent()).toBe('Your account');
    expect(await page.locator('.subtitle').textContent()).toContain(`Signed in as ${ADMIN.username} at idp`);
    await expectAccessible(page, 'account page 5');
    await page.screenshot({ path: `${SCREENSHOTS}/account-admin.png`, fullPage: true });
    await context.close();
  });
});
