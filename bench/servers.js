// Child `idp serve` processes for the benchmark runners (bench/run.js, bench/soak.js): start one
// or several on a temporary database, read their CPU time and memory from Linux /proc, and talk to
// them over HTTP while preparing a run.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const START_TIMEOUT_MS = 20_000;
const ORG = { organization: 'bench', username: 'bench', name: 'Bench', email: 'bench@example.com', password: 'bench-password' };

/**
 * Starts a child that prints "listening on URL"; resolves with { url, pid, stop }. Its later
 * output is read and dropped, so a long-running child never blocks on a full pipe.
 */
export function startChild(args, label) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    // What it writes to stdout and stderr (its logs), counted, not kept.
    let written = 0;
    child.stderr.on('data', (chunk) => (written += chunk.length));
    child.stdout.on('data', (chunk) => (written += chunk.length));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${label} did not start within ${START_TIMEOUT_MS} ms`));
    }, START_TIMEOUT_MS);
    let out = '';
    const listening = (chunk) => {
      out += chunk;
      const match = out.match(/listening on (http:\/\/\S+)/);
      if (!match) return;
      clearTimeout(timer);
      child.stdout.off('data', listening);
      child.stdout.resume();
      resolve({
        url: match[1],
        pid: child.pid,
        exited: () => child.exitCode !== null || child.signalCode !== null,
        bytesWritten: () => written,
        stop: () =>
          new Promise((done) => {
            if (child.exitCode !== null || child.signalCode !== null) return done();
            child.once('exit', done);
            child.kill('SIGTERM');
          }),
      });
    };
    child.stdout.on('data', listening);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${label} exited with code ${code} before listening`));
    });
  });
}

export const redacted = (url) => url.replace(/:[^:@/]*@/, ':***@');

/** Schemas made and not dropped yet: a run stopped at its time limit leaves its own behind. */
const openSchemas = new Set();

async function dropSchema(databaseUrl, name) {
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    await client.query(`drop schema if exists "${name}" cascade`);
    openSchemas.delete(name);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Drops every schema made by startIdp and not dropped yet (after a run was stopped at its limit). */
export async function dropLeftoverSchemas(databaseUrl) {
  for (const name of openSchemas) await dropSchema(databaseUrl, name).catch((error) => console.error(`schema ${name} not dropped: ${error.message}`));
}

/** A schema of its own on the PostgreSQL server, for one run; the URL the servers are given. */
function createSchema(databaseUrl) {
  const name = `bench_${randomBytes(5).toString('hex')}`;
  const url = new URL(databaseUrl);
  url.searchParams.set('options', `-c search_path=${name}`);
  openSchemas.add(name);
  return { name, url: url.toString(), drop: () => dropSchema(databaseUrl, name) };
}

/**
 * `idp serve` on a fresh database — a temporary SQLite file, or a new schema on the PostgreSQL
 * server at `databaseUrl` with `instances` servers sharing it — run with `use(cluster)`, then
 * stopped and removed. `cluster.url` is the first server's (for setting up); `cluster.servers` all
 * of them. `nodeArgs` are Node flags for the children, `serveArgs` more flags for `idp serve`.
 */
export async function withIdp({ databaseUrl, instances = 1, nodeArgs = [], serveArgs = [] }, use) {
  const dir = mkdtempSync(join(tmpdir(), 'idp-bench-'));
  const schema = databaseUrl === undefined ? undefined : createSchema(databaseUrl);
  // Instances behind one address publish one issuer: a token of one is valid at every other.
  const storage = schema ? ['--database-url', schema.url, '--issuer', 'http://idp.bench.test'] : ['--db', join(dir, 'bench.db')];
  const started = await Promise.allSettled(
    Array.from({ length: schema ? instances : 1 }, (_, i) =>
      startChild([...nodeArgs, 'bin/idp.js', 'serve', '--port', '0', ...storage, ...serveArgs], `idp serve ${i + 1}`),
    ),
  );
  const servers = started.filter((result) => result.status === 'fulfilled').map((result) => result.value);
  try {
    const failed = started.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
    return await use({ url: servers[0].url, servers });
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    await schema?.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A JSON request that must succeed; resolves with the parsed answer. */
export async function call(url, method, path, { json, token } = {}) {
  const headers = { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) };
  const response = await fetch(`${url}${path}`, { method, headers, body: json === undefined ? undefined : JSON.stringify(json) });
  const body = await response.json();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(body)}`);
  return body;
}

/** Organization `bench` with application `app` on a fresh idp; its admin's token and the app's credentials. */
export async function setUpApplication(url) {
  await call(url, 'POST', '/management/orgs', { json: ORG });
  const { access_token: token } = await call(url, 'POST', '/management/token', {
    json: { grant_type: 'password', username: ORG.username, password: ORG.password },
  });
  await call(url, 'POST', '/management/orgs/bench/apps', { json: { name: 'app' }, token });
  const { credentials } = await call(url, 'GET', '/management/orgs/bench/apps/app/credentials', { token });
  return { token, credentials };
}

export function basic(id, secret) {
  return `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
}

/** CPU seconds a process has used (Linux /proc; null elsewhere). */
export function cpuSeconds(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

/** A process's resident memory in kB from /proc/<pid>/status: { rss, anon } (anon: heap and other private memory); null elsewhere. */
export function residentKilobytes(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name) => Number(status.match(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm'))?.[1]);
    return { rss: field('VmRSS'), anon: field('RssAnon') };
  } catch {
    return null;
  }
}
