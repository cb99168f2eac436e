// `npm run soak -- --minutes 10`: one real `idp serve` under a steady mixed load for a long time,
// watching its memory (docs/benchmarks.md, "Soak"). The server runs on a temporary SQLite file, or
// with `--database-url` in a schema of its own on that PostgreSQL server (bench/servers.js). The
// load is bounded (`--rate` operations a second, at most MAX_IN_FLIGHT at once) and mixes tokens
// (client credentials, password, refresh, userinfo), entity reads, creates, updates and deletes,
// ql queries, connections, and push notifications to a `noop` notifier.
//
// The server's memory is read every second from /proc/<pid>/status: RSS, and its anonymous part
// (the JavaScript heap and other private memory). Every `--interval` seconds one line: elapsed
// time, the median and the highest RSS of the interval's readings, the median anonymous memory,
// the p99 latency of a `GET /status` probe sent every PROBE_MS (the event loop's delay seen from
// outside), requests and errors so far. Medians, because one reading is noisy: each password
// check (scrypt, src/passwords.ts) holds 32 MB on the thread pool while it runs, so a reading
// taken during one is 32 MB (or 64) higher. At the end a summary: RSS first / last / max, and
// whether memory stayed flat — the last quarter's median RSS within `--max-growth` percent of the
// second quarter's (the first quarter is warm-up: JIT code, caches, the heap finding its size).
// Exit code 1 on any failed request or on growth.
//
//   npm run soak -- --minutes 10
//   npm run soak -- --seconds 30 --interval 5 --rate 40
//   npm run soak -- --database-url postgres://postgres@127.0.0.1:5432/test --minutes 10
//   BENCH_NODE_ARGS='--heapsnapshot-signal=SIGUSR2' npm run soak
//                                          Node flags for the `idp serve` child, as in bench/run.js
import { loadavg, cpus } from 'node:os';
import { basic, call, redacted, residentKilobytes, setUpApplication, withIdp } from './servers.js';

const PROBE_MS = 250;
const SAMPLE_MS = 1000;
const MAX_IN_FLIGHT = 8;
const USERS = 20;
const DEVICES = 20;
// Items kept alive: a create past this deletes the oldest instead, so the collection stays the same size.
const ITEMS = 200;
// Reads, updates and connections pick among the newest items, far from the deletes at the oldest end.
const RECENT = 100;
const APP = '/bench/app';

function parseArguments(argv) {
  const options = { seconds: 600, interval: 30, rate: 25, maxGrowth: 10, databaseUrl: process.env.BENCH_DATABASE_URL || undefined };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split(/=(.*)/s);
    const value = () => inline ?? argv[++i];
    if (flag === '--minutes') options.seconds = Number(value()) * 60;
    else if (flag === '--seconds') options.seconds = Number(value());
    else if (flag === '--interval') options.interval = Number(value());
    else if (flag === '--rate') options.rate = Number(value());
    else if (flag === '--max-growth') options.maxGrowth = Number(value());
    else if (flag === '--database-url') options.databaseUrl = value();
    else usage(`unknown argument ${argv[i]}`);
  }
  for (const name of ['seconds', 'interval', 'rate', 'maxGrowth'])
    if (!Number.isFinite(options[name]) || options[name] <= 0) usage(`--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} must be a positive number`);
  if (options.databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(options.databaseUrl)) usage('--database-url must be a postgres:// URL');
  return options;
}

function usage(message) {
  console.error(
    `${message}\nusage: npm run soak -- [--minutes M | --seconds S] [--interval S] [--rate OPS_PER_SECOND] [--max-growth PERCENT] [--database-url postgres://…]`,
  );
  process.exit(2);
}

/** Counts every request and keeps the first few failures to show. */
function createTally() {
  const tally = { requests: 0, errors: 0, failures: [] };
  tally.fail = (what) => {
    tally.errors += 1;
    if (tally.failures.length < 10) tally.failures.push(what);
  };
  return tally;
}

/**
 * One request to the server, counted; a status other than `expected` (or none) is an error.
 * Resolves with the parsed body, or undefined after an error.
 */
