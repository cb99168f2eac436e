#!/usr/bin/env node
/**
 * `npm run bench`: load scenarios against a real `idp serve` child process on loopback, each
 * bounded in time. Scenarios are one list; add yours to SCENARIOS. Needs `npm run build` first.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import autocannon from 'autocannon';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = 50;
const ORG = { organization: 'bench', username: 'bench', name: 'Bench', email: 'bench@example.com', password: 'bench-password' };

async function startServer() {
  const child = spawn(process.execPath, ['bin/idp.js', 'serve', '--port', '0', '--db', ':memory:', '--log-level', 'warn'], { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  for await (const chunk of child.stdout) {
    output += chunk;
    const url = output.match(/listening on (http:\/\/\S+)/)?.[1];
    if (url) return { child, url };
  }
  throw new Error(`idp serve exited before listening: ${output}`);
}

async function call(url, method, path, body, token) {
  const headers = { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) };
  const res = await fetch(`${url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = await res.json();
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

async function setUp(url) {
  await call(url, 'POST', '/management/orgs', ORG);
  const { access_token: token } = await call(url, 'POST', '/management/token', { grant_type: 'password', username: ORG.username, password: ORG.password });
  await call(url, 'POST', '/management/orgs/bench/apps', { name: 'app' }, token);
  return token;
}

function load(url, token, options) {
  return autocannon({ url, connections: CONNECTIONS, duration: SECONDS, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, ...options });
}

function report(name, result) {
  const non2xx = result.non2xx + result.errors;
  console.log(`${name}: ${Math.round(result.requests.average)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms${non2xx ? `, ${non2xx} failed` : ''}`);
}

const KILOBYTE_OF_PROPERTIES = { description: 'x'.repeat(900), tags: ['a', 'b', 'c'], score: 42, nested: { level: 1 } };

const SCENARIOS = [
  {
    name: `create entity (POST, 1 KB JSON), ${CONNECTIONS} connections, ${SECONDS} s`,
    async run({ url, token }) {
      let n = 0;
      report(this.name, await load(`${url}/bench/app/items`, token, {
        method: 'POST',
        setupRequest: (request) => ({ ...request, body: JSON.stringify({ name: `item-${process.pid}-${n++}`, ...KILOBYTE_OF_PROPERTIES }) }),
      }));
    },
  },
  {
    name: `get entity by name, ${CONNECTIONS} connections, ${SECONDS} s`,
    async run({ url, token }) {
      await call(url, 'POST', '/bench/app/pets', { name: 'rex', ...KILOBYTE_OF_PROPERTIES }, token);
      report(this.name, await load(`${url}/bench/app/pets/rex`, token, { method: 'GET' }));
    },
  },
  {
    name: "query `where age > N and city = 'X' order by created desc limit 50` over 100,000 entities",
    async run({ url, token }) {
      const cities = ['Berlin', 'Paris', 'Madrid', 'Rome', 'Oslo', 'Vienna', 'Prague', 'Lisbon', 'Dublin', 'Athens'];
      for (let batch = 0; batch < 100; batch++) {
        const people = Array.from({ length: 1000 }, (_, i) => ({ name: `p${batch * 1000 + i}`, age: (batch * 7 + i) % 90, city: cities[(batch + i) % cities.length] }));
        await call(url, 'POST', '/bench/app/people', people, token);
      }
      const times = [];
      for (let i = 0; i < 50; i++) {
        const ql = encodeURIComponent(`where age > ${20 + (i % 40)} and city = '${cities[i % cities.length]}' order by created desc`);
        const started = performance.now();
        const page = await call(url, 'GET', `/bench/app/people?ql=${ql}&limit=50`, undefined, token);
        times.push(performance.now() - started);
        if (page.count !== 50) throw new Error(`expected 50 results, got ${page.count}`);
      }
      times.sort((a, b) => a - b);
      console.log(`${this.name}: median ${times[times.length >> 1].toFixed(1)} ms, p90 ${times[Math.floor(times.length * 0.9)].toFixed(1)} ms`);
    },
  },
];

const { child, url } = await startServer();
try {
  const token = await setUp(url);
  const only = process.argv[2];
  for (const scenario of SCENARIOS) if (!only || scenario.name.includes(only)) await scenario.run({ url, token });
} finally {
  child.kill('SIGTERM');
  await once(child, 'exit');
}
