/**
 * The browser of the browser tests: Debian's headless Chromium (apt-get install -y chromium),
 * driven by playwright-core (nothing is downloaded); the tests skip themselves where it is missing.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const HAS_CHROMIUM = existsSync(CHROMIUM);
/**
 * Where the browser tests put their screenshots: the temporary directory, so a test run changes
 * nothing in the checkout; with IDP_SCREENSHOTS=docs, docs/screenshots/ (the README and docs show them).
 */
export const SCREENSHOTS =
  process.env.IDP_SCREENSHOTS === 'docs' ? fileURLToPath(new URL('../docs/screenshots/', import.meta.url)) : join(tmpdir(), 'idp-screenshots');
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
  mkdirSync(SCREENSHOTS, { recursive: true });
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

let axeSource: string | undefined;

/**
 * No serious or critical accessibility violation (axe-core, every rule) on the page as it is now.
 * axe runs through the debugging protocol, as page.evaluate does: the pages' CSP rightly refuses
 * an injected script tag without its nonce.
 */
export async function expectAccessible(page: Page, screen: string): Promise<void> {
  axeSource ??= readFileSync(fileURLToPath(new URL('../node_modules/axe-core/axe.min.js', import.meta.url)), 'utf8');
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: { id: string; impact: string; help: string }[] }> } }
    ).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map(({ id, impact, help }) => ({ id, impact, help }));
  });
  expect(
    violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical'),
    screen,
  ).toEqual([]);
}