async function send(url, tally, method, path, { json, form, token, auth, expected = 200 } = {}) {
  const headers = {};
  let body;
  if (json !== undefined) [headers['content-type'], body] = ['application/json', JSON.stringify(json)];
  if (form !== undefined) [headers['content-type'], body] = ['application/x-www-form-urlencoded', new URLSearchParams(form).toString()];
  if (token) headers.authorization = `Bearer ${token}`;
  if (auth) headers.authorization = auth;
  tally.requests += 1;
  try {
    const response = await fetch(`${url}${path}`, { method, headers, body, signal: AbortSignal.timeout(30_000) });
    const text = await response.text();
    if (response.status === expected) return text ? JSON.parse(text) : {};
    tally.fail(`${method} ${path.split('?')[0]}: ${response.status} ${text.slice(0, 200)}`);
  } catch (error) {
    tally.fail(`${method} ${path.split('?')[0]}: ${error.message}`);
  }
  return undefined;
}

/** The application, its users, a `noop` notifier and devices, and the first items. */
async function prepare(url) {
  const { token: adminToken, credentials } = await setUpApplication(url);
  const users = Array.from({ length: USERS }, (_, i) => ({ username: `user${i}`, password: `password-of-user-${i}`, email: `user${i}@example.com` }));
  await call(url, 'POST', `${APP}/users`, { json: users, token: adminToken });
  await call(url, 'POST', `${APP}/notifiers`, { json: { name: 'dev', provider: 'noop', environment: 'development' }, token: adminToken });
  const devices = Array.from({ length: DEVICES }, (_, i) => ({ name: `device${i}`, 'dev.notifier.id': `noop-${i}` }));
  await call(url, 'POST', `${APP}/devices`, { json: devices, token: adminToken });
  for (let i = 0; i < DEVICES; i++) await call(url, 'POST', `${APP}/users/user${i % USERS}/devices/device${i}`, { token: adminToken });
  const created = await call(url, 'POST', `${APP}/items`, { json: Array.from({ length: ITEMS / 2 }, (_, i) => item(i)), token: adminToken });
  return {
    appAuth: basic(credentials.client_id, credentials.client_secret),
    appToken: adminToken,
    users,
    items: created.entities.map((entity) => entity.uuid),
    sessions: [],
    serial: ITEMS / 2,
  };
}

const CITIES = ['Berlin', 'Paris', 'Madrid', 'Rome', 'Oslo'];
const item = (n) => ({ name: `item-${n}`, score: n % 100, city: CITIES[n % CITIES.length], note: 'x'.repeat(200) });
const pick = (list) => list[Math.floor(Math.random() * list.length)];
const recentItem = (state) => pick(state.items.slice(-RECENT));

