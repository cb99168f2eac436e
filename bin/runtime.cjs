'use strict';
/**
 * The Node.js idp runs on. `npm ci` installs Node.js itself from the npm registry: the package
 * `node-<platform>-<arch>` (an optional dependency in package.json, installed only where its `os`
 * and `cpu` match) holds the `node` binary and its headers, and npm links that binary as
 * node_modules/.bin/node, so every npm script runs on it. Scripts that must use it whatever Node
 * started them (building the native addon, the single executable) ask this module for it, and
 * bin/idp.js, started by an older Node (`node bin/idp.js`, `npx idp`, `npm link`), runs itself
 * again on it (runOnShippedRuntime). Where no such package exists for the platform, idp runs on
 * the Node that started it.
 */
const { spawn } = require('node:child_process');
const { readFileSync } = require('node:fs');
const { dirname, join } = require('node:path');
const { isatty } = require('node:tty');

/** The major version of the shipped runtime (package.json, optionalDependencies). */
const SHIPPED_MAJOR = 24;
/** The oldest Node.js idp supports (package.json, engines). */
const OLDEST_MAJOR = 22;

const majorOf = (version) => Number(version.replace(/^v/, '').split('.')[0]);

/** The registry's name for this platform's Node.js package (as the `node` package names it). */
function runtimePackageName(platform = process.platform, arch = process.arch) {
  const os = platform === 'win32' ? 'win' : platform;
  return `${platform === 'darwin' && arch === 'arm64' ? 'node-bin' : 'node'}-${os}-${arch}`;
}

/**
 * The installed runtime for this platform, found from `from` as Node resolves packages:
 * `{ dir, node, version }` (the package's folder, its `node` binary, its version), or undefined.
 */
function shippedRuntime(from = __dirname) {
  let manifest;
  try {
    manifest = require.resolve(`${runtimePackageName()}/package.json`, { paths: [from] });
  } catch {
    return undefined;
  }
  const { version, bin } = JSON.parse(readFileSync(manifest, 'utf8'));
  const dir = dirname(manifest);
  return { dir, node: join(dir, typeof bin === 'string' ? bin : bin.node), version };
}

// Signals a supervisor sends to the process it started, passed on to the program's own process.
const FORWARDED = ['SIGTERM', 'SIGHUP', 'SIGINT'];

/**
 * Runs this program (process.argv, with the running Node's own flags) again on the shipped
 * runtime when the running Node is older than it and the runtime is installed. Returns true when
 * it did: the caller then does nothing more, and this process ends as the other one ends, with its
 * exit code or by its signal. Standard input and output are the same files, not pipes.
 */
function runOnShippedRuntime() {
  const running = majorOf(process.versions.node);
  if (running >= SHIPPED_MAJOR) return false;
  const runtime = shippedRuntime();
  if (!runtime || majorOf(runtime.version) <= running) {
    if (running >= OLDEST_MAJOR) return false;
    process.stderr.write(`error: idp needs Node.js ${OLDEST_MAJOR} or later, not ${process.version}; \`npm ci\` installs Node.js ${SHIPPED_MAJOR} with it\n`);
    process.exit(1);
  }
  const child = spawn(runtime.node, [...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit' });
  // Ctrl-C in a terminal signals the whole foreground process group, the other process included:
  // passing SIGINT on as well would deliver it twice (the second one ends `idp serve` at once).
  const interactive = [0, 1, 2].some((fd) => isatty(fd));
  const forward = (signal) => {
    if (signal !== 'SIGINT' || !interactive) child.kill(signal);
  };
  for (const signal of FORWARDED) process.on(signal, forward);
  child.once('error', (error) => {
    process.stderr.write(`error: cannot start ${runtime.node}: ${error.message}\n`);
    process.exit(1);
  });
  child.once('exit', (code, signal) => {
    for (const name of FORWARDED) process.off(name, forward);
    if (signal) process.kill(process.pid, signal);
    else process.exit(code ?? 1);
  });
  return true;
}

module.exports = { SHIPPED_MAJOR, runOnShippedRuntime, runtimePackageName, shippedRuntime };
