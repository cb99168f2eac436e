/** The pages' static files (server/pages/assets/), read through the one page-file reader. */
import { Hono } from 'hono';
import type { Env } from '../env.js';
import { readPageFile } from '../pages/files.js';
import { STYLESHEET_PATH } from '../pages/layout.js';
import { ALTCHA_SOLVER_PATH } from '../pages/lifecycle.js';

export function pageAssetRoutes() {
  const app = new Hono<Env>();
  app.get(STYLESHEET_PATH, (c) => {
    c.header('Content-Type', 'text/css; charset=utf-8');
    c.header('Cache-Control', 'public, max-age=3600');
    return c.body(new Uint8Array(readPageFile('assets/style.css')));
  });
  app.get(ALTCHA_SOLVER_PATH, (c) => {
    c.header('Content-Type', 'text/javascript; charset=utf-8');
    c.header('Cache-Control', 'public, max-age=3600');
    return c.body(new Uint8Array(readPageFile('assets/altcha-solver.js')));
  });
  return app;
}
