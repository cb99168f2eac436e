// `npm run bench`: load scenarios against real server processes, each bounded in time.
// Every scenario starts its servers as child processes (`idp serve` from dist/, and whatever
// else it compares against), prepares them over HTTP, runs autocannon, and prints req/s.
// Add a scenario by adding an entry to SCENARIOS.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const START_TIMEOUT_MS = 20_000;
const WARM_UP_SECONDS = 2;

/** Starts a child that prints "listening on URL"; resolves with { url, stop }. */
function startChild(args, label) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${label} did not start within ${START_TIMEOUT_MS} ms`));
    }, START_TIMEOUT_MS);
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const match = out.match(/listening on (http:\/\/\S+)/);
      if (!match) return;
      clearTimeout(timer);
      resolve({
        url: match[1],
        pid: child.pid,
        stop: () =>
          new Promise((done) => {
            child.once('exit', done);
            child.kill('SIGTERM');
          }),
      });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${label} exited with code ${code} before listening`));
    });
  });
}

async function startIdp() {
  const dir = mkdtempSync(join(tmpdir(), 'idp-bench-'));
  const server = await startChild(['bin/idp.js', 'serve', '--port', '0', '--db', join(dir, 'bench.db')], 'idp serve');
  return {
    ...server,
    stop: async () => {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function call(url, init) {
  const response = await fetch(url, init);
  const body = await response.json();
  if (!response.ok) throw new Error(`${init?.method ?? 'GET'} ${url}: ${response.status} ${JSON.stringify(body)}`);
  return body;
}

/** An organization, an application and its client credentials on a fresh idp. */
async function applicationCredentials(url) {
  const json = (body, token) => ({
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) },
    body: JSON.stringify(body),
  });
  await call(`${url}/management/orgs`, json({ organization: 'bench', username: 'bench', name: 'Bench', email: 'bench@example.com', password: 'bench-password' }));
  const { access_token: token } = await call(`${url}/management/token`, json({ grant_type: 'password', username: 'bench', password: 'bench-password' }));
  await call(`${url}/management/orgs/bench/apps`, json({ name: 'load' }, token));
  const { credentials } = await call(`${url}/management/orgs/bench/apps/load/credentials`, { headers: { authorization: `Bearer ${token}` } });
  return credentials;
}

function basic(id, secret) {
  return `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
}

function load(url, { connections, duration, request }) {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections, duration, ...request }, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

/** CPU seconds a process has used (Linux /proc; null elsewhere). */
function cpuSeconds(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

/**
 * Runs the load and reports req/s, and also the server's CPU time per request: on a shared
 * machine other work steals cores from either server, and CPU per request is the figure that
 * noise does not move.
 */
async function measure(label, target, options) {
  // Both servers get the same short warm-up, so JIT compilation is not what is measured.
  await load(target.url + options.path, { ...options, duration: WARM_UP_SECONDS });
  const cpuBefore = cpuSeconds(target.pid);
  const result = await load(target.url + options.path, options);
  const cpuAfter = cpuSeconds(target.pid);
  const failed = result.non2xx + result.errors + result.timeouts;
  const rps = result.requests.average;
  const cpuPerRequest = cpuBefore === null || cpuAfter === null ? null : ((cpuAfter - cpuBefore) / result.requests.total) * 1e6;
  const cpuText = cpuPerRequest === null ? '' : `  ${cpuPerRequest.toFixed(0)} µs CPU/request`;
  console.log(`  ${label.padEnd(14)} ${rps.toFixed(0).padStart(7)} req/s  p99 ${result.latency.p99} ms${cpuText}  (${result.requests.total} requests, ${failed} failed)`);
  if (failed > 0) throw new Error(`${label}: ${failed} requests failed`);
  return { rps, cpuPerRequest };
}

const SCENARIOS = [
  {
    name: 'client_credentials token, 50 connections, 10 s: idp vs oidc-provider (ES256 JWT access tokens)',
    connections: 50,
    duration: 10,
    target: 2,
    async run(scenario) {
      const idp = await startIdp();
      let ours;
      try {
        const { client_id, client_secret } = await applicationCredentials(idp.url);
        const request = {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(client_id, client_secret) },
          body: 'grant_type=client_credentials&scope=api',
        };
        ours = await measure('idp', idp, { ...scenario, path: '/connect/token', request });
      } finally {
        await idp.stop();
      }
      const provider = await startChild(['bench/oidc-provider-server.js', 'bench-client', 'bench-secret-bench-secret-bench-secret'], 'oidc-provider');
      let theirs;
      try {
        const request = {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic('bench-client', 'bench-secret-bench-secret-bench-secret') },
          body: 'grant_type=client_credentials&scope=api',
        };
        theirs = await measure('oidc-provider', provider, { ...scenario, path: '/token', request });
      } finally {
        await provider.stop();
      }
      const ratio = ours.rps / theirs.rps;
      console.log(`  ratio          ${ratio.toFixed(2)}× req/s (target ≥ ${scenario.target}×)`);
      if (ours.cpuPerRequest && theirs.cpuPerRequest) {
        console.log(`                 ${(theirs.cpuPerRequest / ours.cpuPerRequest).toFixed(2)}× less CPU per request`);
      }
      return ratio >= scenario.target;
    },
  },
];

const only = process.argv[2];
let failures = 0;
for (const scenario of SCENARIOS) {
  if (only && !scenario.name.includes(only)) continue;
  console.log(scenario.name);
  try {
    if (!(await scenario.run(scenario))) failures += 1;
  } catch (error) {
    failures += 1;
    console.log(`  failed: ${error.message}`);
  }
}
process.exitCode = failures === 0 ? 0 : 1;
