// `npm run bench [-- <scenario>…]`: the one benchmark runner. Every scenario starts its own
// servers as child processes (`idp serve` through bin/idp.js, and whatever it compares against)
// on a temporary database, prepares them over HTTP, loads them for a fixed time, and reports
// figures against the targets of docs/benchmarks.md (`cold-start` only times start-up).
// Add a scenario by adding an entry to SCENARIOS.
//
//   npm run bench                          every scenario
//   npm run bench -- token get-entity      a subset, by name
//   npm run bench -- push                  a name also selects every `push-…` scenario
//   npm run bench -- --database-url postgres://postgres@127.0.0.1:5432/test token get-entity
//                                          SQLite and PostgreSQL side by side (or
//                                          BENCH_DATABASE_URL): each scenario on a SQLite file,
//                                          then in a schema of its own on that server, dropped
//                                          afterwards; judged by the PostgreSQL targets
//   npm run bench -- --database-url … --instances 2 token
//                                          two `idp serve` on that one schema (or BENCH_INSTANCES)
//
//   npm run bench -- --sizes 10000,100000,1000000 query
//                                          the collection sizes of `query` (default 10000,100000)
//
//   BENCH_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' npm run bench -- get-entity
//                                          Node flags for the `idp serve` children (a profile)
//
// HTTP scenarios report req/s and the server's CPU time per request (Linux /proc): the machine
// is shared, so req/s moves with everyone else's load while CPU per request does not. The token
// scenario also reports the bytes idp serve writes (its logs) per 10,000 tokens issued.
//
// With --database-url every scenario runs on SQLite and then on PostgreSQL before the next one
// starts, so the machine's load of the moment weighs on both alike; what it compares against (its
// peers) is measured once, beside the SQLite run, and both are compared with that one figure.
//
// With several instances the load is split by running one autocannon per instance at once, each
// with its share of the connections, and summing: that is what a load balancer spreading
// keep-alive connections over instances does, and it adds nothing to measure. A proxy in this
// process (a round-robin balancer) would spend the same CPU that the servers compete for.
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { measureColdStart } from './cold-start.js';
import { PUSH_SCENARIOS, runPushScenario, setupPushBench } from './push.js';
import { DEFAULT_QUERY_SIZES, queryScenarioSeconds, runParseScenario, runQueryScenario } from './query.js';
import { basic, call, cpuSeconds, dropLeftoverSchemas, redacted, setUpApplication, startChild, withIdp as withIdpOn } from './servers.js';

// The PostgreSQL server of `parse` when --database-url names none (docs/testing.md).
const LOCAL_POSTGRESQL = 'postgres://postgres@127.0.0.1:5432/postgres';
const NODE_ARGS = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
const WARM_UP_SECONDS = 2;
const CONNECTIONS = 50;
const SECONDS = 10;
// About 1 KB once serialized, with a unique name per request added by the scenario.
const KILOBYTE_OF_PROPERTIES = { description: 'x'.repeat(900), tags: ['a', 'b', 'c'], score: 42, nested: { level: 1 } };

/** Where the servers keep their data, and how many run: from the command line or the environment. */
function parseArguments(argv) {
  const options = {
    databaseUrl: process.env.BENCH_DATABASE_URL || undefined,
    instances: Number(process.env.BENCH_INSTANCES || 1),
    sizes: DEFAULT_QUERY_SIZES,
    scenarios: [],
  };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split(/=(.*)/s);
    const value = () => inline ?? argv[++i];
    if (flag === '--database-url') options.databaseUrl = value();
    else if (flag === '--instances') options.instances = Number(value());
    else if (flag === '--sizes') options.sizes = value().split(',').map(Number);
    else if (flag.startsWith('--')) usage(`unknown option ${flag}`);
    else options.scenarios.push(argv[i]);
  }
  if (!Number.isInteger(options.instances) || options.instances < 1 || options.instances > 8) usage('--instances must be a whole number from 1 to 8');
  if (!options.sizes.every((size) => Number.isInteger(size) && size >= 1000 && size <= 10_000_000))
    usage('--sizes takes whole numbers from 1,000 to 10,000,000, comma-separated: 10000,100000,1000000');
  if (options.databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(options.databaseUrl)) usage('--database-url must be a postgres:// URL');
  if (options.instances > 1 && options.databaseUrl === undefined)
    usage('--instances above 1 needs --database-url: instances share a PostgreSQL database, never a SQLite file');
  return options;
}

