#!/usr/bin/env node
/**
 * Push benchmark (issue 7): one notification to BENCH_DEVICES devices (default 100,000) through
 * `noop`, then through a local APNs (HTTP/2 over TLS, answering 200), against a real
 * `idp serve` child process on a temporary database. Reports deliveries per second from the
 * POST to the last receipt, and the median latency of GET requests made during the send.
 *
 *   npm run build && node bench/push.js
 */
import { spawn } from 'node:child_process';
import { createSecureServer } from 'node:http2';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exportPKCS8, generateKeyPair } from 'jose';
import { generate } from 'selfsigned';

const DEVICES = Number(process.env.BENCH_DEVICES ?? 100_000);
const BIN = fileURLToPath(new URL('../bin/idp.js', import.meta.url));

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
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--db', db, '--log-level', 'warn'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
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
  const res = await fetch(`${url}${path}`, { method, headers: { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) }, body: json === undefined ? undefined : JSON.stringify(json) });
  const body = await res.json();
  if (res.status !== 200) throw new Error(`${method} ${path} → ${res.status} ${JSON.stringify(body)}`);
  return body;
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? NaN : sorted[Math.floor(sorted.length / 2)];
};

/** Sends one notification to every device through `notifier`; times it and GETs meanwhile. */
async function measure(idp, token, notifier) {
  const started = performance.now();
  const sent = await call(idp.url, 'POST', '/bench/push/devices/*/notifications', token, { payloads: { [notifier]: 'benchmark' } });
  const accepted = performance.now() - started;
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
  return { notifier, devices: DEVICES, state: state.state, sent: state.statistics.sent, acceptedMs: Math.round(accepted), seconds: Number(seconds.toFixed(2)), deliveriesPerSecond: Math.round(state.statistics.sent / seconds), getMedianMs: Number(median(latencies).toFixed(1)), gets: latencies.length };
}

/**
 * The whole benchmark, for `npm run bench` (bench/run.js imports it) and for running this file
 * directly: resolves with one result per notifier (noop, then the local APNs).
 */
export async function runPushBenchmark() {
  const dir = mkdtempSync(join(tmpdir(), 'idp-bench-push-'));
  const apns = await startApns();
  writeFileSync(join(dir, 'ca.pem'), apns.cert);
  const idp = await startIdp(join(dir, 'idp.db'), { IDP_APNS_URL: apns.url, NODE_EXTRA_CA_CERTS: join(dir, 'ca.pem') });
  try {
    await call(idp.url, 'POST', '/management/orgs', undefined, { organization: 'bench', username: 'bench', name: 'Bench', email: 'bench@example.com', password: 'bench-password' });
    const { access_token: token } = await call(idp.url, 'POST', '/management/token', undefined, { grant_type: 'password', username: 'bench', password: 'bench-password' });
    await call(idp.url, 'POST', '/management/orgs/bench/apps', token, { name: 'push' });
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    await call(idp.url, 'POST', '/bench/push/notifiers', token, [
      { name: 'dev', provider: 'noop', environment: 'development' },
      { name: 'ios', provider: 'apple', environment: 'production', p8: await exportPKCS8(privateKey), keyId: 'BENCH12345', teamId: 'TEAM123456', topic: 'com.example.bench' },
    ]);
    const setup = performance.now();
    for (let i = 0; i < DEVICES; i += 1000) {
      const batch = Array.from({ length: Math.min(1000, DEVICES - i) }, (_, k) => ({ 'dev.notifier.id': `noop-${i + k}`, 'ios.notifier.id': `apns${i + k}` }));
      await call(idp.url, 'POST', '/bench/push/devices', token, batch);
    }
    console.error(`created ${DEVICES} devices in ${((performance.now() - setup) / 1000).toFixed(1)} s`);
    const results = [await measure(idp, token, 'dev'), await measure(idp, token, 'ios')];
    results[1].apnsRequests = apns.received();
    return results;
  } finally {
    idp.child.kill('SIGTERM');
    apns.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

// Run directly (`node bench/push.js`), it prints the results as JSON as it always did.
if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(JSON.stringify({ scenario: 'push', results: await runPushBenchmark() }, null, 2));