/** The operations of the load and their weights; each takes (url, state, tally). */
const OPERATIONS = [
  [
    2,
    async function clientCredentials(url, state, tally) {
      const answer = await send(url, tally, 'POST', '/connect/token', { form: { grant_type: 'client_credentials', scope: 'api' }, auth: state.appAuth });
      if (answer) state.appToken = answer.access_token;
    },
  ],
  [
    1,
    async function passwordGrant(url, state, tally) {
      const user = pick(state.users);
      const form = { grant_type: 'password', username: user.username, password: user.password, scope: 'openid offline_access api' };
      const answer = await send(url, tally, 'POST', '/connect/token', { form, auth: state.appAuth });
      if (answer) state.sessions.push(answer);
      // Older sign-ins are simply left to expire, as clients do.
      if (state.sessions.length > USERS) state.sessions.shift();
    },
  ],
  [
    2,
    async function refreshAndUserinfo(url, state, tally) {
      // Taken out while in use: a refresh token presented twice would end its whole family.
      const session = state.sessions.shift();
      if (!session) return;
      const form = { grant_type: 'refresh_token', refresh_token: session.refresh_token };
      const answer = await send(url, tally, 'POST', '/connect/token', { form, auth: state.appAuth });
      if (!answer) return;
      state.sessions.push(answer);
      await send(url, tally, 'GET', '/connect/userinfo', { token: answer.access_token });
    },
  ],
  [
    6,
    async function readItem(url, state, tally) {
      await send(url, tally, 'GET', `${APP}/items/${recentItem(state)}`, { token: state.appToken });
    },
  ],
  [
    3,
    async function createOrDeleteItem(url, state, tally) {
      if (state.items.length >= ITEMS) {
        await send(url, tally, 'DELETE', `${APP}/items/${state.items.shift()}`, { token: state.appToken });
        return;
      }
      const answer = await send(url, tally, 'POST', `${APP}/items`, { json: item(state.serial++), token: state.appToken });
      if (answer) state.items.push(answer.entities[0].uuid);
    },
  ],
  [
    3,
    async function updateItem(url, state, tally) {
      await send(url, tally, 'PUT', `${APP}/items/${recentItem(state)}`, { json: { score: Math.floor(Math.random() * 100) }, token: state.appToken });
    },
  ],
  [
    3,
    async function queryItems(url, state, tally) {
      const ql = `select * where score > ${Math.floor(Math.random() * 90)} and city = '${pick(CITIES)}' order by created desc`;
      await send(url, tally, 'GET', `${APP}/items?ql=${encodeURIComponent(ql)}&limit=20`, { token: state.appToken });
    },
  ],
  [
    2,
    async function connectItem(url, state, tally) {
      const user = pick(state.users).username;
      const uuid = recentItem(state);
      await send(url, tally, 'POST', `${APP}/users/${user}/likes/${uuid}`, { token: state.appToken });
      await send(url, tally, 'GET', `${APP}/users/${user}/likes?limit=10`, { token: state.appToken });
      await send(url, tally, 'DELETE', `${APP}/users/${user}/likes/${uuid}`, { token: state.appToken });
    },
  ],
  [
    1,
    async function pushToUser(url, state, tally) {
      const user = pick(state.users).username;
      const answer = await send(url, tally, 'POST', `${APP}/users/${user}/notifications`, { json: { payloads: { dev: 'soak' } }, token: state.appToken });
      if (answer) await send(url, tally, 'GET', `${APP}/notifications/${answer.entities[0].uuid}`, { token: state.appToken });
    },
  ],
];
const WEIGHTED = OPERATIONS.flatMap(([weight, operation]) => Array(weight).fill(operation));

const percentile = (values, p) => {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
};
const megabytes = (kilobytes) => (kilobytes / 1024).toFixed(1);

/** GET /status every PROBE_MS; `take()` hands over the latencies measured since the last call. */
function startProbe(url, tally) {
  let latencies = [];
  const all = [];
  const timer = setInterval(async () => {
    const started = performance.now();
    if ((await send(url, tally, 'GET', '/status')) === undefined) return;
    const ms = performance.now() - started;
    latencies.push(ms);
    all.push(ms);
  }, PROBE_MS);
  return {
    take: () => [latencies, (latencies = [])][0],
    all,
    stop: () => clearInterval(timer),
  };
}

/** Starts an operation every 1/rate s while fewer than MAX_IN_FLIGHT run; resolves when `until` has passed and all have ended. */
function drive(url, state, tally, { rate, until }) {
  let inFlight = 0;
  let skipped = 0;
  return new Promise((resolve) => {
    const timer = setInterval(() => {
      if (Date.now() >= until) {
        clearInterval(timer);
        const wait = setInterval(() => inFlight === 0 && (clearInterval(wait), resolve({ skipped })), 20);
        return;
      }
      if (inFlight >= MAX_IN_FLIGHT) return void (skipped += 1);
      inFlight += 1;
      pick(WEIGHTED)(url, state, tally)
        .catch((error) => tally.fail(`load: ${error.message}`))
        .finally(() => (inFlight -= 1));
    }, 1000 / rate);
  });
}

/** Whether the last quarter's median RSS is within maxGrowth percent of the second quarter's. */
function verdict(samples, seconds, maxGrowth) {
  // The last quarter takes the sample made after the load stopped too.
  const quarter = (n) =>
    samples.filter((sample) => sample.t > (seconds * n) / 4 && (n === 3 || sample.t <= (seconds * (n + 1)) / 4)).map((sample) => sample.rss);
  const [second, last] = [quarter(1), quarter(3)];
  if (second.length === 0 || last.length === 0) return { flat: true, text: 'too short to judge (fewer than one sample a quarter)' };
  const [before, after] = [percentile(second, 0.5), percentile(last, 0.5)];
  const growth = ((after - before) / before) * 100;
  const flat = growth <= maxGrowth;
  return {
    flat,
    text: `second-quarter median ${megabytes(before)} MB, last-quarter median ${megabytes(after)} MB: ${growth >= 0 ? '+' : ''}${growth.toFixed(1)}% (limit +${maxGrowth}%): ${flat ? 'flat' : 'GROWING'}`,
  };
}