function usage(message) {
  console.error(`${message}\nusage: npm run bench -- [--database-url postgres://…] [--instances N] [--sizes N,N,…] [scenario…]`);
  process.exit(2);
}

const OPTIONS = parseArguments(process.argv.slice(2));

/** Where `idp serve` keeps its data: a SQLite file, and with --database-url PostgreSQL beside it. */
const BACKENDS = [
  { name: 'SQLite', options: {} },
  ...(OPTIONS.databaseUrl === undefined ? [] : [{ name: 'PostgreSQL', options: { databaseUrl: OPTIONS.databaseUrl, instances: OPTIONS.instances } }]),
];
const SIDE_BY_SIDE = BACKENDS.length > 1;

/**
 * bench/bare-server.js (hono + better-sqlite3, nothing else) on a temporary file: the baseline
 * the data targets are a share of, measured on the same machine as idp was a moment before.
 */
async function withBare(use, client = []) {
  const dir = mkdtempSync(join(tmpdir(), 'idp-bench-bare-'));
  const server = await startChild(['bench/bare-server.js', join(dir, 'bare.db'), ...client], 'bare hono + better-sqlite3');
  try {
    return await use(server);
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

function load(url, options) {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections: CONNECTIONS, duration: SECONDS, ...options }, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

/** CPU seconds all of `pids` have used; null when any is unknown. */
function totalCpuSeconds(pids) {
  const each = pids.map(cpuSeconds);
  return each.includes(null) ? null : each.reduce((sum, seconds) => sum + seconds, 0);
}

/** One autocannon per server at once, the connections shared out between them (see the top). */
async function loadAll(servers, path, request) {
  const share = Math.ceil(CONNECTIONS / servers.length);
  return Promise.all(servers.map((server) => load(server.url + path, { ...request, connections: share })));
}

/**
 * Loads the server — or every server of a cluster (`{ servers }`) — at `path` after a short
 * warm-up (so JIT compilation is not what is measured); resolves with req/s (summed over the
 * servers), the servers' CPU µs per request, and the worst p99. Any failed request fails the
 * scenario.
 */
async function measureLoad(target, path, request) {
  const servers = target.servers ?? [target];
  await loadAll(servers, path, { ...request, duration: WARM_UP_SECONDS });
  const pids = servers.map((server) => server.pid);
  const bytesWritten = () => servers.reduce((sum, server) => sum + server.bytesWritten(), 0);
  const cpuBefore = totalCpuSeconds(pids);
  const bytesBefore = bytesWritten();
  const results = await loadAll(servers, path, request);
  const cpuAfter = totalCpuSeconds(pids);
  // pino writes asynchronously: what the last requests logged reaches the pipe a moment later.
  await new Promise((resolve) => setTimeout(resolve, 200));
  const bytesLogged = bytesWritten() - bytesBefore;
  const total = results.reduce((sum, result) => sum + result.requests.total, 0);
  const failed = results.reduce((sum, result) => sum + result.non2xx + result.errors + result.timeouts, 0);
  if (failed > 0) {
    const statuses = results.flatMap((result) => Object.entries(result.statusCodeStats ?? {}).map(([status, { count }]) => `${status}: ${count}`));
    throw new Error(`${path}: ${failed} of ${total} requests failed (${statuses.join(', ')})`);
  }
  const cpuPerRequest = cpuBefore === null || cpuAfter === null ? null : ((cpuAfter - cpuBefore) / total) * 1e6;
  return {
    rps: results.reduce((sum, result) => sum + result.requests.average, 0),
    cpuPerRequest,
    p99: Math.max(...results.map((result) => result.latency.p99)),
    logBytesPer10k: (bytesLogged / total) * 10_000,
    split: results.length > 1 ? results.map((result) => result.requests.average.toFixed(0)).join(' + ') : undefined,
    // The one-minute load average at the end of the run: roughly the run's own.
    load: loadavg()[0],
  };
}

const perRequest = ({ rps, cpuPerRequest, p99, split, load }) =>
  `${rps.toFixed(0)} req/s${split ? ` (${split})` : ''}, ${cpuPerRequest === null ? '?' : cpuPerRequest.toFixed(0)} µs CPU/req, p99 ${p99} ms, load ${load.toFixed(1)}`;

/** A figure that must reach `target` (higher is better). */
const atLeast = (label, value, target, unit, detail) => ({ label, value, target, higherIsBetter: true, unit, detail });
/** A figure that must stay under `target` (lower is better). */
const atMost = (label, value, target, unit, detail) => ({ label, value, target, higherIsBetter: false, unit, detail });

/** client_credentials form requests for autocannon. */
function tokenRequest(clientId, secret) {
  return {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(clientId, secret) },
    body: 'grant_type=client_credentials&scope=api',
  };
}

// A scenario's `run({ withIdp, peer, backend })` resolves with its figures. It runs once per backend
// (`backend` its name; `once`: only the first, for a scenario that starts what it compares itself):
// `withIdp(use)` starts `idp serve` on that backend's fresh database (bench/servers.js), and
// `peer(name, measure)` measures a server it compares against once per scenario, the first time.
// `postgresTarget` is what the PostgreSQL figure of that label must reach beside SQLite's.
const SCENARIOS = [
  {
    name: 'cold-start',
    // bench/cold-start.js starts its servers on SQLite files.
    sqliteOnly: true,
    title: '`idp serve --port 0` on a fresh database file, spawn to its `listening on` line, 7 times (bench/cold-start.js); target median < 300 ms',
    limitSeconds: 120,
    async run() {
      const { times, median, cpuMedian, nodeMedian } = await measureColdStart(7);
      const detail = `runs ${times.map((t) => t.toFixed(0)).join(' ')} ms${cpuMedian === null ? '' : `; server CPU median ${cpuMedian} ms`}; node -e 0 ${nodeMedian.toFixed(0)} ms; NODE_EXTRA_CA_CERTS unset`;
      return [atMost('median', median, 300, ' ms', detail)];
    },
  },
  {
    name: 'token',
    title: `client_credentials at /connect/token, ${CONNECTIONS} connections, ${SECONDS} s, vs panva's oidc-provider (ES256 JWT access tokens)`,
    limitSeconds: 90,
    postgresTarget: { label: 'req/s vs oidc-provider', atLeast: 1 },
    async run({ withIdp, peer }) {
      const ours = await withIdp(async (idp) => {
        const { credentials } = await setUpApplication(idp.url);
        return measureLoad(idp, '/connect/token', tokenRequest(credentials.client_id, credentials.client_secret));
      });
      const secret = 'bench-secret-bench-secret-bench-secret';
      const theirs = await peer('oidc-provider', async () => {
        const provider = await startChild(['bench/oidc-provider-server.js', 'bench-client', secret], 'oidc-provider');
        try {
          return await measureLoad(provider, '/token', tokenRequest('bench-client', secret));
        } finally {
          await provider.stop();
        }
      });
      const bare = await peer('bare', () =>
        withBare((server) => measureLoad(server, '/connect/token', tokenRequest('bench-client', secret)), ['bench-client', secret]),
      );
      const detail = `idp ${perRequest(ours)}; oidc-provider ${perRequest(theirs)}`;
      const rows = [atLeast('req/s vs oidc-provider', ours.rps / theirs.rps, 2, '×', detail)];
      // What an operator pays in log volume at the default level (docs/operations.md#logs).
      rows.push(atMost('log bytes per 10,000 tokens', ours.logBytesPer10k, 100_000, ' B', 'stdout and stderr of idp serve at --log-level info'));
      if (ours.cpuPerRequest && theirs.cpuPerRequest) rows.push(atLeast('CPU/request vs oidc-provider', theirs.cpuPerRequest / ours.cpuPerRequest, 2, '×'));
      // The target "about 60% of that limit": the limit being a bare hono + jose ES256 endpoint.
      rows.push(
        atLeast(
          'req/s vs bare hono + jose',
          ours.rps / bare.rps,
          0.6,
          '×',
          `bare ${perRequest(bare)}; oidc-provider at ${(theirs.rps / bare.rps).toFixed(2)}× bare`,
        ),
      );
      return rows;
    },
  },
  {
    name: 'create-entity',
    title: `POST /{org}/{app}/items (1 KB JSON, admin token), ${CONNECTIONS} connections, ${SECONDS} s; target 60% of 4,500 inserts/s, and 60% of a bare hono + better-sqlite3 insert measured now`,
    limitSeconds: 90,
    postgresTarget: { label: 'req/s', shareOfSqlite: 0.3 },
    async run({ withIdp, peer }) {
      const itemRequest = (headers) => {
        let n = 0;
        return {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          // Only a setupRequest inside `requests` is applied: given at the top level, autocannon
          // ignores it and sends every POST without a body.
          requests: [{ setupRequest: (request) => ({ ...request, body: JSON.stringify({ name: `item-${n++}`, ...KILOBYTE_OF_PROPERTIES }) }) }],
        };
      };
      const result = await withIdp(async (idp) => {
        const { token } = await setUpApplication(idp.url);
        return measureLoad(idp, '/bench/app/items', itemRequest({ authorization: `Bearer ${token}` }));
      });
      const bare = await peer('bare', () => withBare((server) => measureLoad(server, '/items', itemRequest({}))));
      return [
        atLeast('req/s', result.rps, 0.6 * 4500, ' req/s', perRequest(result)),
        atLeast('vs bare hono + better-sqlite3', result.rps / bare.rps, 0.6, '×', `bare ${perRequest(bare)}`),
      ];
    },
  },
  {
    name: 'get-entity',
    title: `GET /{org}/{app}/pets/rex (by name, admin token), ${CONNECTIONS} connections, ${SECONDS} s; target 60% of 11,700 selects/s, and 60% of a bare hono + better-sqlite3 select measured now`,
    limitSeconds: 90,
    postgresTarget: { label: 'req/s', shareOfSqlite: 0.5 },
    async run({ withIdp, peer }) {
      const result = await withIdp(async (idp) => {
        const { token } = await setUpApplication(idp.url);
        await call(idp.url, 'POST', '/bench/app/pets', { json: { name: 'rex', ...KILOBYTE_OF_PROPERTIES }, token });
        return measureLoad(idp, '/bench/app/pets/rex', { method: 'GET', headers: { authorization: `Bearer ${token}` } });
      });
      const bare = await peer('bare', () =>
        withBare(async (server) => {
          await call(server.url, 'POST', '/pets', { json: { name: 'rex', ...KILOBYTE_OF_PROPERTIES } });
          return measureLoad(server, '/pets/rex', { method: 'GET' });
        }),
      );
      return [
        atLeast('req/s', result.rps, 0.6 * 11700, ' req/s', perRequest(result)),
        atLeast('vs bare hono + better-sqlite3', result.rps / bare.rps, 0.6, '×', `bare ${perRequest(bare)}`),
      ];
    },
  },
  {
    name: 'query',
    title: `selective queries over one collection of ${OPTIONS.sizes.map((size) => size.toLocaleString('en-US')).join(', ')} people (--sizes), loaded by one streamed import, each form timed in sequential requests (bench/query.js); target median < 5 ms (PostgreSQL 10 ms), p99 < 20 ms, bulk import > 15,000/s on SQLite`,
    limitSeconds: queryScenarioSeconds(OPTIONS.sizes),
    run: ({ withIdp, backend }) => runQueryScenario({ sizes: OPTIONS.sizes, postgres: backend === 'PostgreSQL', withIdp, figures: { atLeast, atMost } }),
  },
  {
    name: 'parse',
    title: `Parse Server 9 on PostgreSQL (installed on first use into bench/peers/parse/) against idp on the same PostgreSQL and on SQLite, 10,000 people each: create, get and \`age = 7\`, ${CONNECTIONS} connections, ${SECONDS} s, in three rounds (the median of each), and every query form of \`query\` in sequential requests (bench/query.js); target 1.5× Parse on PostgreSQL, 3× on SQLite`,
    // It starts idp on both databases itself, beside Parse: it runs once, whatever the backends.
    once: true,
    // Installing Parse Server (first use) and loading it through /batch, then 27 loads of 12 s
    // (three rounds of create, get and query on three servers).
    limitSeconds: 900,
    run: () => runParseScenario({ databaseUrl: OPTIONS.databaseUrl ?? LOCAL_POSTGRESQL, measureLoad, figures: { atLeast, atMost } }),
  },
  {
    name: 'push',
    // bench/push.js starts its own server on a SQLite file.
    sqliteOnly: true,
    title: `one notification to ${process.env.BENCH_DEVICES ?? '100,000'} devices (BENCH_DEVICES) through noop, then through a local APNs, POST to last receipt (bench/push.js)`,
    limitSeconds: 600,
    async run() {
      const rows = [];
      // One server with the devices for both scenarios: creating 100,000 devices is the slow part.
      const bench = await setupPushBench();
      const results = [];
      try {
        for (const name of Object.keys(PUSH_SCENARIOS)) results.push(await runPushScenario(name, { bench }));
      } finally {
        bench.close();
      }
      for (const result of results) {
        const via = result.notifier === 'dev' ? 'noop' : 'APNs';
        if (result.state !== 'FINISHED') throw new Error(`${via}: notification ended ${result.state}`);
        rows.push(
          atLeast(`${via} deliveries/s`, result.deliveriesPerSecond, via === 'noop' ? 10_000 : 3_000, '/s', `${result.sent} sent in ${result.seconds} s`),
        );
        rows.push(atMost(`GET median during the ${via} send`, result.getMedianMs, 50, ' ms', `${result.gets} GETs`));
      }
      return rows;
    },
  },
];

/** Child processes of this runner still alive (Linux /proc), so a timed-out scenario leaves none behind. */
function stopOwnChildren() {
  let pids;
  try {
    pids = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
  } catch {
    return;
  }
  for (const pid of pids) {
    try {
      const parent = Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
      if (parent === process.pid) process.kill(Number(pid), 'SIGTERM');
    } catch {
      // The process ended while we looked.
    }
  }
}

function withinLimit(scenario, context) {
  let timer;
  const limit = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`did not finish within ${scenario.limitSeconds} s`)), scenario.limitSeconds * 1000);
  });
  return Promise.race([scenario.run(context), limit]).finally(() => clearTimeout(timer));
}

