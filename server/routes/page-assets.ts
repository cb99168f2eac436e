/** The pages' static files (server/pages/assets/, and @simplewebauthn/browser's bundle for the passkey pages), read through the runtime assets. */
import { defineRoutes, within } from '../route-table.js';
import { readPageFile } from '../pages/files.js';
import { STYLESHEET_PATH } from '../pages/layout.js';
import { ALTCHA_SOLVER_PATH } from '../pages/lifecycle.js';
import { PASSKEY_SCRIPT_PATH, WEBAUTHN_BROWSER_FILE, WEBAUTHN_BROWSER_PATH } from '../pages/passkey.js';
import { readAsset } from '../../src/runtime/assets.js';

const SCRIPTS: [path: string, read: () => Buffer][] = [
  [ALTCHA_SOLVER_PATH, () => readPageFile('assets/altcha-solver.js')],
  [PASSKEY_SCRIPT_PATH, () => readPageFile('assets/passkey.js')],
  [WEBAUTHN_BROWSER_PATH, () => readAsset(WEBAUTHN_BROWSER_FILE)],
];

export const pageAssetRoutes = defineRoutes('server/routes/page-assets.ts', (app) => {
  app.get(within('/connect', STYLESHEET_PATH), (c) => {
    c.header('Content-Type', 'text/css; charset=utf-8');
    c.header('Cache-Control', 'public, max-age=3600');
    return c.body(new Uint8Array(readPageFile('assets/style.css')));
  });
  for (const [path, read] of SCRIPTS) {
    let content: Buffer | undefined;
    app.get(within('/connect', path), (c) => {
      content ??= read();
      c.header('Content-Type', 'text/javascript; charset=utf-8');
      c.header('Cache-Control', 'public, max-age=3600');
      return c.body(new Uint8Array(content));
    });
  }
});
