/**
 * The console's data screens in a real browser (test/console/console-helpers.ts): entities sorted
 * by a column (an `order by` added to the typed query, aria-sort on the header, by the keyboard
 * too); pages of 1,000 rows (how long they took to render is printed for docs/benchmarks.md, not
 * asserted); an entity's connections both ways, made, followed and removed after a confirmation;
 * an entity's file uploaded, shown inline, downloaded and replaced; the console in German, then
 * French by its switcher, kept across a reload; and the entity list tabbed through to open an
 * entity. axe-core finds no serious or critical problem on any of these screens.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import type { Page } from 'playwright-core';
import { HAS_CHROMIUM } from '../chromium.js';
import { DEMO, expectAccessible, heading, SHOTS, useConsoleServer } from './console-helpers.js';

const running = useConsoleServer();
const api = (method: string, path: string, body?: unknown) => running.api(method, path, body);
const APP = '/demo/zoo';
const CONSOLE_APP = '/console/orgs/demo/apps/zoo';

/** A PNG of `width`×`height`, a gradient: bytes the server recognizes as image/png and the browser draws. */
function gradientPng(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  const rows = Array.from({ length: height }, (_, y) =>
    Buffer.from([0, ...Array.from({ length: width }, (_, x) => [Math.round((x / width) * 255), Math.round((y / height) * 255), 160]).flat()]),
  );
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, chunk('IHDR', header), chunk('IDAT', deflateSync(Buffer.concat(rows))), chunk('IEND', Buffer.alloc(0))]);
}
const PNG = gradientPng(240, 120);

async function openPage(locale = 'en-US'): Promise<Page> {
  const context = await running.browser.newContext({ viewport: { width: 1280, height: 800 }, locale });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  await running.signIn(page, DEMO);
  return page;
}

const names = (page: Page) => page.locator('tbody td:first-child').allTextContents();
const sortOf = (page: Page, column: string) => page.locator('th', { hasText: column }).getAttribute('aria-sort');