/**
 * Runs `scenario` on each backend in turn, its peers measured once (see the top); resolves with
 * `{ backend, figures }` or `{ backend, error }` per backend.
 */
async function runOnBackends(scenario) {
  const peers = new Map();
  const peer = (name, measure) => {
    if (!peers.has(name)) peers.set(name, measure());
    return peers.get(name);
  };
  const results = [];
  for (const backend of scenario.sqliteOnly || scenario.once ? BACKENDS.slice(0, 1) : BACKENDS) {
    const withIdp = (use) => withIdpOn({ ...backend.options, nodeArgs: NODE_ARGS }, use);
    try {
      results.push({ backend: backend.name, figures: await withinLimit(scenario, { withIdp, peer, backend: backend.name }) });
    } catch (error) {
      results.push({ backend: backend.name, error });
      // What a failed or timed-out run left running would load the next one's measurement.
      stopOwnChildren();
    }
  }
  return results;
}

function format(value, unit) {
  const digits = unit === '×' ? 2 : value < 100 ? 1 : 0;
  return `${value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })}${unit}`;
}

/** A figure's ratio to its target (below 1 is short), as printed. */
const ratioText = (ratio) => `${Number.isFinite(ratio) ? ratio.toFixed(2) : '∞'}${ratio < 1 ? '  short' : ''}`;

