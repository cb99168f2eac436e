#!/usr/bin/env node
/**
 * Push benchmark (docs/benchmarks.md, `push`): one notification to BENCH_DEVICES devices (default
 * 100,000) through `noop`, then through a local APNs (HTTP/2 over TLS, answering 200), against a
 * real `idp serve` child process on a temporary database. Reports deliveries per second from the
 * POST to the last receipt, the median latency of GET requests made during the send, and the CPU
 * time the server process spent (from /proc/<pid>/stat): the machine is shared, so wall-clock alone
 * says as much about the neighbours as about the code.
 *
 *   npm run build && node bench/push.js            (BENCH_PUSH_ONLY=apns: one scenario)
 *
 * The scenarios are exported for the common runner: `setupPushBench()` starts the servers and
 * creates the devices once, `runPushScenario('noop' | 'apns', { bench })` sends and measures.
 */
import { spawn } from 'node:child_process';
import { createSecureServer } from 'node:http2';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { exportPKCS8, generateKeyPair } from 'jose';
import { generate } from 'selfsigned';

const BIN = fileURLToPath(new URL('../bin/idp.js', import.meta.url));

/** The scenarios and the notifier each sends through. */
export const PUSH_SCENARIOS = { noop: 'dev', apns: 'ios' };

async function startApns() {
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], { keyType: 'ec', algorithm: 'sha256' });
  let received = 0;
  const server = createSecureServer({ key: pems.private, cert: pems.cert });
  server.on('stream', (stream, headers) => {
    stream.resume();
    stream.on('end', () => {
      received += 1;
      stream.respond({ ':status': 200, 'apns-id': headers['apns-id'] });
      stream.end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `https://127.0.0.1:${server.address().port}`, cert: pems.cert, received: () => received, close: () => server.close() };
}

function startIdp(db, env) {
  // BENCH_NODE_ARGS: Node flags for the server, as in bench/run.js (a profile).
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, BIN, 'serve', '--port', '0', '--db', db, '--log-level', 'warn'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const match = out.match(/listening on (http:\/\/\S+)/);
      if (match) resolve({ url: match[1], child });
    });
    child.once('exit', (code) => reject(new Error(`idp exited with ${code}`)));
  });
}

async function call(url, method, path, token, json) {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  const body = await res.json();
  if (res.status !== 200) throw new Error(`${method} ${path} → ${res.status} ${JSON.stringify(body)}`);
  return body;
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? NaN : sorted[Math.floor(sorted.length / 2)];
};

// USER_HZ: the unit of /proc/<pid>/stat times, 100 on every Linux the benchmark runs on.
const TICKS_PER_SECOND = 100;

/** User + system CPU seconds of a process so far. */
function cpuSeconds(pid) {
  // Fields after the command name, which is in parentheses and may contain spaces.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/**
 * Seconds the process's main thread spent waiting for a CPU while runnable (/proc/<pid>/schedstat,
 * second field, in ns): on a shared machine, the part of the wall-clock time lost to neighbours.
 */
function runQueueSeconds(pid) {
  return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[1]) / 1e9;
}

/**
 * Starts an APNs stand-in and `idp serve`, creates an app with a noop and an apple notifier and
 * `devices` devices that have a token for both. `close()` stops everything.
 */
export async function setupPushBench({ devices = Number(process.env.BENCH_DEVICES ?? 100_000) } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'idp-bench-push-'));
  const apns = await startApns();
  writeFileSync(join(dir, 'ca.pem'), apns.cert);
  const idp = await startIdp(join(dir, 'idp.db'), { IDP_APNS_URL: apns.url, NODE_EXTRA_CA_CERTS: join(dir, 'ca.pem') });
  const close = () => {
    idp.child.kill('SIGTERM');
    apns.close();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await call(idp.url, 'POST', '/management/orgs', undefined, {
      organization: 'bench',
      username: 'bench',
      name: 'Bench',
      email: 'bench@example.com',
      password: 'bench-password',
    });
    const { access_token: token } = await call(idp.url, 'POST', '/management/token', undefined, {
      grant_type: 'password',
      username: 'bench',
      password: 'bench-password',
    });
    await call(idp.url, 'POST', '/management/orgs/bench/apps', token, { name: 'push' });
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    await call(idp.url, 'POST', '/bench/push/notifiers', token, [
      { name: 'dev', provider: 'noop', environment: 'development' },
      {
        name: 'ios',
        provider: 'apple',
        environment: 'production',
        p8: await exportPKCS8(privateKey),
        keyId: 'BENCH12345',
        teamId: 'TEAM123456',
        topic: 'com.example.bench',
      },
    ]);
    const setup = performance.now();
    for (let i = 0; i < devices; i += 1000) {
      const batch = Array.from({ length: Math.min(1000, devices - i) }, (_, k) => ({ 'dev.notifier.id': `noop-${i + k}`, 'ios.notifier.id': `apns${i + k}` }));
      await call(idp.url, 'POST', '/bench/push/devices', token, batch);
    }
    console.error(`created ${devices} devices in ${((performance.now() - setup) / 1000).toFixed(1)} s`);
    return { idp, apns, token, devices, close };
  } catch (error) {
    close();
    throw error;
  }
}