describe.skipIf(!HAS_CHROMIUM)(`the console's data screens${HAS_CHROMIUM ? '' : ' (skipped: /usr/bin/chromium is missing)'}`, () => {
  // An application of its own, with four dogs (bella the newest) and a cat.
  beforeAll(async () => {
    expect((await api('POST', '/management/orgs/demo/apps', { name: 'zoo' })).status).toBe(200);
    const dogs = [
      { name: 'rex', age: 3 },
      { name: 'fido', age: 5 },
      { name: 'spot', age: 7 },
      { name: 'bella', age: 1 },
    ];
    expect((await api('POST', `${APP}/dogs`, dogs)).status).toBe(200);
    expect((await api('POST', `${APP}/cats`, { name: 'tom' })).status).toBe(200);
  });

  it('sorts entities by a column, keeps the typed condition, and works by the keyboard', async () => {
    const page = await openPage();
    await page.goto(`${running.url}${CONSOLE_APP}/collections/dogs`);
    await page.locator('tbody tr').nth(3).waitFor();
    await expect.poll(() => names(page)).toEqual(['bella', 'spot', 'fido', 'rex']);
    expect(await sortOf(page, 'Name')).toBe('none');

    await page.click('th button:text("Name")');
    await page.locator('th[aria-sort=ascending]', { hasText: 'Name' }).waitFor();
    await expect.poll(() => names(page)).toEqual(['bella', 'fido', 'rex', 'spot']);
    expect(await page.inputValue('#ql')).toBe('order by name asc');
    await page.click('th button:text("Name")');
    await page.locator('th[aria-sort=descending]', { hasText: 'Name' }).waitFor();
    await expect.poll(() => names(page)).toEqual(['spot', 'rex', 'fido', 'bella']);
    await expectAccessible(page, 'entities sorted');
    await page.screenshot({ path: join(SHOTS, 'console-entities-sorted.png') });

    // A typed query keeps its condition; its own order by gives way to the column's.
    await page.fill('#ql', 'age > 2 order by age desc');
    await page.click('button:text-is("Run")');
    await page.locator('tbody tr').nth(2).waitFor();
    await expect.poll(() => names(page)).toEqual(['spot', 'fido', 'rex']);
    expect(await sortOf(page, 'Name')).toBe('none');
    await page.focus('th button:text("Name")');
    await page.keyboard.press('Enter');
    await page.locator('th[aria-sort=ascending]', { hasText: 'Name' }).waitFor();
    expect(await page.inputValue('#ql')).toBe('age > 2 order by name asc');
    await expect.poll(() => names(page)).toEqual(['fido', 'rex', 'spot']);
    await page.context().close();
  });

  it('shows 1,000 rows on one page', async () => {
    const many = Array.from({ length: 1000 }, (_, index) => ({ name: `bird-${String(index).padStart(4, '0')}`, wings: 2 }));
    expect((await api('POST', `${APP}/birds`, many)).status).toBe(200);
    const page = await openPage();
    await page.goto(`${running.url}${CONSOLE_APP}/collections/birds`);
    await page.locator('tbody tr').nth(19).waitFor();
    expect(await page.locator('tbody tr').count()).toBe(20);
    await page.selectOption('#page-size', '1000');
    await page.locator('tbody tr').nth(999).waitFor();
    expect(await page.locator('tbody tr').count()).toBe(1000);
    expect(await page.locator('tbody tr').last().locator('td').first().textContent()).toBe('bird-0000');
    // The figure for docs/benchmarks.md: the console's own User Timing measures of the last render.
    await page.waitForFunction(() => performance.getEntriesByName('idp-console:rows-painted').length > 0);
    const timing = await page.evaluate(() =>
      ['idp-console:rows', 'idp-console:rows-painted'].map((name) => {
        const entry = performance.getEntriesByName(name).at(-1) as PerformanceMeasure;
        return { name, rows: (entry.detail as { rows: number }).rows, ms: Math.round(entry.duration) };
      }),
    );
    console.log('render of the entity list:', JSON.stringify(timing));
    expect(timing.map((entry) => entry.rows)).toEqual([1000, 1000]);
    await expectAccessible(page, '1,000 entities');
    await page.screenshot({ path: join(SHOTS, 'console-entities-1000.png') });
    await page.context().close();
  });

  it("makes, follows and removes an entity's connections", async () => {
    const page = await openPage();
    await page.goto(`${running.url}${CONSOLE_APP}/collections/dogs/rex`);
    await page.locator('h2', { hasText: 'Connections' }).waitFor();
    await page.locator('text=This entity connects to nothing.').waitFor();

    await page.fill('#connection-relation', 'chases');
    await page.fill('#connection-collection', 'cats');
    await page.fill('#connection-target', 'nobody');
    await page.click('button:text-is("Connect")');
    await page.locator('section[aria-labelledby=connections-title] form [role=alert]').waitFor();
    await page.fill('#connection-target', 'tom');
    await page.click('button:text-is("Connect")');
    const outgoing = page.locator('ul[aria-label="From this entity"] li');
    await outgoing.first().waitFor();
    expect((await outgoing.textContent())?.replace(/\s+/g, ' ')).toContain('chases → tom (cats)');
    const chased = (await api('GET', `${APP}/dogs/rex/chases`)).body.entities.map((entity: { name: string }) => entity.name);
    expect(chased).toEqual(['tom']);
    await expectAccessible(page, 'entity with connections');
    await page.screenshot({ path: join(SHOTS, 'console-connections.png'), fullPage: true });

    // Followed to the other entity, which sees the connection coming in, and back.
    await outgoing.locator('a', { hasText: 'tom' }).click();
    await page.locator('h1', { hasText: 'tom' }).waitFor();
    const incoming = page.locator('ul[aria-label="To this entity"] li');
    await incoming.first().waitFor();
    expect((await incoming.textContent())?.replace(/\s+/g, ' ')).toContain('rex (dogs) → chases');
    await incoming.locator('a', { hasText: 'rex' }).click();
    await page.locator('h1', { hasText: 'rex' }).waitFor();

    // Removed after a confirmation; cancelled first, nothing changes.
    await page.click('button[aria-label="Remove chases tom"]');
    await page.locator('dialog[open]', { hasText: 'Remove this connection?' }).waitFor();
    await page.click('dialog[open] button:text-is("Cancel")');
    expect((await api('GET', `${APP}/dogs/rex/chases`)).body.entities).toHaveLength(1);
    await page.click('button[aria-label="Remove chases tom"]');
    await page.click('dialog[open] button:text-is("Remove")');
    await page.locator('text=This entity connects to nothing.').waitFor();
    expect((await api('GET', `${APP}/dogs/rex/chases`)).body.entities).toEqual([]);
    await page.context().close();
  });

  it("uploads an entity's file, shows the image, downloads it and replaces it", async () => {
    const page = await openPage();
    await page.goto(`${running.url}${CONSOLE_APP}/collections/dogs/fido`);
    await page.locator('text=This entity has no file.').waitFor();
    await page.setInputFiles('#asset-file', { name: 'fido.png', mimeType: 'image/png', buffer: PNG });
    await page.click('button:text-is("Upload")');
    const preview = page.locator('img.preview');
    await preview.waitFor();
    expect(await preview.evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth)).toBe(240);
    expect(await preview.getAttribute('src')).toMatch(/^blob:/);
    expect(await page.locator('.facts').textContent()).toContain('image/png');
    await expectAccessible(page, 'entity with a file');
    await page.screenshot({ path: join(SHOTS, 'console-asset.png'), fullPage: true });

    const [download] = await Promise.all([page.waitForEvent('download'), page.click('button:text-is("Download")')]);
    const saved = await download.createReadStream();
    const chunks: Buffer[] = [];
    for await (const chunk of saved) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).equals(PNG)).toBe(true);

    // Replaced by bytes that are no image: no preview, and the server has the new file.
    await page.setInputFiles('#asset-file', { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('good dog\n') });
    await page.click('button:text-is("Replace the file")');
    await page.locator('.facts', { hasText: 'application/octet-stream' }).waitFor();
    await expect.poll(() => preview.count()).toBe(0);
    const file = await fetch(`${running.url}${APP}/dogs/fido`, {
      headers: { accept: 'application/octet-stream', authorization: `Bearer ${(await tokenOf()).access_token}` },
    });
    expect(await file.text()).toBe('good dog\n');
    await page.context().close();
  });

  it('speaks German by the browser, French by the switcher, and keeps the choice', async () => {
    // The sign-in page is asked for in the console's language.
    const signIn = await (await running.browser.newContext({ locale: 'de-DE' })).newPage();
    await signIn.goto(`${running.url}/console/`);
    await signIn.waitForURL(/\/connect\/authorize/);
    expect(new URL(signIn.url()).searchParams.get('ui_locales')).toBe('de');
    expect(await signIn.locator('button[type=submit]').textContent()).toContain('Anmelden');
    await signIn.context().close();

    const page = await openPage('de-DE');
    await page.locator('h1', { hasText: 'Organisationen' }).waitFor();
    expect(await page.getAttribute('html', 'lang')).toBe('de');
    await expectAccessible(page, 'organizations in German');
    await page.goto(`${running.url}${CONSOLE_APP}/collections/dogs`);
    await page.locator('tbody tr').first().waitFor();
    expect(await page.locator('label[for=page-size]').textContent()).toBe('Zeilen pro Seite');
    expect(await page.locator('thead th').allTextContents()).toEqual(['Name↕', 'UUID↕', 'Geändert↕']);
    expect(await page.locator('nav.pager button').allTextContents()).toEqual(['Vorherige Seite', 'Nächste Seite']);
    await expectAccessible(page, 'entities in German');
    await page.screenshot({ path: join(SHOTS, 'console-entities-de.png') });
    await page.goto(`${running.url}${CONSOLE_APP}/users`);
    expect(await page.locator('nav[aria-label=Anwendung] a[aria-current=page]').textContent()).toBe('Benutzer');
    await page.locator('h2', { hasText: 'Neuer Benutzer' }).waitFor();
    expect(await page.locator('label[for=new-username]').textContent()).toBe('Benutzername');
    await expectAccessible(page, 'users in German');
    // An organization's admins, push and activity speak it too.
    await page.goto(`${running.url}/console/orgs/demo/admins`);
    await page.locator('h2', { hasText: 'Einen Administrator hinzufügen' }).waitFor();
    expect(await page.locator('nav[aria-label=Organisation] a').allTextContents()).toEqual([
      'Anwendungen',
      'Administratoren',
      'Zugangsdaten',
      'Aktivität',
      'Einstellungen',
    ]);
    expect(await page.locator('thead th').allTextContents()).toEqual(['Benutzername', 'Name', 'E-Mail', 'Aktionen']);
    await page.goto(`${running.url}${CONSOLE_APP}/push`);
    await page.locator('h2', { hasText: 'Eine Testbenachrichtigung senden' }).waitFor();
    expect(await page.locator('#new-notifier-title').textContent()).toBe('Neuer Notifier');
    expect(await page.locator('label[for=send-kind]').textContent()).toBe('An');
    await expectAccessible(page, 'push in German');
    await page.goto(`${running.url}${CONSOLE_APP}/activity`);
    await page.locator('h2', { hasText: 'Ereignisse und Audit' }).waitFor();
    expect(await page.locator('form[aria-label="Filtern: Aktivitäten"] button').textContent()).toBe('Filtern');
    await page.goto(`${running.url}${CONSOLE_APP}/collections/dogs/rex`);
    await page.locator('h2', { hasText: 'Verbindungen' }).waitFor();
    expect(await page.locator('#asset-title').textContent()).toBe('Datei');
    await expectAccessible(page, 'entity in German');

    await page.selectOption('#locale', 'fr');
    await page.locator('h2', { hasText: 'Connexions' }).waitFor();
    expect(await page.getAttribute('html', 'lang')).toBe('fr');
    await page.reload();
    await page.locator('h2', { hasText: 'Connexions' }).waitFor();
    expect(await page.inputValue('#locale')).toBe('fr');
    await page.context().close();
  });

  it('tabs through the entity list to open an entity, each stop visibly focused', async () => {
    const page = await openPage();
    await page.goto(`${running.url}${CONSOLE_APP}/collections/dogs`);
    await page.locator('tbody tr').first().waitFor();
    await page.focus('#ql');
    const stops: string[] = [];
    for (let step = 0; step < 20; step++) {
      await page.keyboard.press('Tab');
      const focused = await page.evaluate(() => {
        const element = document.activeElement as HTMLElement;
        const style = getComputedStyle(element);
        return {
          text: element.id || (element.textContent ?? '').trim(),
          inRows: element.closest('tbody') !== null,
          outline: style.outlineStyle,
          width: style.outlineWidth,
        };
      });
      expect(focused.outline, focused.text).not.toBe('none');
      expect(focused.width, focused.text).not.toBe('0px');
      stops.push(focused.text);
      if (focused.inRows) break;
    }
    expect(stops).toEqual(['Run', 'page-size', 'Name↕', 'UUID↕', 'Modified↕', 'bella']);
    await page.keyboard.press('Enter');
    await page.locator('h1', { hasText: 'bella' }).waitFor();
    expect(await heading(page)).toContain('bella');
    await page.context().close();
  });
});

async function tokenOf(): Promise<{ access_token: string }> {
  const response = await fetch(`${running.url}/management/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'password', ...DEMO }),
  });
  return (await response.json()) as { access_token: string };
}