/** One backend's figures, each against its own target: `{ cells, short }` per figure. */
function figureRows(scenario, figures) {
  return figures.map((figure) => {
    const ratio = figure.higherIsBetter ? figure.value / figure.target : figure.target / figure.value;
    const target = `${figure.higherIsBetter ? '≥' : '<'} ${format(figure.target, figure.unit)}`;
    return { short: ratio < 1, cells: [`${scenario.name} ${figure.label}`, format(figure.value, figure.unit), target, ratioText(ratio), figure.detail ?? ''] };
  });
}

/** The judgement of a PostgreSQL figure by the scenario's postgresTarget: { text, ratio }. */
function postgresJudgement(target, sqlite, postgres) {
  if (target.shareOfSqlite !== undefined)
    return { text: `≥ ${format(target.shareOfSqlite, '×')} SQLite`, ratio: postgres.value / sqlite.value / target.shareOfSqlite };
  return { text: `≥ ${format(target.atLeast, postgres.unit)}`, ratio: postgres.value / target.atLeast };
}

/** SQLite's and PostgreSQL's figures of a scenario side by side, one row per label, judged by its postgresTarget. */
function sideBySideRows(scenario, sqliteFigures, postgresFigures) {
  const labels = [...new Set([...sqliteFigures, ...postgresFigures].map((figure) => figure.label))];
  return labels.map((label) => {
    const sqlite = sqliteFigures.find((figure) => figure.label === label);
    const postgres = postgresFigures.find((figure) => figure.label === label);
    const both = sqlite && postgres;
    const judged = both && scenario.postgresTarget?.label === label ? postgresJudgement(scenario.postgresTarget, sqlite, postgres) : undefined;
    const missing = scenario.sqliteOnly ? 'not run' : '—';
    const detail = [sqlite?.detail && `SQLite ${sqlite.detail}`, postgres?.detail && `PostgreSQL ${postgres.detail}`].filter(Boolean).join('; ');
    return {
      short: judged !== undefined && judged.ratio < 1,
      cells: [
        `${scenario.name} ${label}`,
        sqlite ? format(sqlite.value, sqlite.unit) : missing,
        postgres ? format(postgres.value, postgres.unit) : missing,
        both && sqlite.value !== 0 ? format(postgres.value / sqlite.value, '×') : '',
        judged?.text ?? '',
        judged ? ratioText(judged.ratio) : '',
        detail,
      ],
    };
  });
}

