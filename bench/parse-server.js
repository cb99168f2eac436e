// Parse Server 9 on PostgreSQL, the peer of the `parse` scenario of bench/run.js, and the child
// program that serves it: `node bench/parse-server.js DATABASE_URL` prints `listening on URL` at
// 127.0.0.1 on a port of the system's choosing, with the keys below. Parse Server is not a
// dependency of idp: bench/peers/parse/ holds its own package.json and lock file, installed there
// on first use (`npm ci --prefix bench/peers/parse`, some 330 packages, 190 MB). That package.json
// pins `router` to 2.2.0: Parse Server loads it without declaring it, and with router 2.3.0 its
// `/batch` endpoint answers 500 "Cannot convert undefined or null to object".
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PEER = fileURLToPath(new URL('peers/parse/', import.meta.url));
export const PARSE_KEYS = { appId: 'bench', masterKey: 'bench-master-key', restAPIKey: 'bench-rest-key' };
/** The path Parse Server's REST API is mounted at. */
export const PARSE_MOUNT = '/parse';

/** Installs Parse Server into bench/peers/parse/ unless it is there already. */
export function installParseServer() {
  if (existsSync(join(PEER, 'node_modules', 'parse-server', 'package.json'))) return;
  console.log('installing Parse Server into bench/peers/parse/ (first use)');
  execFileSync('npm', ['ci', '--prefix', PEER, '--no-audit', '--no-fund', '--loglevel', 'error'], { stdio: 'inherit' });
}

async function serve(databaseURI) {
  // Parse Server writes its logs to ./logs unless told otherwise before it loads: the warnings
  // it logs while loading come before any option is read. The benchmark reads none of them.
  process.env.PARSE_SERVER_LOGS_FOLDER = 'null';
  // Resolved from the peer's own folder: idp's node_modules does not hold them.
  const require = createRequire(join(PEER, 'package.json'));
  const { ParseServer } = require('parse-server');
  const express = require('express');
  const app = express();
  const listener = await new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => resolve(server));
  });
  const serverURL = `http://127.0.0.1:${listener.address().port}${PARSE_MOUNT}`;
  const parse = new ParseServer({
    ...PARSE_KEYS,
    databaseURI,
    serverURL,
    silent: true,
    // Parse Server 9's default; said here because the benchmark relies on it: clients do not
    // create classes, the benchmark does with the master key before measuring.
    allowClientClassCreation: false,
  });
  await parse.start();
  app.use(PARSE_MOUNT, parse.app);
  console.log(`listening on ${serverURL.slice(0, -PARSE_MOUNT.length)}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await serve(process.argv[2]);
