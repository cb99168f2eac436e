/**
 * The console's users, groups and roles in a real browser (test/console/helpers.ts): the demo
 * admin creates an app user, sets their password, deactivates and activates them and resets
 * their factors; creates a role with a permission and assigns it; asks the permission tester,
 * which says yes by that permission and no to what nothing allows; creates a group and adds
 * and removes a member; pages through users. axe-core finds no serious or critical problem on
 * any of these screens, at 1280×800 and at a phone's width in the dark.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { HAS_CHROMIUM } from '../chromium.js';
import { DEMO, expectAccessible, SHOTS, useConsoleServer } from './console-helpers.js';

const running = useConsoleServer();
const APP = '/demo/sandbox';
const api = (method: string, path: string, body?: unknown) => running.api(method, path, body);

async function openSection(page: Page, name: string, title: string): Promise<void> {
  await page.click(`nav[aria-label=Application] a:text("${name}")`);
  await page.locator('h1', { hasText: title }).waitFor();
}

/** The tester's verdict; `user` null on a user's own screen, where the tester has no user field. */
async function test(page: Page, verb: string, path: string, user: string | null = 'fred'): Promise<string> {
  if (user !== null) await page.fill('#tester-user', user);
  await page.selectOption('#tester-verb', verb);
  await page.fill('#tester-path', path);
  await page.click('button:text-is("Test")');
  const verdict = page.locator('.verdict p');
  await verdict.waitFor();
  return ((await verdict.textContent()) ?? '').replace(/\s+/g, ' ').trim();
}