/** The row of a run that failed, its message as the detail. */
function failedRow(scenario, backend, error) {
  if (!SIDE_BY_SIDE) return [scenario.name, 'failed', '', '', error.message];
  const mark = (column) => (column === backend ? 'failed' : '');
  return [scenario.name, mark('SQLite'), mark('PostgreSQL'), '', '', '', `${backend}: ${error.message}`];
}

function printTable(header, rows) {
  const widths = header.map((_, i) => Math.max(header[i].length, ...rows.map((line) => line[i].length)));
  for (const line of [header, widths.map((w) => '-'.repeat(w)), ...rows])
    console.log(
      line
        .map((cell, i) => cell.padEnd(widths[i]))
        .join('  ')
        .trimEnd(),
    );
}

const wanted = OPTIONS.scenarios;
const unknown = wanted.filter((name) => !SCENARIOS.some((scenario) => scenario.name === name || scenario.name.startsWith(`${name}-`)));
if (unknown.length > 0) {
  console.error(`unknown scenario ${unknown.join(', ')}; scenarios: ${SCENARIOS.map((scenario) => scenario.name).join(', ')}`);
  process.exit(2);
}
const selected = SCENARIOS.filter((scenario) => wanted.length === 0 || wanted.some((name) => scenario.name === name || scenario.name.startsWith(`${name}-`)));

