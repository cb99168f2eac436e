#!/usr/bin/env node
// The program, bundled by `npm run build` (scripts/build-bundle.js, after tsc) in two forms:
//   - dist/bundle/idp.js, an ES module bundle: a few files to load instead of the hundreds of
//     modules of dist/ and node_modules. What only some commands need sits in
//     dist/bundle/chunks/, loaded on demand, so a CLI command loads little more than commander;
//   - dist/bundle/serve.cjs, the same program as one CommonJS file, which `idp serve` runs with
//     the V8 code cache the build made for it (bin/code-cache.cjs): the server's start then
//     compiles almost nothing. Without a cache made from this serve.cjs, `idp serve` runs from
//     the ES module bundle like the other commands.
// Started by a Node older than the one idp ships (bin/runtime.cjs), it runs itself again on that.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

async function load() {
  if (process.argv[2] === 'serve') {
    const { hasCodeCache, loadWithCodeCache } = require('./code-cache.cjs');
    const file = fileURLToPath(new URL('../dist/bundle/serve.cjs', import.meta.url));
    const writeCache = process.env.IDP_WRITE_CODE_CACHE === '1';
    // Without its cache (or without the file) the CommonJS form starts slower than the ES module
    // bundle, or not at all: use that one. Only the build asks to write the cache, right after
    // writing the file.
    if (writeCache || hasCodeCache(file)) {
      const { exports, cache } = loadWithCodeCache(file, { writeCache });
      exports.setCodeCacheStatus(cache);
      return exports.main;
    }
  }
  const bundle = new URL('../dist/bundle/idp.js', import.meta.url);
  try {
    return (await import(bundle.href)).main;
  } catch (error) {
    if (error?.code !== 'ERR_MODULE_NOT_FOUND' || error.url !== bundle.href) throw error;
    process.stderr.write('error: dist/bundle/idp.js is missing; run `npm run build` (npm ci runs it too)\n');
    process.exit(1);
  }
}

if (!require('./runtime.cjs').runOnShippedRuntime()) {
  const main = await load();
  process.exitCode = await main(process.argv);
}