describe.skipIf(!HAS_CHROMIUM)(`users, groups and roles in the console${HAS_CHROMIUM ? '' : ' (skipped: /usr/bin/chromium is missing)'}`, () => {
  it('creates a user, a role with a permission, assigns it and checks it in the tester; a group with a member; pages users', async () => {
    const context = await running.browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    await running.signIn(page, DEMO);
    await page.goto(`${running.url}/console/orgs/demo/apps/sandbox`);
    await page.locator('caption', { hasText: 'Collections' }).waitFor();

    // A user, made in the form.
    await openSection(page, 'Users', 'Users');
    await page.fill('#new-username', 'fred');
    await page.fill('#new-email', 'fred@example.com');
    await page.fill('#new-password', 'first-password-1');
    await page.click('button:text("Create user")');
    await page.locator('tbody a', { hasText: 'fred' }).waitFor();
    expect(await page.locator('tr', { hasText: 'fred' }).locator('td').allTextContents()).toEqual(['fred', '', 'fred@example.com', 'active']);
    await expectAccessible(page, 'users');
    const fred = (await api('GET', `${APP}/users/fred`)).body.entities[0];
    expect(fred).toMatchObject({ username: 'fred', email: 'fred@example.com' });

    // One user: a new password works, deactivate and activate, factors reset.
    await page.click('tbody a:text("fred")');
    await page.locator('h1', { hasText: 'fred' }).waitFor();
    await page.fill('#new-password', 'second-password-2');
    await page.click('button:text("Set password")');
    await page.locator('text=Password set.').waitFor();
    const signInWith = async (password: string) =>
      (
        await fetch(`${running.url}${APP}/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ grant_type: 'password', username: 'fred', password }),
        })
      ).status;
    expect(await signInWith('second-password-2')).toBe(200);
    expect(await signInWith('first-password-1')).toBe(400);
    await page.click('button:text-is("Deactivate")');
    await page.locator('button:text-is("Activate")').waitFor();
    expect((await api('GET', `${APP}/users/fred`)).body.entities[0].disabled).toBe(true);
    expect(await signInWith('second-password-2')).not.toBe(200);
    await page.click('button:text-is("Activate")');
    await page.locator('button:text-is("Deactivate")').waitFor();
    expect(await signInWith('second-password-2')).toBe(200);

    expect((await api('POST', `${APP}/users/fred/factors`, { type: 'totp', name: 'phone' })).status).toBe(201);
    await page.reload();
    await page.locator('#factors-title').waitFor();
    await page.locator('text=phone (totp, pending)').waitFor();
    await expectAccessible(page, 'user');
    await page.click('text=Reset factors…');
    await page.click('dialog button.danger');
    await page.locator('text=No second factor.').waitFor();
    expect((await api('GET', `${APP}/users/fred/factors`)).body.entities).toEqual([]);

    // A role with a permission, and fred in it.
    await openSection(page, 'Roles and permission tester', 'Roles');
    await page.fill('#new-name', 'walker');
    await page.click('button:text("Create role")');
    await page.click('tbody a:text("walker")');
    await page.locator('h1', { hasText: 'walker' }).waitFor();
    await page.fill('#new-permission', 'put:/dogs');
    await page.click('button:text("Add permission")');
    await page.locator('.rules code', { hasText: 'put:/dogs' }).waitFor();
    await page.fill('#new-permission', 'put,post:/dogs/*');
    await page.click('button:text("Add permission")');
    await page.locator('.rules code', { hasText: 'put,post:/dogs/*' }).waitFor();
    await page.click('button[aria-label="Remove put:/dogs"]');
    await page.locator('.rules code', { hasText: /^put:\/dogs$/ }).waitFor({ state: 'detached' });
    await page.fill('#new-permission', 'fetch:/dogs');
    await page.click('button:text("Add permission")');
    expect(await page.locator('#permissions-title ~ form [role=alert]').textContent()).toContain('unknown verb "fetch"');
    await page.fill('#add-users', 'fred');
    await page.click('button:text("Add user")');
    await page.locator('#users-title ~ .rules a', { hasText: 'fred' }).waitFor();
    expect((await api('GET', `${APP}/roles/walker/permissions`)).body.data).toEqual(['put,post:/dogs/*']);
    expect((await api('GET', `${APP}/roles/walker/users`)).body.entities.map((user: { username: string }) => user.username)).toEqual(['fred']);
    await expectAccessible(page, 'role');

    // The tester: yes by the role's permission, no where nothing allows.
    await openSection(page, 'Roles and permission tester', 'Roles');
    expect(await test(page, 'put', '/dogs/fido')).toBe('Allowed: fred may PUT /dogs/fido, by put,post:/dogs/*.');
    expect(await test(page, 'delete', '/dogs/fido')).toBe('Denied: fred may not DELETE /dogs/fido: no permission they hold allows it.');
    await page.click('.verdict summary');
    expect(await page.locator('.verdict details li').allTextContents()).toContain('put,post:/dogs/*');
    await expectAccessible(page, 'roles with the tester');
    await page.screenshot({ path: join(SHOTS, 'console-roles.png'), fullPage: true });
    await page.fill('#tester-path', 'dogs');
    await page.click('button:text-is("Test")');
    expect(await page.locator('#tester-title ~ [role=alert]').textContent()).toContain('must start with "/"');
    await page.fill('#tester-path', '/dogs');
    await page.click('button:text-is("Test")');
    await page.fill('#tester-user', 'nobody');
    await page.click('button:text-is("Test")');
    await page.locator('#tester-title ~ [role=alert]').waitFor();
    expect(await page.locator('.verdict p').count()).toBe(0);

    // Fred's own screen: the role among his, and the tester for him alone.
    await page.click('tbody a:text("walker")');
    await page.click('#users-title ~ .rules a:text("fred")');
    await page.locator('h1', { hasText: 'fred' }).waitFor();
    await page.locator('#membership-title ~ p a', { hasText: 'walker' }).waitFor();
    expect(await page.locator('#tester-user').count()).toBe(0);
    expect(await test(page, 'post', '/dogs', null)).toBe('Denied: fred may not POST /dogs: no permission they hold allows it.');
    expect(await test(page, 'post', '/dogs/rex', null)).toBe('Allowed: fred may POST /dogs/rex, by put,post:/dogs/*.');

    // A group, with fred in it, then without.
    await openSection(page, 'Groups', 'Groups');
    await page.fill('#new-path', 'walkers');
    await page.click('button:text("Create group")');
    await page.click('tbody a:text("walkers")');
    await page.locator('h1', { hasText: 'walkers' }).waitFor();
    await page.fill('#add-users', 'fred');
    await page.click('button:text("Add user")');
    await page.locator('#users-title ~ .rules a', { hasText: 'fred' }).waitFor();
    expect((await api('GET', `${APP}/groups/walkers/users`)).body.entities).toHaveLength(1);
    await expectAccessible(page, 'group');
    await page.click('button[aria-label="Remove fred"]');
    await page.locator('text=No user.').waitFor();
    expect((await api('GET', `${APP}/groups/walkers/users`)).body.entities).toHaveLength(0);

    // Users a page at a time: twenty, then the rest.
    const more = Array.from({ length: 20 }, (_, index) => ({ username: `user-${String(index + 1).padStart(2, '0')}` }));
    expect((await api('POST', `${APP}/users`, more)).status).toBe(200);
    await openSection(page, 'Users', 'Users');
    await page.locator('td', { hasText: 'user-20' }).waitFor();
    expect(await page.locator('tbody tr').count()).toBe(20);
    await page.click('text=Next page');
    await page.locator('tbody a', { hasText: 'fred' }).waitFor();
    expect(await page.locator('tbody td:first-child').allTextContents()).toEqual(['fred']);
    await page.click('text=Previous page');
    await page.locator('td', { hasText: 'user-20' }).waitFor();

    // A phone's width, in the dark: nothing wider than the screen, the name column left out.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    expect(await page.locator('th:visible').allTextContents()).toEqual(['Username', 'Email', 'State']);
    await expectAccessible(page, 'users, phone, dark');
    await openSection(page, 'Roles and permission tester', 'Roles');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await expectAccessible(page, 'roles, phone, dark');
    await context.close();
    // One walk through a dozen screens, each checked by axe: more than the default 30 s on a busy machine.
  }, 60_000);
});
