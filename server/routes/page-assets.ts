/** The pages' static files (server/pages/assets/, and @simplewebauthn/browser's bundle for the passkey pages), read through the runtime assets. */
import type { Context } from 'hono';
import { defineRoutes, within } from '../route-table.js';
import { readPageFile } from '../pages/files.js';
import { STYLESHEET_PATH, WEBAUTHN_BROWSER_FILE, WEBAUTHN_BROWSER_PATH } from '../pages/layout.js';
import { ALTCHA_SOLVER_PATH } from '../pages/lifecycle.js';
import { ACCOUNT_SCRIPT_PATH } from '../pages/account.js';
import { PASSKEY_SCRIPT_PATH } from '../pages/passkey.js';
import { readAsset } from '../../src/runtime/assets.js';

const FILES: [path: string, type: string, read: () => Buffer][] = [
  [STYLESHEET_PATH, 'text/css', () => readPageFile('assets/style.css')],
  [ALTCHA_SOLVER_PATH, 'text/javascript', () => readPageFile('assets/altcha-solver.js')],
  [PASSKEY_SCRIPT_PATH, 'text/javascript', () => readPageFile('assets/passkey.js')],
  [ACCOUNT_SCRIPT_PATH, 'text/javascript', () => readPageFile('assets/account-passkeys.js')],
  // The package's browser bundle as published (scripts/build-bin.js embeds it in the executable).
  [WEBAUTHN_BROWSER_PATH, 'text/javascript', () => readAsset(WEBAUTHN_BROWSER_FILE)],
];

function sendAsset(c: Context, type: string, content: Buffer): Response {
  c.header('Content-Type', `${type}; charset=utf-8`);
  c.header('Cache-Control', 'public, max-age=3600');
  return c.body(new Uint8Array(content));
}

export const pageAssetRoutes = defineRoutes('server/routes/page-assets.ts', (app) => {
  for (const [path, type, read] of FILES) app.get(within('/connect', path), (c) => sendAsset(c, type, read()));
});
