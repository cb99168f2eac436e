/**
 * The console's switches in a real browser (as browser.test.ts): an organization's and an
 * application's "second factor required", an application's open client registration and an OAuth
 * client's signed request objects. Each shows what is stored, is reached by Tab and turned by
 * Space, stores the change (read back through the API) and shows the server's answer; a refusal
 * is shown under the switch, and nothing changes. axe-core finds no serious or critical problem.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { HAS_CHROMIUM } from '../chromium.js';
import { DEMO, expectAccessible, SHOTS, tabTo, useConsoleServer } from './console-helpers.js';

const ROOT = { username: 'root', password: 'root-password-1' };
const harness = useConsoleServer({ superuser: `${ROOT.username}:${ROOT.password}` });
const { api, signIn } = harness;

async function openPage(): Promise<Page> {
  const page = await harness.openPage();
  await signIn(page, DEMO);
  return page;
}

/** Reaches the switch by Tab and turns it with Space. */
async function toggleByKeyboard(page: Page, id: string): Promise<void> {
  await tabTo(page, `#${id}`);
  await page.keyboard.press('Space');
}

const switchOf = (page: Page, name: string): Locator => page.locator(`#setting-${name}`);

describe.skipIf(!HAS_CHROMIUM)(`admin console: settings${HAS_CHROMIUM ? '' : ' (skipped: /usr/bin/chromium is missing)'}`, () => {
  it("turns an organization's second factor on and off", async () => {
    const page = await openPage();
    await page.click('.cards a:text("demo")');
    await page.click('nav[aria-label=Organization] a:text("Settings")');
    await page.locator('h1', { hasText: 'Settings' }).waitFor();
    const required = switchOf(page, 'secondFactorRequired');
    expect(await required.isChecked()).toBe(false);
    expect(await page.getByRole('switch', { name: 'Admin users must use a second factor' }).count()).toBe(1);
    await expectAccessible(page, 'organization settings');

    // The demo admin is then held to a second factor: the sysadmin reads what is stored.
    const stored = async () => (await api('GET', '/management/orgs/demo', undefined, ROOT)).body.entities[0].secondFactorRequired;
    try {
      await toggleByKeyboard(page, 'setting-secondFactorRequired');
      await page.locator('text=Admin users must use a second factor: on. Saved.').waitFor();
      expect(await required.isChecked()).toBe(true);
      expect(await stored()).toBe(true);
      await page.reload();
      await page.locator('h1', { hasText: 'Settings' }).waitFor();
      expect(await switchOf(page, 'secondFactorRequired').isChecked()).toBe(true);

      await switchOf(page, 'secondFactorRequired').click();
      await page.locator('text=Admin users must use a second factor: off. Saved.').waitFor();
      expect(await stored()).toBeUndefined();
    } finally {
      // Whatever failed, the demo admin signs in by password alone in the tests after this one.
      await api('PUT', '/management/orgs/demo', { secondFactorRequired: null }, ROOT);
    }
    await page.context().close();
  });

  it("turns an application's second factor and open registration on", async () => {
    const page = await openPage();
    await page.goto(`${harness.url}/console/orgs/demo/apps/sandbox`);
    await page.click('nav[aria-label=Application] a:text("Settings")');
    await page.locator('h1', { hasText: 'Settings' }).waitFor();
    const app = async () => (await api('GET', '/management/orgs/demo/apps/sandbox')).body.entities[0];
    expect(await switchOf(page, 'secondFactorRequired').isChecked()).toBe(false);
    expect(await switchOf(page, 'openClientRegistration').isChecked()).toBe(false);

    await toggleByKeyboard(page, 'setting-secondFactorRequired');
    await page.locator('text=Users must use a second factor: on. Saved.').waitFor();
    await toggleByKeyboard(page, 'setting-openClientRegistration');
    await page.locator('text=Open client registration: on. Saved.').waitFor();
    expect(await app()).toMatchObject({ secondFactorRequired: true, openClientRegistration: true });
    await expectAccessible(page, 'application settings');
    await page.screenshot({ path: join(SHOTS, 'console-app-settings.png') });
    await page.context().close();
  });

  it("requires a client's signed request objects; a client with nothing to sign with is refused in place", async () => {
    const CLIENTS = '/management/orgs/demo/apps/sandbox/clients';
    const register = async (name: string, method: string) =>
      (
        await api('POST', CLIENTS, {
          client_name: name,
          redirect_uris: ['https://rp.example/callback'],
          grant_types: ['authorization_code'],
          token_endpoint_auth_method: method,
        })
      ).body.entities[0].client_id as string;
    const publicClient = await register('Public app', 'none');
    const confidential = await register('Server app', 'client_secret_basic');
    const stored = async (id: string) => (await api('GET', `${CLIENTS}/${id}`)).body.entities[0].require_signed_request_object;

    const page = await openPage();
    await page.goto(`${harness.url}/console/orgs/demo/apps/sandbox/clients/${publicClient}`);
    await page.locator('h1', { hasText: 'Public app' }).waitFor();
    const signed = switchOf(page, 'require_signed_request_object');
    expect(await signed.isChecked()).toBe(false);
    await toggleByKeyboard(page, 'setting-require_signed_request_object');
    const problem = page.locator('#setting-require_signed_request_object-problem');
    expect(await problem.textContent()).toContain('require_signed_request_object needs a signing key');
    expect(await signed.getAttribute('aria-invalid')).toBe('true');
    expect(await signed.isChecked()).toBe(false);
    expect(await stored(publicClient)).toBe(false);
    await expectAccessible(page, 'client settings refused');

    await page.goto(`${harness.url}/console/orgs/demo/apps/sandbox/clients/${confidential}`);
    await page.locator('h1', { hasText: 'Server app' }).waitFor();
    await switchOf(page, 'require_signed_request_object').click();
    await page.locator('text=Signed request objects required: on. Saved.').waitFor();
    expect(await switchOf(page, 'require_signed_request_object').isChecked()).toBe(true);
    expect(await stored(confidential)).toBe(true);
    // The form below sends the setting back as it now is.
    await page.click('button:text("Save")');
    await page.locator('p.saved', { hasText: /^Saved\.$/ }).waitFor();
    expect(await stored(confidential)).toBe(true);
    await page.context().close();
  });
});
