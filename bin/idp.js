#!/usr/bin/env node
// The program, bundled by `npm run build` (scripts/build-bundle.js, after tsc) in two forms:
//   - dist/bundle/idp.js, an ES module bundle: a few files to load instead of the hundreds of
//     modules of dist/ and node_modules. What only some commands need sits in
//     dist/bundle/chunks/, loaded on demand, so a CLI command loads little more than commander;
//   - dist/bundle/serve.cjs, the same program as one CommonJS file, which `idp serve` runs with
//     the V8 code cache the build made for it (bin/code-cache.cjs): the server's start then
//     compiles almost nothing. Node 20 keeps no code cache for ES modules. Without a cache made
//     from this serve.cjs, `idp serve` runs from the ES module bundle like the other commands.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const MISSING = 'is missing; run `npm run build` (npm ci runs it too)';

async function load() {
  const file = fileURLToPath(new URL('../dist/bundle/serve.cjs', import.meta.url));
  const writeCache = process.env.IDP_WRITE_CODE_CACHE === '1';
  const codeCache = process.argv[2] === 'serve' ? require('./code-cache.cjs') : undefined;
  // Without its cache the CommonJS file starts slower than the ES module bundle: use that one.
  if (codeCache && (writeCache || codeCache.hasCodeCache(file))) {
    const { loadWithCodeCache } = codeCache;
    try {
      const { exports, cache } = loadWithCodeCache(file, { writeCache });
      exports.setCodeCacheStatus(cache);
      return exports.main;
    } catch (error) {
      if (error?.code !== 'ENOENT' || error.path !== file) throw error;
      throw Object.assign(new Error(`dist/bundle/serve.cjs ${MISSING}`), { missing: true });
    }
  }
  const bundle = new URL('../dist/bundle/idp.js', import.meta.url);
  try {
    return (await import(bundle.href)).main;
  } catch (error) {
    if (error?.code !== 'ERR_MODULE_NOT_FOUND' || error.url !== bundle.href) throw error;
    throw Object.assign(new Error(`dist/bundle/idp.js ${MISSING}`), { missing: true });
  }
}

let main;
try {
  main = await load();
} catch (error) {
  if (!error.missing) throw error;
  process.stderr.write(`error: ${error.message}\n`);
  process.exit(1);
}

process.exitCode = await main(process.argv);