const setup = SIDE_BY_SIDE
  ? `SQLite (a temporary file), 1 instance, then PostgreSQL ${redacted(OPTIONS.databaseUrl)} (a schema per scenario), ${OPTIONS.instances} instance${OPTIONS.instances > 1 ? 's' : ''}, per scenario`
  : 'SQLite (a temporary file), 1 instance';
console.log(
  `${new Date().toISOString()}, ${setup}, load average ${loadavg()
    .map((n) => n.toFixed(2))
    .join(' ')} on this machine`,
);
const table = [];
let failures = 0;
for (const scenario of selected) {
  console.log(`${scenario.name}: ${scenario.title}`);
  const results = await runOnBackends(scenario);
  const figures = (backend) => results.find((result) => result.backend === backend)?.figures ?? [];
  const rows = SIDE_BY_SIDE ? sideBySideRows(scenario, figures('SQLite'), figures('PostgreSQL')) : figureRows(scenario, figures('SQLite'));
  const failed = results.filter((result) => result.error);
  failures += failed.length + rows.filter((row) => row.short).length;
  table.push(...rows.map((row) => row.cells));
  for (const { backend, error } of failed) table.push(failedRow(scenario, backend, error));
}
// What a scenario stopped at its time limit left on the PostgreSQL server.
if (OPTIONS.databaseUrl !== undefined) await dropLeftoverSchemas(OPTIONS.databaseUrl);
console.log(
  `load average ${loadavg()
    .map((n) => n.toFixed(2))
    .join(' ')} at the end`,
);
const postgresColumn = `PostgreSQL${OPTIONS.instances > 1 ? `, ${OPTIONS.instances} instances` : ''}`;
printTable(
  SIDE_BY_SIDE
    ? ['scenario', 'SQLite', postgresColumn, 'PG/SQLite', 'PostgreSQL target', 'ratio to target', 'detail']
    : ['scenario', 'figure', 'target', 'ratio to target', 'detail'],
  table,
);
// A timed-out scenario may still hold sockets or timers; the table is the last word.
process.exit(failures === 0 ? 0 : 1);
