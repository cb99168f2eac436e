// Builds dist/bin/idp-<platform>-<arch>: one executable that runs every command without Node.js
// or node_modules on the target machine. Node's single executable applications (SEA) with the
// Node.js idp ships (bin/runtime.cjs; the one running this script where there is none), so
// nothing is downloaded (pkg fetches prebuilt Node binaries):
//   1. esbuild bundles everything reachable from commands/index.ts into one CommonJS file, the
//      form of `main` every SEA-capable Node accepts (Node 24 takes no ES module there);
//   2. every file src/runtime/assets.ts may be asked for becomes a SEA asset, with a manifest;
//   3. node --experimental-sea-config writes the blob, postject injects it into a copy of node.
// Usage: node scripts/build-bin.js [--quiet]
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { build } from 'esbuild';
import postject from 'postject';
import { ENTRY, commonOptions, commonjsOptions, root, toKey } from './esbuild-common.js';

const quiet = process.argv.includes('--quiet');
const { shippedRuntime } = createRequire(import.meta.url)('../bin/runtime.cjs');
// The executable is a copy of this node, and better-sqlite3's addon inside it was built for it.
const node = shippedRuntime(root)?.node ?? process.execPath;

// Keep in step with src/runtime/assets.ts.
const MANIFEST_KEY = 'idp:manifest';
// Node's fixed fuse for SEA blobs (doc/api/single-executable-applications.md).
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
// Where the project's own run-time files live: every file there that tsc does not compile
// (migrations, page assets, locales, …) is embedded, so new ones need no change here.
const SOURCE_DIRS = ['commands', 'server', 'src'];
// The admin console's source is built into dist/console (scripts/build-console.js): that is what is served.
const BROWSER_SOURCE = 'server/console/';
const BUILT_DIRS = ['dist/console'];
// Files of dependencies read at run time through src/runtime/assets.ts.
const DEPENDENCY_FILES = [
  'node_modules/better-sqlite3/build/Release/better_sqlite3.node',
  'node_modules/swagger-ui-dist/swagger-ui.css',
  'node_modules/swagger-ui-dist/swagger-ui-bundle.js',
  'node_modules/swagger-ui-dist/swagger-ui-standalone-preset.js',
  // The passkey pages' browser helper (server/pages/layout.ts).
  'node_modules/@simplewebauthn/browser/dist/bundle/index.umd.min.js',
];

function log(message) {
  if (!quiet) process.stderr.write(`build-bin: ${message}\n`);
}

function listFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? listFiles(path) : [path];
  });
}

function collectAssets() {
  const keys = ['package.json', ...DEPENDENCY_FILES];
  for (const dir of SOURCE_DIRS) {
    for (const file of listFiles(join(root, dir))) if (!file.endsWith('.ts') && !toKey(file).startsWith(BROWSER_SOURCE)) keys.push(toKey(file));
  }
  for (const dir of BUILT_DIRS) {
    if (!existsSync(join(root, dir))) throw new Error(`${dir} is missing; run npm run build first`);
    keys.push(...listFiles(join(root, dir)).map(toKey));
  }
  for (const key of keys) if (!existsSync(join(root, key))) throw new Error(`${key} is missing; run npm ci first`);
  return keys.sort();
}

async function bundle(outfile) {
  const result = await build({
    ...commonOptions({ quiet }),
    stdin: {
      contents: `import { main } from ${JSON.stringify(`./${toKey(ENTRY)}`)};\nmain(process.argv).then((code) => { process.exitCode = code; });\n`,
      resolveDir: root,
      sourcefile: 'sea-main.ts',
      loader: 'ts',
    },
    outfile,
    ...commonjsOptions(),
  });
  if (result.errors.length > 0) throw new Error('bundling failed');
}

async function main() {
  if (process.platform !== 'linux') throw new Error(`building the executable is supported on Linux only, not ${process.platform}`);
  const outDir = join(root, 'dist', 'bin');
  const work = join(outDir, 'sea');
  const output = join(outDir, `idp-${process.platform}-${process.arch}`);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });

  const started = Date.now();
  const script = join(work, 'idp.cjs');
  await bundle(script);
  log(`bundled ${toKey(script)} in ${Date.now() - started} ms`);

  const keys = collectAssets();
  const files = Object.fromEntries(
    keys.map((key) => [
      key,
      createHash('sha256')
        .update(readFileSync(join(root, key)))
        .digest('hex'),
    ]),
  );
  const manifest = join(work, 'manifest.json');
  writeFileSync(manifest, `${JSON.stringify({ files }, null, 2)}\n`);
  const seaConfig = {
    main: script,
    output: join(work, 'sea-prep.blob'),
    disableExperimentalSEAWarning: true,
    // V8's code cache for the bundle, made by this very node, spares compiling it at each start.
    useCodeCache: true,
    assets: { [MANIFEST_KEY]: manifest, ...Object.fromEntries(keys.map((key) => [key, join(root, key)])) },
  };
  const configFile = join(work, 'sea-config.json');
  writeFileSync(configFile, `${JSON.stringify(seaConfig, null, 2)}\n`);
  execFileSync(node, ['--experimental-sea-config', configFile], { stdio: quiet ? 'ignore' : ['ignore', 'inherit', 'inherit'] });
  log(`embedded ${keys.length} assets`);

  // Inject into a copy beside the target, then rename, so a half-written binary never has its name.
  const partial = `${output}.partial`;
  copyFileSync(node, partial);
  chmodSync(partial, 0o755);
  await postject.inject(partial, 'NODE_SEA_BLOB', readFileSync(seaConfig.output), { sentinelFuse: SEA_FUSE });
  renameSync(partial, output);
  log(`wrote ${toKey(output)} in ${Date.now() - started} ms`);
}

main().catch((error) => {
  process.stderr.write(`build-bin: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
