// Builds better-sqlite3's native addon from its source, for the Node.js idp runs on (the shipped
// runtime of bin/runtime.cjs, or where there is none the Node running this script) and with that
// Node's own headers: nothing is downloaded, neither prebuilt addons nor headers. package.json's
// allowScripts denies better-sqlite3 its own install script (which would fetch a prebuilt addon,
// or compile against whatever headers the npm configuration's `nodedir` names); `npm ci` runs this
// as the root `postinstall`, once every package and the runtime are in place.
// An addon this script built for the same Node and better-sqlite3 and that loads is kept.
// Usage: node scripts/build-native.js [--force]
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const require = createRequire(import.meta.url);
const { shippedRuntime } = require('../bin/runtime.cjs');

function fail(message) {
  process.stderr.write(`build-native: ${message}\n`);
  process.exit(1);
}

function headersVersion(dir) {
  try {
    const header = readFileSync(join(dir, 'include', 'node', 'node_version.h'), 'utf8');
    return ['MAJOR', 'MINOR', 'PATCH'].map((part) => header.match(new RegExp(`#define NODE_${part}_VERSION (\\d+)`))[1]).join('.');
  } catch {
    return undefined;
  }
}

/** The Node to build for: its binary, version, and the folder holding its headers (if found). */
function target() {
  const runtime = shippedRuntime(root);
  if (runtime) return { node: runtime.node, version: runtime.version, nodedir: runtime.dir };
  const version = process.versions.node;
  const candidates = [dirname(dirname(process.execPath)), process.env.npm_config_nodedir].filter(Boolean);
  return { node: process.execPath, version, nodedir: candidates.find((dir) => headersVersion(dir) === version) };
}

/** node-gyp: the one npm runs scripts with, or the one beside the npm that runs this script. */
function nodeGyp() {
  const candidates = [process.env.npm_config_node_gyp];
  if (process.env.npm_execpath) candidates.push(join(dirname(dirname(process.env.npm_execpath)), 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'));
  const found = candidates.find((path) => path && existsSync(path));
  if (!found) fail('node-gyp not found; run this through npm: `npm run build:native`');
  return found;
}

const addonDir = dirname(require.resolve('better-sqlite3/package.json'));
const stampFile = join(addonDir, 'build', 'idp-built-for.json');
const { node, version, nodedir } = target();
const stamp = JSON.stringify({
  node: version,
  nodedir: nodedir ?? null,
  'better-sqlite3': JSON.parse(readFileSync(join(addonDir, 'package.json'), 'utf8')).version,
});
const loads = () => spawnSync(node, ['-e', 'new (require("better-sqlite3"))(":memory:").close()'], { cwd: root, stdio: 'ignore' }).status === 0;

if (!process.argv.includes('--force') && existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp && loads()) {
  process.exit(0);
}
if (!nodedir) process.stderr.write(`build-native: no headers of Node.js ${version} found here; node-gyp downloads them\n`);
const started = Date.now();
// The npm configuration's nodedir (a global npmrc may name the system Node's headers) must not win.
const env = { ...process.env, npm_config_nodedir: nodedir ?? '' };
if (!nodedir) delete env.npm_config_nodedir;
const args = [nodeGyp(), 'rebuild', '--release', '--jobs=max', '--force_build=1', ...(nodedir ? [`--nodedir=${nodedir}`] : [])];
const result = spawnSync(node, args, { cwd: addonDir, env, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
if (result.status !== 0) {
  process.stderr.write(`${result.stdout ?? ''}${result.stderr ?? ''}`);
  fail(`building better-sqlite3 for Node.js ${version} failed (node-gyp ${result.status ?? result.signal ?? result.error?.message})`);
}
if (!loads()) fail(`better-sqlite3 was built but does not load in Node.js ${version}`);
writeFileSync(stampFile, stamp);
process.stderr.write(`build-native: built better-sqlite3 for Node.js ${version} in ${Math.round((Date.now() - started) / 1000)} s\n`);
