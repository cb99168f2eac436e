// Builds the admin console (docs/console.md) into dist/console/, after tsc (part of `npm run build`):
//   1. the OpenAPI document of the compiled server (dist/server/app.js, no server started) becomes
//      TypeScript types with openapi-typescript, dist/types/openapi.d.ts;
//   2. tsc checks the console's source (server/console/) against them: an API change that breaks
//      the console breaks the build;
//   3. Vite bundles it with hashed file names, which the server caches for a year.
// Usage: node scripts/build-console.js [--quiet]
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import { build } from 'vite';
import { root } from './esbuild-common.js';

const quiet = process.argv.includes('--quiet');
const source = join(root, 'server', 'console');
const started = Date.now();

const { describeApi } = await import(pathToFileURL(join(root, 'dist', 'server', 'app.js')).href);
const types = join(root, 'dist', 'types');
mkdirSync(types, { recursive: true });
writeFileSync(join(types, 'openapi.d.ts'), astToString(await openapiTS(describeApi())));

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const checked = spawnSync(process.execPath, [tsc, '-p', join(source, 'tsconfig.json')], { stdio: 'inherit' });
if (checked.status !== 0) throw new Error('the admin console does not type-check against the API (server/console)');

await build({
  root: source,
  base: '/console/',
  configFile: false,
  logLevel: quiet ? 'error' : 'warn',
  // Preact's automatic JSX runtime, through Vite's own transformer: no plugin needed.
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: join(root, 'dist', 'console'),
    emptyOutDir: true,
    // Every file is served from /console/assets under a CSP that allows no data: scripts or styles.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    target: 'es2022',
  },
});
if (!quiet) process.stderr.write(`build-console: wrote dist/console in ${Date.now() - started} ms\n`);
