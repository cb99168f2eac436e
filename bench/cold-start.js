#!/usr/bin/env node
/**
 * Cold start of `idp serve` on an empty database (docs/benchmarks.md, `cold-start`): the time from
 * spawning `node bin/idp.js serve --port 0 --db <fresh file> --log-level warn` to the first line on
 * stdout or stderr that contains `listening on`. Each run gets a new database file (removed first,
 * so migrations and key generation are part of what is measured); the server is stopped before the
 * next run starts. Prints every run and the median, and beside it how long Node itself takes to
 * start and exit (`node -e 0`) on the same machine, the floor under any Node program's figure.
 *
 * The children run without NODE_EXTRA_CA_CERTS: with it Node reads and parses that CA bundle
 * before running a line of any program (seen here: `node -e 0` 50 ms without, 150 ms with, as
 * the sandbox sets it for every process). Nothing idp does at start needs it.
 *
 *   npm run build && node bench/cold-start.js [RUNS]     (default 7)
 *
 * Exported for the common runner (`npm run bench -- cold-start`) as measureColdStart().
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin', 'idp.js');
const TIMEOUT_MS = 20_000;

/** CPU milliseconds (user + system, every thread) a process has used so far; null off Linux. */
function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

/** The environment the children start in: this one without NODE_EXTRA_CA_CERTS (see the top). */
function childEnv() {
  const env = { ...process.env };
  delete env.NODE_EXTRA_CA_CERTS;
  return env;
}

/** Wall-clock ms of `node -e 0`, spawn to exit, in the children's environment. */
function nodeItself() {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, ['-e', '0'], { env: childEnv(), stdio: 'ignore' });
    child.once('error', reject);
    child.once('exit', () => resolve(performance.now() - started));
  });
}

/** One start: resolves with { wall, cpu }, the milliseconds from spawn to the `listening on` line. */
function startOnce(db) {
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${db}${suffix}`, { force: true });
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--db', db, '--log-level', 'warn'], {
      cwd: ROOT,
      env: childEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let elapsed;
    let cpu = null;
    let output = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), TIMEOUT_MS);
    const onData = (chunk) => {
      if (elapsed !== undefined) return;
      output += chunk;
      // A whole line that says it: the clock stops when that line has arrived.
      const lines = output.split('\n');
      if (!lines.slice(0, -1).some((line) => line.includes('listening on'))) return;
      elapsed = performance.now() - started;
      cpu = cpuMs(child.pid);
      child.kill('SIGTERM');
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('error', reject);
    // The next run starts only when this server has gone, so the two never share the CPU.
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (elapsed !== undefined) resolve({ wall: elapsed, cpu });
      else reject(new Error(`idp serve ended (${signal ?? `code ${code}`}) before listening\n${output}`));
    });
  });
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/**
 * `runs` cold starts, one after another. Resolves with every wall-clock time and its median, in
 * ms, and the same for the server's CPU time up to that line (null off Linux): the machine is
 * shared, so the wall clock moves with other work far more than the CPU time does.
 */
export async function measureColdStart(runs = 7) {
  const dir = mkdtempSync(join(tmpdir(), 'idp-cold-start-'));
  const results = [];
  const bare = [];
  try {
    for (let n = 0; n < runs; n++) {
      results.push(await startOnce(join(dir, `cs-${n}.db`)));
      bare.push(await nodeItself());
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const times = results.map((result) => result.wall);
  const cpuTimes = results.some((result) => result.cpu === null) ? null : results.map((result) => result.cpu);
  return { times, median: median(times), cpuTimes, cpuMedian: cpuTimes && median(cpuTimes), nodeMedian: median(bare) };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const runs = Number(process.argv[2] ?? 7);
  if (!Number.isInteger(runs) || runs < 1) {
    console.error('usage: node bench/cold-start.js [RUNS]');
    process.exit(2);
  }
  const result = await measureColdStart(runs);
  console.log(`runs (ms): ${result.times.map((t) => t.toFixed(0)).join(' ')}`);
  if (result.cpuTimes) console.log(`server CPU (ms): ${result.cpuTimes.join(' ')}, median ${result.cpuMedian}`);
  console.log(`cold start median of ${runs}: ${result.median.toFixed(0)} ms (target < 300 ms); node -e 0: ${result.nodeMedian.toFixed(0)} ms`);
}
