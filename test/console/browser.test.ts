/**
 * The admin console in a real browser (Debian's headless Chromium driven by playwright-core,
 * as test/authorize/browser.test.ts): the demo admin signs in through /connect/authorize, creates
 * an application, a collection and entities, pages and queries them with ql (a syntax error shown
 * where it is), edits and deletes one, and signs out; an admin who administers nothing sees
 * "No access". axe-core finds no serious or critical problem on any screen, in light and dark,
 * at 1280×800 and at a phone's width.
 *
 * Screenshots go where console-helpers.ts says.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { HAS_CHROMIUM } from '../chromium.js';
import { DEMO, expectAccessible, heading, SHOTS, useConsoleServer } from './console-helpers.js';

const harness = useConsoleServer();
const { api, signIn } = harness;

describe.skipIf(!HAS_CHROMIUM)(`admin console in a real browser${HAS_CHROMIUM ? '' : ' (skipped: /usr/bin/chromium is missing)'}`, () => {
  it('signs in as the demo admin, creates an application, a collection and entities, queries, edits, deletes, signs out', async () => {
    const context = await harness.browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    // The API's refusals (a 404, a query's 400) are logged too; what must not appear is the CSP refusing the console.
    const refused: string[] = [];
    page.on('console', (message) => message.text().includes('Content Security Policy') && refused.push(message.text()));

    await signIn(page, DEMO);
    await page.locator('h1', { hasText: 'Organizations' }).waitFor();
    expect(await page.locator('.cards a').allTextContents()).toEqual(['demo']);
    expect(await page.locator('.who').textContent()).toContain('demo');
    await expectAccessible(page, 'organizations');
    await page.screenshot({ path: join(SHOTS, 'console-organizations.png') });

    // An application, by the keyboard's way in: the link, then the form.
    await page.click('.cards a');
    await page.locator('h1', { hasText: 'Applications of demo' }).waitFor();
    await page.locator('.cards a', { hasText: 'sandbox' }).waitFor();
    await page.fill('#app-name', 'kennel');
    await page.press('#app-name', 'Enter');
    await page.waitForURL(/\/console\/orgs\/demo\/apps\/kennel$/);
    await page.locator('caption', { hasText: 'Collections' }).waitFor();
    expect(await page.locator('tbody tr td:first-child').allTextContents()).toContain('roles');
    await expectAccessible(page, 'collections');

    // A collection made by its first entities; a body that is not JSON is refused in place.
    await page.fill('#collection-name', 'dogs');
    await page.fill('#collection-first', '[{"name": "rex", "age": 3},');
    await page.click('text=Create collection');
    expect(await page.locator('[role=alert]').textContent()).toContain('not JSON');
    await page.fill('#collection-first', '[{"name": "rex", "age": 3}, {"name": "fido", "age": 5}, {"name": "spot", "age": 7}]');
    await page.click('text=Create collection');
    await page.waitForURL(/\/collections\/dogs$/);
    await page.locator('tbody tr').nth(2).waitFor();
    expect(await page.locator('tbody td:first-child').allTextContents()).toEqual(['spot', 'fido', 'rex']);

    // Twenty more: the first page holds twenty, the next the rest, and back.
    const pups = Array.from({ length: 20 }, (_, index) => ({ name: `pup-${String(index + 1).padStart(2, '0')}`, age: 1 }));
    expect((await api('POST', '/demo/kennel/dogs', pups)).status).toBe(200);
    await page.fill('#ql', '');
    await page.click('button:text("Run")');
    await page.locator('td', { hasText: 'pup-20' }).waitFor();
    expect(await page.locator('tbody tr').count()).toBe(20);
    await page.click('text=Next page');
    await page.locator('td', { hasText: 'rex' }).waitFor();
    expect(await page.locator('tbody td:first-child').allTextContents()).toEqual(['spot', 'fido', 'rex']);
    await page.click('text=Previous page');
    await page.locator('td', { hasText: 'pup-20' }).waitFor();
    expect(await page.locator('text=Previous page').isDisabled()).toBe(true);

    // A syntax error is shown where it is; a good query finds what it says.
    await page.fill('#ql', 'select * where age >> 3');
    await page.press('#ql', 'Enter');
    const problem = page.locator('#ql-problem');
    await problem.waitFor();
    expect(await problem.locator('p').textContent()).toContain('at position 21');
    expect(await problem.locator('pre').textContent()).toBe(`select * where age >> 3\n${' '.repeat(20)}^`);
    expect(await page.getAttribute('#ql', 'aria-invalid')).toBe('true');
    await expectAccessible(page, 'entities with a query error');
    await page.screenshot({ path: join(SHOTS, 'console-query-error.png') });
    await page.fill('#ql', 'select * where age > 4 order by age asc');
    await page.press('#ql', 'Enter');
    await page.locator('td', { hasText: 'fido' }).waitFor();
    expect(await page.locator('tbody td:first-child').allTextContents()).toEqual(['fido', 'spot']);
    expect(await page.locator('#ql-problem').count()).toBe(0);
    await expectAccessible(page, 'entities');
    await page.screenshot({ path: join(SHOTS, 'console-entities.png') });

    // Edit fido as JSON: a property changed, one added, one removed.
    await page.click('a:text("fido")');
    await page.locator('h1', { hasText: 'fido' }).waitFor();
    const shown = JSON.parse(await page.inputValue('#entity-json'));
    expect(shown).toMatchObject({ name: 'fido', age: 5, type: 'dog' });
    const { age: _age, ...withoutAge } = shown;
    await page.fill('#entity-json', JSON.stringify({ ...withoutAge, color: 'brown', weight: 12 }, null, 2));
    await page.click('button:text("Save")');
    await page.locator('text=Saved.').waitFor();
    const stored = (await api('GET', '/demo/kennel/dogs/fido')).body.entities[0];
    expect(stored).toMatchObject({ name: 'fido', color: 'brown', weight: 12 });
    expect(stored).not.toHaveProperty('age');
    await page.fill('#entity-json', '{"name": ');
    await page.click('button:text("Save")');
    expect(await page.locator('#entity-json-problem').textContent()).toContain('not JSON');
    await page.fill('#entity-json', JSON.stringify(stored, null, 2));
    await expectAccessible(page, 'entity');
    await page.screenshot({ path: join(SHOTS, 'console-entity.png') });

    // Delete, after saying no once: the dialog is the browser's modal, Escape closes it.
    await page.click('text=Delete…');
    await page.locator('dialog[open]').waitFor();
    await expectAccessible(page, 'delete confirmation');
    await page.keyboard.press('Escape');
    await page.locator('dialog[open]').waitFor({ state: 'detached' });
    expect((await api('GET', '/demo/kennel/dogs/fido')).status).toBe(200);
    await page.click('text=Delete…');
    await page.click('dialog[open] button.danger');
    await page.waitForURL(/\/collections\/dogs$/);
    expect((await api('GET', '/demo/kennel/dogs/fido')).status).toBe(404);

    // The counts follow.
    await page.click('nav[aria-label=Breadcrumb] a:text("kennel")');
    await page.locator('caption', { hasText: 'Collections' }).waitFor();
    expect(await page.locator('tr', { hasText: 'dogs' }).locator('td.number').textContent()).toBe('22');

    // A phone's width, in the dark.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.click('a:text("dogs")');
    await page.locator('td', { hasText: 'pup-20' }).waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    expect(await page.locator('body').evaluate((body) => getComputedStyle(body).backgroundColor)).toBe('rgb(13, 17, 23)');
    await expectAccessible(page, 'entities, phone, dark');
    await page.screenshot({ path: join(SHOTS, 'console-phone-dark.png') });
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1280, height: 800 });

    // Sign out: the refresh token is revoked and the browser's session ends.
    await page.click('text=Sign out');
    await page.waitForURL(/\/connect\/endsession/);
    await page.click('button[value=logout]');
    await page.waitForURL(/\/console\/signed-out$/);
    expect(await heading(page)).toBe('Signed out');
    await page.goto(`${harness.url}/console/`);
    await page.waitForURL(/\/connect\/authorize/);
    expect(await page.locator('#password').count()).toBe(1);
    expect(refused).toEqual([]);
    await context.close();
  }, 120_000);

  it('shows "No access" to an admin who administers no organization', async () => {
    const nobody = { username: 'nobody', email: 'nobody@example.com', password: 'nobodys-password-1' };
    const created = await fetch(`${harness.url}/management/users`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(nobody),
    });
    expect(created.status).toBe(200);
    const context = await harness.browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await signIn(page, nobody);
    await page.locator('h1', { hasText: 'No access' }).waitFor();
    expect(await page.locator('main').textContent()).toContain('you administer no organization');
    expect(await page.locator('text=Open an organization').count()).toBe(0);
    await expectAccessible(page, 'no access');
    await page.screenshot({ path: join(SHOTS, 'console-no-access.png') });
    await context.close();
  }, 60_000);
});
