/**
 * Debian's headless Chromium for the real-browser tests, driven by playwright-core: where it is,
 * and the flags that keep it off the network and quiet. Tests skip when it is missing
 * (apt-get install -y chromium).
 */
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const HAS_CHROMIUM = existsSync(CHROMIUM);
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export async function launchChromium(): Promise<Browser> {
  return await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
}

/** The client's site the browser is sent back to: a page on a free local port, so nothing leaves the machine. */
export async function startClientSite(): Promise<{ url: string; close(): void }> {
  const site = createServer((_, response) =>
    response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>RP</title><p>back at the client</p>'),
  );
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(site.address() as AddressInfo).port}`, close: () => site.close() };
}
