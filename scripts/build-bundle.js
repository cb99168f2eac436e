// Writes dist/bundle/: the program in the two forms bin/idp.js runs. Run by `npm run build` after
// tsc. Node then loads some 20 files to start instead of the ~530 of dist/ and node_modules
// (drizzle-orm, zod, jose, …), which was most of the cold start (docs/benchmarks.md, `cold-start`).
//   - dist/bundle/idp.js: commands/index.ts and everything it imports statically, an ES module;
//   - dist/bundle/chunks/*.js: what sits behind a dynamic import() (each CLI noun, `serve`'s
//     server, openid-client, nodemailer, …), loaded only when that import runs. Code two
//     entries share is split into a chunk of its own, so nothing is loaded twice. CLI commands
//     run this form: they load only what they use.
//   - dist/bundle/serve.cjs: the same program as one CommonJS file, and serve.cjs.cache, the V8
//     code cache `idp serve` starts with (bin/code-cache.cjs). To make the cache, the build
//     starts the server once on an in-memory database and stops it; the cache holds every
//     function that run compiled. Splitting exists for ES modules only, and the vm.Script code
//     cache (bin/code-cache.cjs) for CommonJS only, hence the two forms.
// better-sqlite3 stays in node_modules: it loads its native addon by a path relative to itself.
// Files read at run time (migrations, pages, locales, Swagger UI) are found by
// src/runtime/assets.ts, which looks upwards from its own chunk for idp's package.json.
// Usage: node scripts/build-bundle.js [--quiet]
import { spawn } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { ENTRY, commonOptions, commonjsOptions, root, toKey } from './esbuild-common.js';

const quiet = process.argv.includes('--quiet');
const outdir = join(root, 'dist', 'bundle');
const SERVE_BUNDLE = join(outdir, 'serve.cjs');
const WARM_UP_TIMEOUT_MS = 30_000;

/**
 * Starts `idp serve` from serve.cjs once, with IDP_WRITE_CODE_CACHE=1, and stops it: the process
 * writes serve.cjs.cache as it exits. The server runs on an in-memory database and a free port,
 * without the caller's IDP_* settings (a PostgreSQL URL in the environment must not be used).
 */
function warmUp() {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('IDP_')));
  const args = [join(root, 'bin', 'idp.js'), 'serve', '--port', '0', '--db', ':memory:', '--log-level', 'warn'];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env: { ...env, IDP_WRITE_CODE_CACHE: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), WARM_UP_TIMEOUT_MS);
    const onData = (chunk) => {
      output += chunk;
      if (/listening on /.test(output)) child.kill('SIGTERM');
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk) => (output += chunk));
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0 && existsSync(`${SERVE_BUNDLE}.cache`)) resolve();
      else reject(new Error(`starting idp serve to make the code cache failed (${signal ?? `exit code ${code}`}):\n${output}`));
    });
  });
}

rmSync(outdir, { recursive: true, force: true });
const started = Date.now();
const results = await Promise.all([
  build({
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
  }),
  build({
    ...commonOptions({ quiet, external: ['better-sqlite3'] }),
    stdin: {
      contents: [`export { main } from ${JSON.stringify(`./${toKey(ENTRY)}`)};`, `export { setCodeCacheStatus } from './src/runtime/code-cache.ts';`].join(
        '\n',
      ),
      resolveDir: root,
      sourcefile: 'serve-main.ts',
      loader: 'ts',
    },
    outfile: SERVE_BUNDLE,
    ...commonjsOptions(),
    metafile: !quiet,
  }),
]);
if (results.some((result) => result.errors.length > 0)) throw new Error('bundling failed');
await warmUp();

if (!quiet) {
  const outputs = results.flatMap((result) => Object.entries(result.metafile.outputs));
  const bytes = outputs.reduce((sum, [, output]) => sum + output.bytes, 0);
  process.stderr.write(
    `build-bundle: wrote ${outputs.length} files (${(bytes / 1e6).toFixed(1)} MB) and the code cache of serve.cjs to dist/bundle in ${Date.now() - started} ms\n`,
  );
}