/**
 * One scenario of PUSH_SCENARIOS: sends one notification to every device, timed from the POST
 * to the notification's end, GETting the notification every 50 ms meanwhile. Uses
 * `options.bench` from setupPushBench, or sets up (and tears down) its own.
 */
export async function runPushScenario(name, options = {}) {
  const notifier = PUSH_SCENARIOS[name];
  if (notifier === undefined) throw new Error(`unknown push scenario '${name}': one of ${Object.keys(PUSH_SCENARIOS).join(', ')}`);
  const bench = options.bench ?? (await setupPushBench(options));
  try {
    const { idp, token } = bench;
    const load = loadavg()[0];
    const apnsBefore = bench.apns.received();
    const cpuBefore = cpuSeconds(idp.child.pid);
    const benchCpuBefore = process.cpuUsage();
    const waitBefore = runQueueSeconds(idp.child.pid);
    const started = performance.now();
    const sent = await call(idp.url, 'POST', '/bench/push/devices/*/notifications', token, { payloads: { [notifier]: 'benchmark' } });
    const accepted = performance.now() - started;
    const acceptCpu = cpuSeconds(idp.child.pid) - cpuBefore;
    const uuid = sent.entities[0].uuid;
    const latencies = [];
    let state;
    for (;;) {
      const t = performance.now();
      const notification = (await call(idp.url, 'GET', `/bench/push/notifications/${uuid}`, token)).entities[0];
      latencies.push(performance.now() - t);
      state = notification;
      if (['FINISHED', 'FAILED'].includes(notification.state)) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const seconds = (performance.now() - started) / 1000;
    const serverCpu = cpuSeconds(idp.child.pid) - cpuBefore;
    const benchCpu = process.cpuUsage(benchCpuBefore);
    const serverWait = runQueueSeconds(idp.child.pid) - waitBefore;
    return {
      scenario: name,
      notifier,
      devices: bench.devices,
      state: state.state,
      sent: state.statistics.sent,
      acceptedMs: Math.round(accepted),
      acceptCpuSeconds: Number(acceptCpu.toFixed(2)),
      seconds: Number(seconds.toFixed(2)),
      deliveriesPerSecond: Math.round(state.statistics.sent / seconds),
      getMedianMs: Number(median(latencies).toFixed(1)),
      gets: latencies.length,
      serverCpuSeconds: Number(serverCpu.toFixed(2)),
      // What the server would deliver per second with a whole core to itself.
      deliveriesPerCpuSecond: Math.round(state.statistics.sent / serverCpu),
      serverRunQueueSeconds: Number(serverWait.toFixed(2)),
      // This process: the GETs, and for `apns` the APNs stand-in's TLS and HTTP/2 work.
      benchCpuSeconds: Number(((benchCpu.user + benchCpu.system) / 1e6).toFixed(2)),
      loadAverage: Number(load.toFixed(2)),
      ...(name === 'apns' && { apnsRequests: bench.apns.received() - apnsBefore }),
    };
  } finally {
    if (options.bench === undefined) bench.close();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const bench = await setupPushBench();
  try {
    const results = [];
    for (const name of (process.env.BENCH_PUSH_ONLY ?? 'noop,apns').split(',')) results.push(await runPushScenario(name, { bench }));
    console.log(JSON.stringify({ scenario: 'push', results }, null, 2));
  } finally {
    bench.close();
  }
}
