/**
 * The browser of the browser tests: Debian's headless Chromium (apt-get install -y chromium),
 * driven by playwright-core (nothing is downloaded); the tests skip themselves where it is missing.
 */
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const HAS_CHROMIUM = existsSync(CHROMIUM);
/** Headless, sandbox off (containers), and nothing that reaches the network on its own. */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

/** A client's site for the browser to come back to (a redirect URI): a page saying so, on a free port. */
export async function startClientSite(): Promise<{ server: Server; url: string }> {
  const server = createServer((_, response) =>
    response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>RP</title><p>back at the client</p>'),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}