async function soak(server, options) {
  const tally = createTally();
  const state = await prepare(server.url);
  const started = Date.now();
  const samples = [];
  const sample = () => {
    const memory = residentKilobytes(server.pid);
    if (memory) samples.push({ t: (Date.now() - started) / 1000, ...memory });
    return memory;
  };
  const first = sample();
  console.log(
    `prepared: ${USERS} users, ${DEVICES} devices, ${ITEMS / 2} items; RSS ${megabytes(first.rss)} MB; ${options.rate} operations/s for ${options.seconds} s`,
  );
  console.log('elapsed  RSS median MB  RSS max MB  anon median MB  /status p99 ms  requests  req/s  errors');
  const probe = startProbe(server.url, tally);
  const sampler = setInterval(sample, SAMPLE_MS);
  let [lastRequests, lastSample] = [0, samples.length];
  const report = setInterval(() => {
    const interval = samples.slice(lastSample);
    lastSample = samples.length;
    const elapsed = (Date.now() - started) / 1000;
    const rate = (tally.requests - lastRequests) / options.interval;
    lastRequests = tally.requests;
    const cells = [
      `${elapsed.toFixed(0)} s`,
      megabytes(
        percentile(
          interval.map((one) => one.rss),
          0.5,
        ),
      ),
      megabytes(Math.max(...interval.map((one) => one.rss))),
      megabytes(
        percentile(
          interval.map((one) => one.anon),
          0.5,
        ),
      ),
      percentile(probe.take(), 0.99).toFixed(1),
      tally.requests,
      rate.toFixed(0),
      tally.errors,
    ];
    console.log(cells.map((cell, i) => String(cell).padStart([7, 15, 12, 16, 16, 10, 7, 8][i])).join(''));
    if (server.exited()) tally.fail('the server exited');
  }, options.interval * 1000);
  const { skipped } = await drive(server.url, state, tally, { rate: options.rate, until: started + options.seconds * 1000 });
  clearInterval(report);
  clearInterval(sampler);
  probe.stop();
  sample();
  return { tally, samples, skipped, probeP99: percentile(probe.all, 0.99), seconds: (Date.now() - started) / 1000 };
}

function summarize({ tally, samples, skipped, probeP99, seconds }, options) {
  const rss = samples.map((sample) => sample.rss);
  const judged = verdict(samples, options.seconds, options.maxGrowth);
  console.log(
    `\n${seconds.toFixed(0)} s, ${tally.requests} requests (${(tally.requests / seconds).toFixed(0)}/s), ${tally.errors} errors, ${skipped} operations skipped (${MAX_IN_FLIGHT} in flight)`,
  );
  console.log(
    `RSS first ${megabytes(rss[0])} MB, last ${megabytes(rss.at(-1))} MB, max ${megabytes(Math.max(...rss))} MB; /status p99 ${probeP99.toFixed(1)} ms`,
  );
  console.log(`memory: ${judged.text}`);
  console.log(
    `load average ${loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')} at the end`,
  );
  for (const failure of tally.failures) console.log(`error: ${failure}`);
  return tally.errors === 0 && judged.flat;
}

const options = parseArguments(process.argv.slice(2));
const where = options.databaseUrl === undefined ? 'SQLite (a temporary file)' : `PostgreSQL ${redacted(options.databaseUrl)} (a schema of its own)`;
console.log(
  `${new Date().toISOString()}, ${where}, ${cpus().length} CPUs, load average ${loadavg()
    .map((n) => n.toFixed(2))
    .join(' ')}`,
);
const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
const ok = await withIdp({ databaseUrl: options.databaseUrl, nodeArgs, serveArgs: ['--log-level', 'warn'] }, async ({ servers: [server] }) =>
  summarize(await soak(server, options), options),
);
process.exit(ok ? 0 : 1);
