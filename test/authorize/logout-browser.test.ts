/**
 * Front-channel logout in a real browser (Debian's headless Chromium, test/chromium.ts): signing
 * out at /connect/endsession loads the client's front-channel logout page in an iframe — the
 * page's Content-Security-Policy lets exactly that frame through — with `iss` and `sid`, before
 * the browser goes on to the post-logout redirect URI. The client's site is a local HTTP server
 * that records what the browser asked of it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { HAS_CHROMIUM, launchChromium } from '../chromium.js';
import { createClient, createFixture, startIdp, USER, type Fixture, type RegisteredClient } from './support.js';

let fixture: Fixture;
let client: RegisteredClient;
let browser: Browser;
let rp: Server;
let rpUrl: string;
/** The paths and queries the browser asked the client's site for, in order. */
const visits: URL[] = [];

beforeAll(async () => {
  if (!HAS_CHROMIUM) return;
  rp = createServer((request, response) => {
    visits.push(new URL(request.url ?? '/', rpUrl));
    response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>RP</title><p>the client</p>');
  });
  await new Promise<void>((resolve) => rp.listen(0, '127.0.0.1', resolve));
  rpUrl = `http://127.0.0.1:${(rp.address() as AddressInfo).port}`;
  fixture = await createFixture(await startIdp());
  client = await createClient(fixture, {
    require_pkce: false,
    require_consent: false,
    redirect_uris: [`${rpUrl}/callback`],
    post_logout_redirect_uris: [`${rpUrl}/bye`],
    frontchannel_logout_uri: `${rpUrl}/frontchannel`,
    frontchannel_logout_session_required: true,
  });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await fixture?.server.close();
  rp?.close();
});

describe.skipIf(!HAS_CHROMIUM)(`front-channel logout in a real browser${HAS_CHROMIUM ? '' : ' (skipped: /usr/bin/chromium is missing)'}`, () => {
  it("loads the client's front-channel logout page with iss and sid, then returns to the client", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const authorize = new URLSearchParams({ client_id: client.client_id, redirect_uri: `${rpUrl}/callback`, response_type: 'code', scope: 'openid' });
    await page.goto(`${fixture.url}/connect/authorize?${authorize}`);
    await page.fill('#login', USER.username);
    await page.fill('#password', USER.password);
    await page.click('button[type=submit]');
    await page.waitForURL((url) => url.origin === rpUrl && url.pathname === '/callback');

    const logout = new URLSearchParams({ client_id: client.client_id, post_logout_redirect_uri: `${rpUrl}/bye`, state: 'out' });
    await page.goto(`${fixture.url}/connect/endsession?${logout}`);
    await page.click('button[value=logout]');
    await page.waitForURL((url) => url.origin === rpUrl && url.pathname === '/bye');
    expect(new URL(page.url()).searchParams.get('state')).toBe('out');

    const paths = visits.map((visit) => visit.pathname);
    expect(paths).toContain('/frontchannel');
    // The frame was loaded before the browser left the logout page.
    expect(paths.indexOf('/frontchannel')).toBeLessThan(paths.lastIndexOf('/bye'));
    const frame = visits.find((visit) => visit.pathname === '/frontchannel')!;
    expect(frame.searchParams.get('iss')).toBe(fixture.url);
    expect(frame.searchParams.get('sid')).toMatch(/^[\w-]{43}$/);
    await context.close();
  });
});
