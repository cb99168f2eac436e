/**
 * /console: the admin console (docs/console.md), a single-page application built by
 * `npm run build` into dist/console/ and read through the runtime assets, so the single
 * executable serves it from its blob. Its hashed files are cached for a year; every other path
 * below /console is the page itself, which routes in the browser. The page runs under a
 * Content-Security-Policy without inline scripts or styles: it loads its own files and talks to
 * this server's public API only. `--no-console` turns it off.
 */
import type { Context } from 'hono';
import type { Env } from '../env.js';
import { hasAsset, readAsset } from '../../src/runtime/assets.js';
import { NotFound } from '../../src/errors.js';
import { defineRoutes } from '../route-table.js';

const BUILT = 'dist/console';

const TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
  png: 'image/png',
  woff2: 'font/woff2',
};

export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  // blob: for an entity's image, read with the access token and shown from memory.
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

// Vite names each built file by a hash of its content (`index-B4x1Qk2a.js`).
const ASSET_NAME = /^[\w-]+\.([a-z0-9]+)$/;

/** Files are immutable once built: read once, kept. */
const files = new Map<string, Buffer>();

function readBuilt(path: string): Buffer | undefined {
  const key = `${BUILT}/${path}`;
  let body = files.get(key);
  if (body === undefined && hasAsset(key)) {
    body = readAsset(key);
    files.set(key, body);
  }
  return body;
}

function requireConsole(c: Context<Env>): void {
  if (!c.get('deps').config.console) throw NotFound('the admin console is turned off on this server (--no-console)');
}

function page(c: Context<Env>) {
  requireConsole(c);
  const html = readBuilt('index.html');
  if (html === undefined) throw NotFound('the admin console is not built here: `npm run build` builds it');
  c.header('Content-Type', 'text/html; charset=utf-8');
  // A new build names new files: the page is asked for again each time.
  c.header('Cache-Control', 'no-cache');
  c.header('Content-Security-Policy', CONSOLE_CSP);
  return c.body(new Uint8Array(html));
}

export const consoleRoutes = defineRoutes('server/routes/console.ts', (app) => {
  app.get('/assets/:file', (c) => {
    requireConsole(c);
    const name = c.req.param('file');
    const type = TYPES[ASSET_NAME.exec(name)?.[1] ?? ''];
    const body = type === undefined ? undefined : readBuilt(`assets/${name}`);
    if (body === undefined) throw NotFound('no such file of the admin console');
    c.header('Content-Type', type);
    c.header('Cache-Control', 'public, max-age=31536000, immutable');
    return c.body(new Uint8Array(body));
  });
  app.get('/', page);
  app.get('/*', page);
});
