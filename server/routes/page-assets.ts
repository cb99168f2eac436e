/** The pages' static files (server/pages/assets/), read through the one page-file reader. */
import { defineRoutes, within } from '../route-table.js';
import { readPageFile } from '../pages/files.js';
import { STYLESHEET_PATH } from '../pages/layout.js';
import { ALTCHA_SOLVER_PATH } from '../pages/lifecycle.js';

export const pageAssetRoutes = defineRoutes('server/routes/page-assets.ts', (app) => {
  app.get(within('/connect', STYLESHEET_PATH), (c) => {
    c.header('Content-Type', 'text/css; charset=utf-8');
    c.header('Cache-Control', 'public, max-age=3600');
    return c.body(new Uint8Array(readPageFile('assets/style.css')));
  });
  app.get(within('/connect', ALTCHA_SOLVER_PATH), (c) => {
    c.header('Content-Type', 'text/javascript; charset=utf-8');
    c.header('Cache-Control', 'public, max-age=3600');
    return c.body(new Uint8Array(readPageFile('assets/altcha-solver.js')));
  });
});
