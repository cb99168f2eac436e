// Writes dist/bundle/: the program as an ESM bundle, which bin/idp.js runs. Run by `npm run build`
// after tsc. Node then loads some 20 files to start the server instead of the ~530 of dist/ and
// node_modules (drizzle-orm, zod, jose, …), which was most of its cold start (issue 2).
//   - dist/bundle/idp.js: commands/index.ts and everything it imports statically;
//   - dist/bundle/chunks/*.js: what sits behind a dynamic import() (each CLI noun, `serve`'s
//     server, openid-client, nodemailer, …), loaded only when that import runs. Code two
//     entries share is split into a chunk of its own, so nothing is loaded twice.
// better-sqlite3 stays in node_modules: it loads its native addon by a path relative to itself.
// Files read at run time (migrations, pages, locales, Swagger UI) are found by
// src/runtime/assets.ts, which looks upwards from its own chunk for idp's package.json.
// Usage: node scripts/build-bundle.js [--quiet]
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { ENTRY, commonOptions, root } from './esbuild-common.js';

const quiet = process.argv.includes('--quiet');
const outdir = join(root, 'dist', 'bundle');

rmSync(outdir, { recursive: true, force: true });
const started = Date.now();
const result = await build({
  ...commonOptions({ quiet, external: ['better-sqlite3'] }),
  entryPoints: { idp: ENTRY },
  outdir,
  format: 'esm',
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  // Bundled CommonJS modules require() Node's built-in modules, and an ES module has no require:
  // each output file makes its own (esbuild renames a bundled module's own top-level `require`,
  // so they cannot clash). No bundled module reads __dirname or __filename at load time.
  banner: { js: "import { createRequire as __idpCreateRequire } from 'node:module';\nconst require = __idpCreateRequire(import.meta.url);" },
  metafile: !quiet,
});
if (result.errors.length > 0) throw new Error('bundling failed');

if (!quiet) {
  const outputs = Object.entries(result.metafile.outputs);
  const bytes = outputs.reduce((sum, [, output]) => sum + output.bytes, 0);
  process.stderr.write(`build-bundle: wrote ${outputs.length} files (${(bytes / 1e6).toFixed(1)} MB) to dist/bundle in ${Date.now() - started} ms\n`);
}
