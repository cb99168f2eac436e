/**
 * The console's devices, push and activity screens in a real browser (test/console/console-helpers.ts),
 * against a local FCM (test/push/fcm-server.ts) that the server sends to: the demo admin creates
 * notifiers from key files chosen in the browser (a malformed key is refused, naming the field),
 * sends a test notification to a user and watches it become "delivered" with its receipt, sends
 * one to a device whose token FCM refuses and sees "failed" with FCM's error, deletes a device
 * and a notifier after a confirmation, and filters the activities and the audit events.
 * axe-core finds no serious or critical problem on any of these screens.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { HAS_CHROMIUM } from '../chromium.js';
import { startLocalFcm, type LocalFcm } from '../push/fcm-server.js';
import { appleKey, serviceAccount, type AppleKey, type ServiceAccountKey } from '../push/setup.js';
import { DEMO, expectAccessible, SHOTS, useConsoleServer } from './console-helpers.js';

let fcm: LocalFcm;
let account: ServiceAccountKey;
let apple: AppleKey;
beforeAll(async () => {
  if (!HAS_CHROMIUM) return;
  // The token endpoint's address goes into the service account, so the server is made first.
  const placeholder = await serviceAccount('http://127.0.0.1:1/token');
  fcm = await startLocalFcm({ publicKey: placeholder.publicKey, clientEmail: placeholder.account.client_email, projectId: placeholder.account.project_id });
  account = { ...placeholder, account: { ...placeholder.account, token_uri: fcm.tokenUri } };
  apple = await appleKey();
  // A token FCM no longer knows: a permanent error, so the notification fails at once.
  fcm.answer = (message) => (message.token.startsWith('gone-') ? { status: 404, errorCode: 'UNREGISTERED' } : { status: 200 });
});
afterAll(async () => {
  await fcm?.close();
});
const running = useConsoleServer({}, () => ({ IDP_FCM_URL: fcm.url }));
const APP = '/demo/sandbox';
const api = async (method: string, path: string, body?: unknown) => {
  const response = await running.api(method, path, body);
  if (response.status !== 200) throw new Error(`${method} ${path} → ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
};

async function openArea(page: Page, name: string, title: string): Promise<void> {
  await page.click(`nav[aria-label=Application] a:text-is("${name}")`);
  await page.locator('h1', { hasText: title }).waitFor();
}

async function openPage(): Promise<Page> {
  const context = await running.browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  await running.signIn(page, DEMO);
  await page.goto(`${running.url}/console/orgs/demo/apps/sandbox`);
  await page.locator('caption', { hasText: 'Collections' }).waitFor();
  return page;
}

/** The cells of the first row that has `text` (wait for it first: this does not). */
const rowTexts = async (page: Page, text: string) =>
  (await page.locator('tr', { hasText: text }).first().locator('td').allTextContents()).map((cell) => cell.trim());

