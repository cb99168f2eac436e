/**
 * Passkeys in a real browser (docs/api.md#passkeys): headless Chromium with the DevTools
 * protocol's virtual authenticator (a platform authenticator with resident keys and user
 * verification) enrolls a passkey through the factors API, steps a password session up to
 * `urn:idp:acr:phr` with it, then, signed out, signs in with the passkey alone, from the username
 * field's autofill (conditional mediation) and from the sign-in page's button. The pages pass
 * axe-core with no serious or critical violation; screenshots go to docs/screenshots/.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { decodeJwt } from 'jose';
import { expectAccessible, HAS_CHROMIUM, launchChromium, SCREENSHOTS, startClientSite } from '../chromium.js';
import { api, createClient, createFixture, exchangeCode, type Fixture, type RegisteredClient } from './support.js';
import { startTestServer } from '../database.js';

const FRIDA = { username: 'frida', email: 'frida@example.com', password: 'fridas-password-1' };

let fixture: Fixture;
let client: RegisteredClient;
let browser: Browser;
let site: Awaited<ReturnType<typeof startClientSite>>;

beforeAll(async () => {
  if (!HAS_CHROMIUM) return;
  site = await startClientSite();
  // WebAuthn takes a domain as the relying party's id, never an IP address: the issuer is localhost.
  fixture = await createFixture(await startTestServer({ host: 'localhost', port: '0' }));
  client = await createClient(fixture, { require_pkce: false, require_consent: false, redirect_uris: [`${site.url}/callback`] });
  await api(fixture, 'POST', '/acme/shop/users', FRIDA);
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await fixture?.server.close();
  site?.server.close();
});

function authorizeUrl(extra: Record<string, string> = {}): string {
  return `${fixture.url}/connect/authorize?${new URLSearchParams({ client_id: client.client_id, redirect_uri: `${site.url}/callback`, response_type: 'code', scope: 'openid profile', state: 'pk', ...extra })}`;
}

/** Waits for the browser to be back at the client and exchanges the code: the ID token's claims. */
async function idTokenAtClient(page: Page) {
  await page.waitForURL((url) => url.origin === site.url && url.pathname === '/callback');
  const code = new URL(page.url()).searchParams.get('code');
  expect(code).toBeTruthy();
  return decodeJwt((await exchangeCode(fixture, client, code!, { redirect_uri: `${site.url}/callback` })).id_token);
}

describe.skipIf(!HAS_CHROMIUM)(`real browser, passkeys${HAS_CHROMIUM ? '' : ' (skipped: /usr/bin/chromium is missing)'}`, () => {
  it('enrolls a passkey, steps a password session up to phr with it, and signs in with it alone', { timeout: 60_000 }, async () => {
    const context = await browser.newContext({ viewport: { width: 480, height: 640 } });
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
    });

    // A password session first.
    await page.goto(authorizeUrl({ login_hint: FRIDA.username }));
    await page.fill('#password', FRIDA.password);
    await page.click('button[type=submit].wide');
    expect(await idTokenAtClient(page)).toMatchObject({ amr: ['pwd'], acr: 'urn:idp:acr:pwd' });

    // Enrolled through the factors API; the browser answers the options on a page of the issuer.
    const enrolled = await api(fixture, 'POST', `/acme/shop/users/${FRIDA.username}/factors`, { type: 'webauthn' });
    const { id, options } = enrolled.entities[0] as { id: string; options: unknown };
    await page.goto(authorizeUrl({ prompt: 'login' }));
    const registration = await page.evaluate(
      (optionsJSON) =>
        (window as unknown as { SimpleWebAuthnBrowser: { startRegistration(o: unknown): Promise<unknown> } }).SimpleWebAuthnBrowser.startRegistration({
          optionsJSON,
        }),
      options,
    );
    await api(fixture, 'POST', `/acme/shop/users/${FRIDA.username}/factors/${id}/verify`, registration);
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials).toEqual([expect.objectContaining({ isResidentCredential: true, rpId: 'localhost' })]);
    const enrolledCount = credentials[0]!.signCount;

    // Step-up: the client asks for phishing resistance; the page asks for the passkey alone.
    await page.goto(authorizeUrl({ acr_values: 'urn:idp:acr:phr' }));
    expect(await page.locator('h1').textContent()).toBe('Two-step verification');
    expect(await page.locator('input[name=otp]').count()).toBe(0);
    const usePasskey = page.locator('#passkey button');
    await usePasskey.waitFor({ state: 'visible' });
    await expectAccessible(page, 'passkey page');
    await page.screenshot({ path: join(SCREENSHOTS, 'passkey-step-up.png') });
    await usePasskey.click();
    expect(await idTokenAtClient(page)).toMatchObject({ amr: ['pwd', 'hwk', 'mfa'], acr: 'urn:idp:acr:phr' });

    // Signed out, the passkey alone signs in: offered in the username field's autofill (conditional
    // mediation), which Chromium's virtual authenticator answers at once, as a user picking it would.
    await context.clearCookies();
    await page.goto(authorizeUrl());
    expect(await idTokenAtClient(page)).toMatchObject({ amr: ['hwk'], acr: 'urn:idp:acr:phr', preferred_username: FRIDA.username });

    // In a browser without that autofill, from the sign-in page's button.
    await context.clearCookies();
    await page.addInitScript(() => {
      PublicKeyCredential.isConditionalMediationAvailable = async () => false;
    });
    await page.goto(authorizeUrl({ ui_locales: 'de' }));
    expect(await page.getAttribute('#login', 'autocomplete')).toBe('username webauthn');
    const signIn = page.locator('#passkey button');
    await signIn.waitFor({ state: 'visible' });
    expect(await signIn.textContent()).toBe('Mit einem Passkey anmelden');
    await expectAccessible(page, 'passkey page');
    await page.goto(authorizeUrl());
    await signIn.waitFor({ state: 'visible' });
    await page.screenshot({ path: join(SCREENSHOTS, 'passkey-sign-in.png') });
    expect(page.url().startsWith(fixture.url)).toBe(true);
    await signIn.click();
    expect(await idTokenAtClient(page)).toMatchObject({ amr: ['hwk'], acr: 'urn:idp:acr:phr', preferred_username: FRIDA.username });
    const after = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    // Three assertions since enrollment: the step-up and the two sign-ins.
    expect(after.credentials[0]!.signCount).toBe(enrolledCount + 3);
    await context.close();
  });
});
