// The SQLite test suite on another Node.js than the shipped one (bin/runtime.cjs), such as the
// oldest that package.json's engines accepts: `npm run test:node -- 22 [vitest filters…]`.
// Node.js comes from the npm registry as the shipped one does (node-<platform>-<arch>@MAJOR,
// installed once into node_modules/.cache/idp-test-node/MAJOR/). The suite runs in a copy of the
// project there whose node_modules links to this one's, except better-sqlite3, copied and built
// for that Node from its own headers (scripts/build-native.js), and the shipped runtime, left out
// so that bin/idp.js stays on the Node that starts it.
// Usage: node scripts/test-node.js MAJOR [vitest filters…]
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const { runtimePackageName } = createRequire(import.meta.url)('../bin/runtime.cjs');
const [major, ...filters] = process.argv.slice(2);
if (!/^\d+$/.test(major ?? '')) {
  process.stderr.write('usage: node scripts/test-node.js MAJOR [vitest filters…]\n');
  process.exit(2);
}
const cache = join(root, 'node_modules', '.cache', 'idp-test-node', major);
const work = join(cache, 'project');
const runtimePackage = runtimePackageName();
// What the copy of the project leaves out: built or installed here, or the shipped runtime.
const NOT_COPIED = new Set(['.git', 'node_modules', 'dist', 'coverage', 'outbox']);
const NOT_LINKED = new Set(['.bin', '.cache', 'better-sqlite3', ...['arm64', 'x64'].map((arch) => runtimePackageName('linux', arch))]);

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: 'inherit', ...options });
  if (result.status !== 0) {
    process.stderr.write(`test-node: ${[command, ...args].join(' ')} failed (${result.status ?? result.signal ?? result.error?.message})\n`);
    process.exit(result.status || 1);
  }
}

/** The node binary of node-<platform>-<arch>@MAJOR, installed into the cache on first use. */
function installNode() {
  const node = join(cache, 'node_modules', runtimePackage, 'bin', 'node');
  if (!existsSync(node)) {
    mkdirSync(cache, { recursive: true });
    const npm = process.env.npm_execpath ? [process.execPath, process.env.npm_execpath] : ['npm'];
    run(npm[0], [...npm.slice(1), 'install', '--prefix', cache, '--no-save', '--ignore-scripts', '--no-audit', '--no-fund', `${runtimePackage}@${major}`]);
  }
  return node;
}

function copyProject() {
  rmSync(work, { recursive: true, force: true });
  const modules = join(work, 'node_modules');
  mkdirSync(modules, { recursive: true });
  for (const name of readdirSync(root)) {
    if (!NOT_COPIED.has(name)) cpSync(join(root, name), join(work, name), { recursive: true });
  }
  for (const name of readdirSync(join(root, 'node_modules'))) {
    if (!NOT_LINKED.has(name)) symlinkSync(join(root, 'node_modules', name), join(modules, name));
  }
  const addon = join(root, 'node_modules', 'better-sqlite3');
  cpSync(addon, join(modules, 'better-sqlite3'), { recursive: true, filter: (path) => path !== join(addon, 'build') });
}

const node = installNode();
const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
process.stderr.write(`test-node: the suite on Node.js ${version}, in ${work}\n`);
copyProject();
const env = { ...process.env, PATH: `${dirname(node)}${delimiter}${process.env.PATH}` };
// The SQLite suite: a database URL in the environment would move it onto PostgreSQL.
delete env.IDP_TEST_DATABASE_URL;
const options = { cwd: work, env };
run(node, [join(work, 'scripts', 'build-native.js')], options);
run(node, [join(work, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], options);
run(node, [join(work, 'scripts', 'build-bundle.js'), '--quiet'], options);
run(node, [join(work, 'node_modules', 'vitest', 'vitest.mjs'), 'run', ...filters], options);
