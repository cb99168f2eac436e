/** The pages' static files (server/pages/assets/), read through the one page-file reader. */
import { Hono } from 'hono';
import type { Env } from '../env.js';
import { readPageFile } from '../pages/files.js';
import { STYLESHEET_PATH } from '../pages/layout.js';

export function pageAssetRoutes() {
  const app = new Hono<Env>();
  app.get(STYLESHEET_PATH, (c) => {
    c.header('Content-Type', 'text/css; charset=utf-8');
    c.header('Cache-Control', 'public, max-age=3600');
    return c.body(new Uint8Array(readPageFile('assets/style.css')));
  });
  return app;
}