describe.skipIf(!HAS_CHROMIUM)(`devices, push and activity in the console${HAS_CHROMIUM ? '' : ' (skipped: /usr/bin/chromium is missing)'}`, () => {
  it('creates notifiers from key files, sends to a user (delivered) and to a device FCM refuses (failed), deletes a device and a notifier', async () => {
    await api('POST', `${APP}/users`, [{ username: 'pat' }, { username: 'sam' }]);
    const devices = (
      await api('POST', `${APP}/devices`, [
        { name: 'pat-phone', 'android.notifier.id': 'live-token-1' },
        { name: 'sam-phone', 'android.notifier.id': 'gone-token-2' },
        { name: 'old-tablet', 'android.notifier.id': 'live-token-3' },
      ])
    ).entities as { uuid: string; name: string }[];
    await api('POST', `${APP}/users/pat/devices/${devices[0].uuid}`);
    await api('POST', `${APP}/users/sam/devices/${devices[1].uuid}`);

    const page = await openPage();
    await openArea(page, 'Push', 'Push');
    await page.locator('text=This application has no notifier yet.').waitFor();

    // FCM: the service-account JSON file, read in the browser.
    await page.fill('#notifier-name', 'android');
    await page.check('input[name=provider][value=google]');
    await page.selectOption('#notifier-environment', 'production');
    await page.setInputFiles('#notifier-file', {
      name: 'service-account.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(account.account)),
    });
    await page.click('button:text("Create notifier")');
    await page.locator('td', { hasText: 'Google FCM' }).waitFor();
    expect(await rowTexts(page, 'Google FCM')).toEqual(['android', 'Google FCM', 'production', expect.any(String), 'Delete…']);

    // APNs: a file that is no .p8 key is refused, naming the field; nothing is created.
    await page.fill('#notifier-name', 'ios');
    await page.check('input[name=provider][value=apple]');
    await page.selectOption('#notifier-environment', { label: 'sandbox (development)' });
    await page.setInputFiles('#notifier-file', { name: 'AuthKey.p8', mimeType: 'application/octet-stream', buffer: Buffer.from('not a key') });
    await page.fill('#notifier-keyId', apple.keyId);
    await page.fill('#notifier-teamId', apple.teamId);
    await page.fill('#notifier-topic', 'com.example.app');
    await page.click('button:text("Create notifier")');
    expect(await page.locator('form[aria-labelledby=new-notifier-title] .problem').textContent()).toMatch(/p8/);
    expect((await api('GET', `${APP}/notifiers`)).entities.map((notifier: { name: string }) => notifier.name)).toEqual(['android']);
    // The real key file, for APNs' sandbox (the development environment).
    await page.setInputFiles('#notifier-file', { name: 'AuthKey.p8', mimeType: 'application/octet-stream', buffer: Buffer.from(apple.p8) });
    await page.click('button:text("Create notifier")');
    await page.locator('td', { hasText: 'Apple APNs, com.example.app' }).waitFor();
    expect(await rowTexts(page, 'Apple APNs')).toEqual(['ios', 'Apple APNs, com.example.app', 'development', expect.any(String), 'Delete…']);
    const ios = (await api('GET', `${APP}/notifiers/ios`)).entities[0];
    expect(ios).toMatchObject({ provider: 'apple', keyId: apple.keyId, teamId: apple.teamId, topic: 'com.example.app' });
    expect(JSON.stringify(ios)).not.toContain('PRIVATE KEY');
    await expectAccessible(page, 'push');

    // A test notification to a user: queued, then delivered, with its receipt.
    await page.selectOption('#send-kind', 'user');
    await page.fill('#send-target', 'pat');
    await page.selectOption('#send-notifier', 'android');
    await page.fill('#send-text', 'Hello Pat');
    await page.click('button:text-is("Send")');
    await page.locator('#notification-state', { hasText: 'delivered' }).waitFor();
    expect(fcm.messages.map((message) => [message.token, message.message.notification])).toEqual([['live-token-1', { body: 'Hello Pat' }]]);
    const receipt = page.locator('table:has(caption:text("Receipts")) tbody tr');
    expect(await receipt.count()).toBe(1);
    expect(await receipt.locator('td').allTextContents()).toEqual([devices[0].uuid, 'android', expect.stringMatching(/^sent /)]);
    await page.locator('tr', { hasText: 'Hello Pat' }).locator('td', { hasText: 'delivered' }).waitFor();
    await expectAccessible(page, 'push, delivered');
    await page.screenshot({ path: join(SHOTS, 'console-push.png'), fullPage: true });

    // A device, its user, and a send to it that FCM refuses: failed, with FCM's error.
    await openArea(page, 'Devices', 'Devices');
    await page.locator('tbody a', { hasText: 'sam-phone' }).waitFor();
    expect(await rowTexts(page, 'sam-phone')).toEqual(['sam-phone', 'android', expect.any(String)]);
    await expectAccessible(page, 'devices');
    await page.click('tbody a:text("sam-phone")');
    await page.locator('h1', { hasText: 'sam-phone' }).waitFor();
    await page.locator('section[aria-labelledby=device-users-title] a', { hasText: 'sam' }).waitFor();
    expect(await page.inputValue('#entity-json')).toContain('"android.notifier.id": "gone-token-2"');
    await page.selectOption('#send-notifier', 'android');
    await page.fill('#send-text', 'Hello Sam');
    await page.click('button:text-is("Send")');
    await page.locator('#notification-state', { hasText: 'failed' }).waitFor();
    expect(await page.locator('table:has(caption:text("Receipts")) tbody td').last().textContent()).toMatch(/^error UNREGISTERED: /);
    expect(fcm.messages.map((message) => message.token)).toEqual(['live-token-1', 'gone-token-2']);
    await expectAccessible(page, 'device, failed send');
    await page.screenshot({ path: join(SHOTS, 'console-device-failed.png'), fullPage: true });

    // A device deleted after a confirmation.
    await openArea(page, 'Devices', 'Devices');
    await page.click('tbody a:text("old-tablet")');
    await page.locator('h1', { hasText: 'old-tablet' }).waitFor();
    await page.click('button:text("Delete…")');
    await page.click('dialog button.danger');
    await page.locator('h1', { hasText: 'Devices' }).waitFor();
    await page.locator('tbody a', { hasText: 'pat-phone' }).waitFor();
    expect(await page.locator('tbody a', { hasText: 'old-tablet' }).count()).toBe(0);
    expect((await running.api('GET', `${APP}/devices/${devices[2].uuid}`)).status).toBe(404);

    // A notifier deleted after a confirmation; cancelling first changes nothing.
    await openArea(page, 'Push', 'Push');
    await page.click('button[aria-label="Delete ios…"]');
    await page.click('dialog button:text("Cancel")');
    expect((await running.api('GET', `${APP}/notifiers/ios`)).status).toBe(200);
    await page.click('button[aria-label="Delete ios…"]');
    await page.click('dialog button.danger');
    await page.locator('td', { hasText: 'Apple APNs' }).waitFor({ state: 'detached' });
    expect((await running.api('GET', `${APP}/notifiers/ios`)).status).toBe(404);
    // The notifications sent, newest first, and the receipts of the one asked for.
    expect(await page.locator('tbody tr', { hasText: 'Hello' }).allTextContents()).toEqual([
      expect.stringContaining('Hello Samfailed'),
      expect.stringContaining('Hello Patdelivered'),
    ]);
    await page.locator('tr', { hasText: 'Hello Pat' }).locator('button:text("Receipts")').click();
    await page.locator('#notification-state', { hasText: 'delivered' }).waitFor();
    // At a phone's width, in the dark.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.emulateMedia({ colorScheme: 'dark' });
    await expectAccessible(page, 'push, phone, dark');
    await page.context().close();
  }, 90_000);

  it('lists activities and audit events, filtered by verb, actor, action and time', async () => {
    await api('POST', `${APP}/users`, { username: 'lee', name: 'Lee' });
    await api('POST', `${APP}/users/lee/activities`, { verb: 'post', content: 'First post' });
    await api('POST', `${APP}/users/lee/activities`, { verb: 'like', content: 'Liked a photo' });
    // A factor enrolled and removed: two audit events of the category security.
    const factor = await running.api('POST', `${APP}/users/lee/factors`, { type: 'totp' });
    expect(factor.status).toBe(201);
    await api('DELETE', `${APP}/users/lee/factors/${factor.body.id ?? factor.body.entities[0].id}`);

    const page = await openPage();
    await openArea(page, 'Activity', 'Activity');
    const activities = page.locator('section[aria-labelledby=activities-title]');
    await activities.locator('td', { hasText: 'Liked a photo' }).waitFor();
    expect(await activities.locator('tbody tr').count()).toBe(2);
    await page.fill('#activities-verb', 'like');
    await activities.locator('button:text("Filter")').click();
    await activities.locator('code', { hasText: "verb = 'like'" }).waitFor();
    await activities.locator('td', { hasText: 'First post' }).waitFor({ state: 'detached' });
    expect(await activities.locator('tbody tr td').allTextContents()).toEqual([expect.any(String), 'lee', 'like', 'Liked a photo']);
    const events = page.locator('section[aria-labelledby=events-title]');
    await events.locator('td', { hasText: 'factor_removed' }).waitFor();
    await page.fill('#events-action', 'factor_removed');
    await events.locator('button:text("Filter")').click();
    await events.locator('code', { hasText: "action = 'factor_removed'" }).waitFor();
    await events.locator('td', { hasText: 'factor_enrolled' }).waitFor({ state: 'detached' });
    const lee = (await api('GET', `${APP}/users/lee`)).entities[0];
    expect(await events.locator('tbody tr td').allTextContents()).toEqual([
      expect.any(String),
      'security',
      'factor_removed',
      'second factor removed',
      lee.uuid,
    ]);
    await expectAccessible(page, 'activity');
    await page.screenshot({ path: join(SHOTS, 'console-activity.png'), fullPage: true });
    // By actor: both of lee's; and nothing happened after a time in the future.
    await page.fill('#activities-verb', '');
    await page.fill('#activities-actor', 'lee');
    await activities.locator('button:text("Filter")').click();
    await activities.locator('td', { hasText: 'First post' }).waitFor();
    expect(await activities.locator('tbody tr').count()).toBe(2);
    await page.fill('#activities-since', '2999-01-01T00:00');
    await activities.locator('button:text("Filter")').click();
    await activities.locator('text=Nothing matches.').waitFor();

    // A quote in a filter is part of the value, not of the query.
    await page.fill('#events-action', "it's");
    await events.locator('button:text("Filter")').click();
    await events.locator('text=Nothing matches.').waitFor();
    await page.context().close();
  }, 60_000);
});
