/** The pages' static files (server/pages/assets/, and one file of a dependency), read through the runtime assets. */
import type { Context } from 'hono';
import { defineRoutes, within } from '../route-table.js';
import { readPageFile } from '../pages/files.js';
import { STYLESHEET_PATH, WEBAUTHN_BROWSER_PATH } from '../pages/layout.js';
import { ALTCHA_SOLVER_PATH } from '../pages/lifecycle.js';
import { ACCOUNT_SCRIPT_PATH } from '../pages/account.js';
import { readAsset } from '../../src/runtime/assets.js';

function sendAsset(c: Context, type: string, content: Buffer): Response {
  c.header('Content-Type', `${type}; charset=utf-8`);
  c.header('Cache-Control', 'public, max-age=3600');
  return c.body(new Uint8Array(content));
}

export const pageAssetRoutes = defineRoutes('server/routes/page-assets.ts', (app) => {
  app.get(within('/connect', STYLESHEET_PATH), (c) => sendAsset(c, 'text/css', readPageFile('assets/style.css')));
  app.get(within('/connect', ALTCHA_SOLVER_PATH), (c) => sendAsset(c, 'text/javascript', readPageFile('assets/altcha-solver.js')));
  app.get(within('/connect', ACCOUNT_SCRIPT_PATH), (c) => sendAsset(c, 'text/javascript', readPageFile('assets/account-passkeys.js')));
  // The package's browser bundle as published (scripts/build-bin.js embeds it in the executable).
  app.get(within('/connect', WEBAUTHN_BROWSER_PATH), (c) =>
    sendAsset(c, 'text/javascript', readAsset('node_modules/@simplewebauthn/browser/dist/bundle/index.umd.min.js')),
  );
});
