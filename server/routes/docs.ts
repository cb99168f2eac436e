/**
 * /docs: Swagger UI (swagger-ui-dist's files, read through the runtime assets — no CDN) reading /openapi.json.
 * The initializer is a separate script so the page runs under a strict Content-Security-Policy.
 */
import { createRoute, z } from '@hono/zod-openapi';
import { readAsset } from '../../src/runtime/assets.js';
import { NotFound } from '../../src/errors.js';
import { openapiRoute, type ValidationResult } from '../openapi.js';
import { defineRoutes } from '../route-table.js';

const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>idp API reference</title>
<link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>`;

const INIT = `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true });`;

export const docsRoutes = defineRoutes('server/routes/docs.ts', (app) => {
  const cache = new Map<string, Buffer>();
  const csp = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'";

  app.get('/', (c) => {
    c.header('Content-Security-Policy', csp);
    return c.html(PAGE);
  });
  app.get('/init.js', (c) => c.body(INIT, 200, { 'Content-Type': 'text/javascript; charset=utf-8' }));
  const asset = createRoute({
    method: 'get',
    path: '/{asset}',
    tags: ['Server'],
    summary: "Swagger UI's files",
    request: { params: z.object({ asset: z.enum(Object.keys(ASSETS) as [string, ...string[]]) }) },
    responses: { 200: { description: 'The file' } },
  });
  // Any other name is no file here.
  const noSuchFile = (result: ValidationResult) => {
    if (!result.success) throw NotFound('no such resource');
  };
  openapiRoute(
    app,
    asset,
    (c) => {
      const { asset } = c.req.valid('param');
      const type = ASSETS[asset];
      let body = cache.get(asset);
      if (!body) {
        body = readAsset(`node_modules/swagger-ui-dist/${asset}`);
        cache.set(asset, body);
      }
      return c.body(new Uint8Array(body), 200, { 'Content-Type': type, 'Cache-Control': 'public, max-age=86400' });
    },
    { hook: noSuchFile },
  );
});
