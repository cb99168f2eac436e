#!/usr/bin/env node
// The program is dist/bundle/idp.js, the ES module bundle that `npm run build` writes after tsc
// (scripts/build-bundle.js): a few files to load instead of the hundreds of modules of dist/
// and node_modules. What only some commands need sits in dist/bundle/chunks/, loaded on demand.
const bundle = new URL('../dist/bundle/idp.js', import.meta.url);
let main;
try {
  ({ main } = await import(bundle.href));
} catch (error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || error.url !== bundle.href) throw error;
  process.stderr.write('error: dist/bundle/idp.js is missing; run `npm run build` (npm ci runs it too)\n');
  process.exit(1);
}

process.exitCode = await main(process.argv);
