/**
 * The console's OAuth clients, credentials and server screens in a real browser (as
 * browser.test.ts): the demo admin registers a client and sees its secret once (a reload forgets
 * it), edits and deletes it, shows and rotates the application's credentials; the server screen
 * says the version and, to a sysadmin, which signing keys are active, and rotates them.
 * axe-core finds no serious or critical problem on any of these screens.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { HAS_CHROMIUM } from '../chromium.js';
import { DEMO, expectAccessible, SHOTS, useConsoleServer } from './console-helpers.js';
import { TEST_DATABASE_URL } from '../database.js';

const ROOT = { username: 'root', password: 'root-password-1' };
const harness = useConsoleServer({ superuser: `${ROOT.username}:${ROOT.password}` });
const { api, signIn } = harness;

/** The token endpoint's answer to a client-credentials grant with HTTP Basic `id`:`secret`. */
async function clientCredentials(id: string, secret: string): Promise<number> {
  const basic = Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64');
  const response = await fetch(`${harness.url}/connect/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
  });
  return response.status;
}

async function openPage(): Promise<Page> {
  const context = await harness.browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  return page;
}

const CLIENTS = '/management/orgs/demo/apps/sandbox/clients';

describe.skipIf(!HAS_CHROMIUM)(`admin console: OAuth clients, credentials, server${HAS_CHROMIUM ? '' : ' (skipped: /usr/bin/chromium is missing)'}`, () => {
  it('registers an OAuth client and shows its secret once, edits it, deletes it', async () => {
    const page = await openPage();
    await signIn(page, DEMO);
    await page.click('.cards a:text("demo")');
    await page.click('.cards a:text("sandbox")');
    await page.click('nav[aria-label=Application] a:text("OAuth clients")');
    await page.waitForURL(/\/console\/orgs\/demo\/apps\/sandbox\/clients$/);
    await page.locator('h1', { hasText: 'OAuth clients' }).waitFor();
    await expectAccessible(page, 'clients');

    // A redirect URI the API refuses: said in place, nothing stored.
    await page.fill('#client-name', 'Kennel web');
    await page.fill('#client-redirects', 'not a uri');
    await page.check('input[value=client_credentials]');
    await page.click('button:text("Register client")');
    expect(await page.locator('[role=alert]').textContent()).toContain('not an absolute URI');
    expect((await api('GET', CLIENTS)).body.entities).toEqual([]);

    await page.fill('#client-redirects', 'https://kennel.example/callback\nhttps://kennel.example/other');
    await page.click('button:text("Register client")');
    const secret = (await page.locator('#secret-value').textContent())!.trim();
    expect(await page.locator('.secret').textContent()).toContain('you will not see it again');
    const [stored] = (await api('GET', CLIENTS)).body.entities;
    expect(stored).toMatchObject({
      client_name: 'Kennel web',
      redirect_uris: ['https://kennel.example/callback', 'https://kennel.example/other'],
      grant_types: ['authorization_code', 'refresh_token', 'client_credentials'],
      token_endpoint_auth_method: 'client_secret_basic',
    });
    expect(stored).not.toHaveProperty('client_secret');
    expect(await page.locator('[role=status]').first().textContent()).toContain(stored.client_id);
    // The secret shown is the client's: the token endpoint takes it, and nothing else.
    expect(secret).toMatch(/^[\w-]{43}$/);
    expect(await clientCredentials(stored.client_id, secret)).toBe(200);
    expect(await clientCredentials(stored.client_id, `${secret}x`)).toBe(401);
    expect(await page.locator('tbody td:first-child').allTextContents()).toEqual(['Kennel web']);
    // The form is empty again, for the next one.
    expect(await page.inputValue('#client-name')).toBe('');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('secret-title');
    await expectAccessible(page, 'client registered, its secret');
    await page.evaluate(() => scrollTo(0, 0));
    await page.screenshot({ path: join(SHOTS, 'console-clients.png') });

    // Once: a reload shows the client, never its secret.
    await page.reload();
    await page.locator('td', { hasText: 'Kennel web' }).waitFor();
    expect(await page.locator('#secret-value').count()).toBe(0);
    expect(await page.content()).not.toContain(secret);

    // Edit: a redirect URI fewer and a scope; what the form does not show is kept.
    const {
      client_id: _id,
      client_id_issued_at: _issued,
      uuid: _uuid,
      type: _type,
      client_Id: _Id,
      created: _created,
      modified: _modified,
      metadata: _metadata,
      ...metadata
    } = stored;
    const hidden = { require_consent: false, post_logout_redirect_uris: ['https://kennel.example/bye'] };
    expect((await api('PUT', `${CLIENTS}/${stored.client_id}`, { ...metadata, ...hidden })).status).toBe(200);
    await page.click('a:text("Kennel web")');
    await page.locator('h1', { hasText: 'Kennel web' }).waitFor();
    expect(await page.inputValue('#client-redirects')).toBe('https://kennel.example/callback\nhttps://kennel.example/other');
    expect(await page.isChecked('input[value=client_credentials]')).toBe(true);
    await page.fill('#client-redirects', 'https://kennel.example/callback');
    await page.fill('#client-scope', 'openid api');
    await page.click('button:text("Save")');
    await page.locator('text=Saved.').waitFor();
    const edited = (await api('GET', `${CLIENTS}/${stored.client_id}`)).body.entities[0];
    expect(edited).toMatchObject({ redirect_uris: ['https://kennel.example/callback'], scope: 'openid api', ...hidden });
    expect(await clientCredentials(stored.client_id, secret)).toBe(200);
    await expectAccessible(page, 'client');

    // Delete, after the confirmation.
    await page.click('text=Delete…');
    await page.locator('dialog[open]').waitFor();
    await expectAccessible(page, 'client delete confirmation');
    await page.click('dialog button.danger');
    await page.waitForURL(/\/sandbox\/clients$/);
    await page.locator('text=This application has no OAuth client yet.').waitFor();
    expect((await api('GET', `${CLIENTS}/${stored.client_id}`)).status).toBe(404);
    expect(await clientCredentials(stored.client_id, secret)).toBe(401);
    await page.context().close();
  }, 120_000);

  it("shows the application's credentials on request and rotates them", async () => {
    const page = await openPage();
    await signIn(page, DEMO);
    await page.goto(`${harness.url}/console/orgs/demo/apps/sandbox/credentials`);
    const before = (await api('GET', '/management/orgs/demo/apps/sandbox/credentials')).body.credentials;
    await page.locator('#credentials-client-id', { hasText: before.client_id }).waitFor();
    expect(await page.content()).not.toContain(before.client_secret);
    await page.click('button:text("Show secret")');
    expect(await page.locator('#credentials-secret').textContent()).toBe(before.client_secret);
    await expectAccessible(page, 'credentials');

    await page.click('text=Generate a new secret…');
    await page.locator('dialog[open]').waitFor();
    await page.click('dialog button.danger');
    const fresh = (await page.locator('#secret-value').textContent())!.trim();
    expect(fresh).not.toBe(before.client_secret);
    expect(await clientCredentials(before.client_id, fresh)).toBe(200);
    expect(await clientCredentials(before.client_id, before.client_secret)).toBe(401);
    expect(await page.locator('#credentials-secret').textContent()).not.toContain(fresh);
    await expectAccessible(page, 'credentials rotated');
    await page.context().close();
  }, 60_000);

  it('says the server’s version; a sysadmin sees which signing keys are active and rotates them', async () => {
    const version = ((await (await fetch(`${harness.url}/status`)).json()) as { version: string }).version;
    const page = await openPage();
    await signIn(page, DEMO);
    await page.click('.who a:text("Server")');
    await page.locator('#server-version', { hasText: version }).waitFor();
    await page.locator('#server-ready', { hasText: 'ready' }).waitFor();
    expect(await page.locator('main').textContent()).toContain("Signing keys are a sysadmin's");
    // The database kind, the uptime and the figures are a sysadmin's too.
    expect(await page.locator('#server-database, #server-uptime, #figures-title').count()).toBe(0);
    await expectAccessible(page, 'server');
    await page.context().close();

    const root = await openPage();
    await signIn(root, ROOT);
    await root.goto(`${harness.url}/console/server`);
    await root.locator('#server-database', { hasText: TEST_DATABASE_URL === undefined ? 'SQLite' : 'PostgreSQL' }).waitFor();
    expect(await root.locator('#server-uptime').textContent()).toMatch(/^\d+ (s|min|h|d)\b/);
    // Figures from /metrics: the requests this test made, the tokens it got.
    await root.locator('#figure-requests').waitFor();
    const figure = async (id: string) => Number((await root.locator(`#figure-${id}`).textContent())!.replace(/[^\d]/g, ''));
    expect(await figure('requests')).toBeGreaterThan(10);
    expect(await figure('tokens')).toBeGreaterThanOrEqual(2);
    expect(await figure('memory')).toBeGreaterThan(0);
    const active = root.locator('tbody tr', { hasText: 'active' });
    await active.nth(1).waitFor();
    const activeKids = async () => (await active.locator('td:first-child').allTextContents()).sort();
    const listed = (await api('GET', '/management/keys', undefined, ROOT)).body.entities as { kid: string; active?: string }[];
    const before = await activeKids();
    expect(before).toEqual(
      listed
        .filter((key) => key.active !== undefined)
        .map((key) => key.kid)
        .sort(),
    );
    await expectAccessible(root, 'server, sysadmin');
    await root.screenshot({ path: join(SHOTS, 'console-server.png'), fullPage: true });

    await root.click('text=Rotate keys…');
    await root.locator('dialog[open]').waitFor();
    await root.click('dialog button.danger');
    await root.locator('text=Rotated:').waitFor();
    await root.locator('tbody tr').nth(3).waitFor();
    const after = await activeKids();
    expect(after).toHaveLength(2);
    expect(after.filter((kid) => before.includes(kid))).toEqual([]);
    expect((await root.locator('tbody tr', { hasText: 'retired' }).locator('td:first-child').allTextContents()).sort()).toEqual(before);
    await root.context().close();
  }, 60_000);
});
