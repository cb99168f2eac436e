// The `query` and `parse` scenarios of bench/run.js (docs/benchmarks.md): one collection of
// people loaded through idp's bulk import (one streamed POST of NDJSON, docs/api.md#bulk-import)
// at each size (the `parse` scenario POSTs JSON arrays, as a Parse client would), a
// fixed set of selective queries timed one request after another, and the same objects and
// queries on Parse Server 9 (bench/parse-server.js) beside idp on PostgreSQL and on SQLite.
import { loadavg } from 'node:os';
import pg from 'pg';
import { PARSE_KEYS, PARSE_MOUNT, installParseServer } from './parse-server.js';
import { call, setUpApplication, startChild, withIdp } from './servers.js';

export const DEFAULT_QUERY_SIZES = [10_000, 100_000];
/** People per POST: about 190 KB of JSON, well under the 1 MiB body limit (docs/api.md#limits). */
const LOAD_BATCH = 1000;
/** POSTs in flight while loading: one is parsed while the one before it is written. */
const LOAD_CONCURRENCY = 2;
const RUNS_PER_FORM = 200;
/** A form slower than this gets fewer runs: the whole scenario stays bounded at a million. */
const SECONDS_PER_FORM = 15;
const PAGE = 10;
// 'Rome' is at 7: person 7, the first with `age = 7`, lives there.
const CITIES = ['Berlin', 'Paris', 'Madrid', 'Oslo', 'Vienna', 'Prague', 'Lisbon', 'Rome', 'Dublin', 'Athens'];
const CENTRE = { latitude: 45, longitude: 5 };
const RADIUS_METERS = 5000;

/**
 * Person `i` of a collection: `age` repeats every 10,000 (so `age = 7` has one hit per 10,000
 * people), names are unique, `about` holds one of 1,000 tags, and the locations are spread over
 * 10° × 10° around CENTRE, about one per km² at a million.
 */
function person(i) {
  return {
    name: `d${i}`,
    age: i % 10_000,
    city: CITIES[(i + Math.floor(i / 10_000)) % CITIES.length],
    score: (i * 7919) % 1_000_003,
    about: `likes tag${i % 1000} and long walks`,
    location: {
      latitude: CENTRE.latitude - 5 + ((i * 7919) % 100_003) / 10_000,
      longitude: CENTRE.longitude - 5 + ((i * 104_729) % 100_019) / 10_000,
    },
  };
}

/**
 * The queries, for a collection of `size`: idp's `ql` and Parse's REST parameters for the same
 * answer. Parse on PostgreSQL has no word search but `$text` (to_tsvector over every row, no
 * index) and no distance without PostGIS (not on this server), so `within` is `$within $box`
 * there: the box around the circle, a cheaper test than a distance, named as such.
 */
function queryForms(size) {
  const name = `d${Math.floor(size * 0.77777)}`;
  const degrees = (RADIUS_METERS / 6_371_000) * (180 / Math.PI);
  const box = [
    { __type: 'GeoPoint', latitude: CENTRE.latitude - degrees, longitude: CENTRE.longitude - degrees / Math.cos((CENTRE.latitude * Math.PI) / 180) },
    { __type: 'GeoPoint', latitude: CENTRE.latitude + degrees, longitude: CENTRE.longitude + degrees / Math.cos((CENTRE.latitude * Math.PI) / 180) },
  ];
  return [
    { label: 'age > 5000, newest first', ql: 'select * where age > 5000', parse: { where: { age: { $gt: 5000 } }, order: '-createdAt' } },
    { label: 'age = 7', ql: 'where age = 7', parse: { where: { age: 7 }, order: '-createdAt' } },
    { label: `name = '${name}'`, ql: `where name = '${name}'`, parse: { where: { name }, order: '-createdAt' } },
    { label: "city = 'Rome' and age = 7", ql: "where city = 'Rome' and age = 7", parse: { where: { city: 'Rome', age: 7 }, order: '-createdAt' } },
    // A band between two bounds: either alone holds half the collection.
    { label: 'age >= 5000 and age < 5002', ql: 'where age >= 5000 and age < 5002', parse: { where: { age: { $gte: 5000, $lt: 5002 } }, order: '-createdAt' } },
    { label: 'order by score asc', ql: 'order by score asc', parse: { order: 'score' } },
    // Several keys: the first is walked through the index, and a page sorts the entities of the
    // first key's value it ends in — size / 10,000 of them for `age`, a tenth of the collection
    // for `city` (docs/api.md#queries-and-paging).
    { label: 'order by age asc, score desc', ql: 'order by age asc, score desc', parse: { order: 'age,-score' } },
    { label: 'order by city, score', ql: 'order by city, score', parse: { order: 'city,score' } },
    {
      label: "about contains 'tag777'",
      ql: "where about contains 'tag777'",
      parse: { where: { about: { $text: { $search: { $term: 'tag777' } } } }, order: '-createdAt' },
      parseLabel: '$text $search',
    },
    {
      label: `location within ${RADIUS_METERS} of ${CENTRE.latitude}, ${CENTRE.longitude}`,
      ql: `where location within ${RADIUS_METERS} of ${CENTRE.latitude}, ${CENTRE.longitude}`,
      parse: { where: { location: { $within: { $box: box } } }, order: '-createdAt' },
      parseLabel: '$within $box',
    },
  ];
}

/** POSTs people `from`…`to - 1` in arrays of LOAD_BATCH, LOAD_CONCURRENCY at once; resolves with their uuids in order. */
async function loadPeople(url, token, from, to) {
  const uuids = [];
  let next = from;
  const worker = async () => {
    while (next < to) {
      const start = next;
      const end = Math.min(to, next + LOAD_BATCH);
      next = end;
      const people = Array.from({ length: end - start }, (_, k) => person(start + k));
      const answer = await call(url, 'POST', '/bench/app/people', { json: people, token }).catch((error) => {
        // fetch's own message is "fetch failed"; what failed is in its cause.
        throw new Error(`POST of people ${start}–${end - 1}: ${error.message}${error.cause ? ` (${error.cause.code ?? error.cause.message})` : ''}`);
      });
      answer.entities.forEach((entity, k) => (uuids[start - from + k] = entity.uuid));
    }
  };
  await Promise.all(Array.from({ length: LOAD_CONCURRENCY }, worker));
  return uuids;
}

/** People per chunk of the import's stream: the client makes them as the server reads. */
const IMPORT_CHUNK = 1000;

/** Imports people 0…`size - 1` in one streamed POST of NDJSON; resolves with the count the server stored. */
async function importPeople(url, token, size) {
  let next = 0;
  const body = new ReadableStream({
    pull(controller) {
      if (next >= size) return controller.close();
      const end = Math.min(size, next + IMPORT_CHUNK);
      let text = '';
      for (let i = next; i < end; i++) text += `${JSON.stringify(person(i))}\n`;
      next = end;
      controller.enqueue(new TextEncoder().encode(text));
    },
  });
  const response = await fetch(`${url}/bench/app/people`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-ndjson', authorization: `Bearer ${token}` },
    body,
    duplex: 'half',
  });
  const answer = await response.json();
  if (!response.ok) throw new Error(`import of ${size} people: ${response.status} ${JSON.stringify(answer)}`);
  return answer.count;
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))];

/**
 * Times `request()` one call after another, RUNS_PER_FORM times or for SECONDS_PER_FORM,
 * whichever comes first, after 3 unmeasured calls; resolves with median, p99 (ms) and the runs.
 */
async function timeSequentially(request) {
  for (let i = 0; i < 3; i++) await request();
  const times = [];
  const stop = performance.now() + SECONDS_PER_FORM * 1000;
  while (times.length < RUNS_PER_FORM && performance.now() < stop) {
    const started = performance.now();
    await request();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { median: quantile(times, 0.5), p99: quantile(times, 0.99), runs: times.length };
}

/** Every form against idp's collection: its median and p99, the hits of a page and how the database found them (`explain`). */
async function timeIdpForms(url, token, size) {
  const results = [];
  for (const form of queryForms(size)) {
    const path = `/bench/app/people?ql=${encodeURIComponent(form.ql)}&limit=${PAGE}`;
    const { count, explain } = await call(url, 'GET', `${path}&explain=true`, { token });
    const timing = await timeSequentially(() => call(url, 'GET', path, { token }));
    results.push({ label: form.label, hits: count, index: explain?.index ?? 'none', ...timing });
  }
  return results;
}

function printGrid(title, columns, rows) {
  const widths = columns.map((column, i) => Math.max(column.length, ...rows.map((row) => row[i].length)));
  console.log(title);
  for (const line of [columns, widths.map((width) => '-'.repeat(width)), ...rows])
    console.log(`  ${line.map((cell, i) => cell.padEnd(widths[i])).join('  ')}`.trimEnd());
}

const ms = (value) => (value < 10 ? value.toFixed(1) : value.toFixed(0));
const formCell = ({ median, p99, runs, hits, index }) => `${ms(median)} / ${ms(p99)} (${runs}, ${hits}, ${index})`;

/**
 * The time limit of the `query` scenario: loading at 1,000 people/s, the worst seen on a loaded
 * machine at a million (the rate falls as the collection grows), and every form its full time.
 */
export const queryScenarioSeconds = (sizes) => sizes.reduce((sum, size) => sum + 60 + size / 1000 + queryForms(size).length * (SECONDS_PER_FORM + 5), 0);

/**
 * The `query` scenario: for each size a fresh `idp serve` (through `withIdp`), the people loaded
 * in bulk, then every form timed. Prints one table (a column per size) and resolves with the
 * figures: per size the slowest form's median and p99 against the targets, and the load's rate.
 */
export async function runQueryScenario({ sizes, postgres, withIdp: withServer, figures: { atLeast, atMost } }) {
  const perSize = [];
  for (const size of sizes) {
    perSize.push(
      await withServer(async (idp) => {
        const { token } = await setUpApplication(idp.url);
        const started = performance.now();
        const stored = await importPeople(idp.url, token, size);
        if (stored !== size) throw new Error(`the import stored ${stored} of ${size} people`);
        const loadSeconds = (performance.now() - started) / 1000;
        // A million takes minutes: say how far the run is.
        console.log(`  ${size.toLocaleString('en-US')} people loaded in ${loadSeconds.toFixed(1)} s (${(size / loadSeconds).toFixed(0)}/s)`);
        const forms = await timeIdpForms(idp.url, token, size);
        // Each size's figures as soon as they are measured: a run stopped at its limit keeps them.
        for (const form of forms) console.log(`  ${size.toLocaleString('en-US')}: ${form.label}: ${formCell(form)}`);
        return { size, loadRate: size / loadSeconds, loadSeconds, forms, load: loadavg()[0] };
      }),
    );
  }
  const columns = [
    'query (limit 10, sequential requests)',
    ...perSize.map(({ size }) => `${size.toLocaleString('en-US')}: median / p99 ms (runs, hits, index)`),
  ];
  const rows = perSize[0].forms.map((form, i) => [form.label, ...perSize.map(({ forms }) => formCell(forms[i]))]);
  rows.push([
    'bulk import (one streamed POST of NDJSON)',
    ...perSize.map(({ loadRate, loadSeconds }) => `${loadRate.toFixed(0)} people/s (${loadSeconds.toFixed(1)} s)`),
  ]);
  printGrid(`query on ${postgres ? 'PostgreSQL' : 'SQLite'}`, columns, rows);
  const medianTarget = postgres ? 10 : 5;
  return perSize.flatMap(({ size, forms, loadRate, load }) => {
    const slowest = (key) => forms.reduce((worst, form) => (form[key] > worst[key] ? form : worst));
    const overTarget = (key, target) =>
      forms
        .filter((form) => form[key] >= target)
        .map((form) => form.label)
        .join('; ');
    const at = size.toLocaleString('en-US');
    const rows = [
      atMost(
        `${at} slowest median`,
        slowest('median').median,
        medianTarget,
        ' ms',
        `${slowest('median').label}; over: ${overTarget('median', medianTarget) || 'none'}; load ${load.toFixed(1)}`,
      ),
    ];
    if (!postgres) {
      rows.push(atMost(`${at} slowest p99`, slowest('p99').p99, 20, ' ms', `${slowest('p99').label}; over: ${overTarget('p99', 20) || 'none'}`));
      rows.push(atLeast(`${at} bulk import`, loadRate, 15_000, ' people/s', `one streamed POST of NDJSON; load ${load.toFixed(1)}`));
    }
    return rows;
  });
}

/** People in the collection of the `parse` scenario, on each server. */
const PARSE_SIZE = 10_000;
/** Requests per Parse `/batch` while loading. */
const PARSE_BATCH = 50;
const PARSE_CLIENT = { 'x-parse-application-id': PARSE_KEYS.appId, 'x-parse-rest-api-key': PARSE_KEYS.restAPIKey };

/** A person as Parse stores one: the location is a GeoPoint. */
const parsePerson = (i) => {
  const { location, ...rest } = person(i);
  return { ...rest, location: { __type: 'GeoPoint', ...location } };
};

/** A request to Parse Server's REST API as a client (the REST API key) or with the master key; resolves with the parsed answer. */
async function parseCall(url, method, path, { json, master = false } = {}) {
  const headers = { ...PARSE_CLIENT, 'content-type': 'application/json', ...(master && { 'x-parse-master-key': PARSE_KEYS.masterKey }) };
  const response = await fetch(`${url}${PARSE_MOUNT}${path}`, { method, headers, body: json === undefined ? undefined : JSON.stringify(json) });
  const body = await response.json();
  if (!response.ok) throw new Error(`Parse ${method} ${path}: ${response.status} ${JSON.stringify(body)}`);
  return body;
}

const parseQueryPath = (parameters) =>
  `/classes/Person?${new URLSearchParams({ ...parameters, ...(parameters.where && { where: JSON.stringify(parameters.where) }), limit: String(PAGE) })}`;

/**
 * A new database `bench_parse` on the PostgreSQL server of `databaseUrl` (the one left by an
 * earlier run dropped first); resolves with its URL.
 */
async function freshParseDatabase(databaseUrl) {
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    await client.query('drop database if exists bench_parse with (force)');
    await client.query('create database bench_parse');
  } finally {
    await client.end();
  }
  const url = new URL(databaseUrl);
  url.pathname = '/bench_parse';
  url.search = '';
  return url.toString();
}

/**
 * Parse Server on the database at `databaseUrl`, prepared as an operator would: the classes made
 * with the master key (clients may not make them), PARSE_SIZE people loaded through `/batch` as a
 * client, then b-tree indexes on what the queries compare and sort by (Parse makes none for an
 * application's fields; idp's property index is made on write). Resolves with an objectId.
 */
async function prepareParse(url, databaseUrl) {
  const fields = { name: 'String', age: 'Number', city: 'String', score: 'Number', about: 'String', location: 'GeoPoint' };
  // Person is queried; the people created under load go to Item, so every server's Person keeps PARSE_SIZE.
  for (const className of ['Person', 'Item'])
    await parseCall(url, 'POST', `/schemas/${className}`, {
      json: { className, fields: Object.fromEntries(Object.entries(fields).map(([field, type]) => [field, { type }])) },
      master: true,
    });
  const ids = [];
  for (let start = 0; start < PARSE_SIZE; start += PARSE_BATCH) {
    const requests = Array.from({ length: Math.min(PARSE_BATCH, PARSE_SIZE - start) }, (_, k) => ({
      method: 'POST',
      path: `${PARSE_MOUNT}/classes/Person`,
      body: parsePerson(start + k),
    }));
    const answers = await parseCall(url, 'POST', '/batch', { json: { requests } });
    for (const answer of answers) {
      if (!answer.success) throw new Error(`Parse /batch: ${JSON.stringify(answer)}`);
      ids.push(answer.success.objectId);
    }
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    for (const column of ['age', 'name', 'city', 'score', 'createdAt']) await client.query(`create index on "Person" ("${column}")`);
    await client.query('analyze "Person"');
  } finally {
    await client.end();
  }
  return ids[PARSE_SIZE >> 1];
}

/**
 * Creates a new person per request, in the server's own shape (into a collection of its own),
 * numbered on from `numbering.next` (PARSE_SIZE at first): names stay unique over every round.
 */
function createRequest(headers, shape, numbering) {
  return {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    // Only a setupRequest inside `requests` is applied (see bench/run.js's create-entity).
    requests: [{ setupRequest: (request) => ({ ...request, body: JSON.stringify(shape(numbering.next++)) }) }],
  };
}

/**
 * Rounds of the loads: in each, every server's create, get and query once, the servers in an
 * order turned by one each round; each figure is a server's median round. Measured one server
 * after another, the figures of this shared machine moved by up to half between two runs of the
 * same server a few minutes apart (docs/benchmarks.md#against-parse-server): in rounds, the
 * machine's moments weigh on every server alike.
 */
const PARSE_ROUNDS = 3;

/** The round whose req/s is the median of `rounds` (its CPU and p99 with it); the rounds' req/s in `each`. */
function medianRound(rounds) {
  const sorted = [...rounds].sort((a, b) => a.rps - b.rps);
  return { ...sorted[Math.floor(sorted.length / 2)], each: rounds.map((round) => round.rps) };
}

/** create, get and the selective query (`age = 7`) of every peer under load (`measureLoad` of bench/run.js), in PARSE_ROUNDS rounds. */
async function measureInRounds(peers, measureLoad) {
  const rounds = new Map(peers.map((peer) => [peer, { create: [], get: [], query: [] }]));
  for (let round = 0; round < PARSE_ROUNDS; round++) {
    const order = [...peers.slice(round % peers.length), ...peers.slice(0, round % peers.length)];
    for (const peer of order) {
      const { label, target, createPath, getPath, queryPath, headers, shape, numbering } = peer;
      const get = { method: 'GET', headers };
      const measured = rounds.get(peer);
      measured.create.push(await measureLoad(target, createPath, createRequest(headers, shape, numbering)));
      measured.get.push(await measureLoad(target, getPath, get));
      measured.query.push(await measureLoad(target, queryPath, get));
      // Each round's rates as soon as they are measured: a run stopped at its limit keeps them.
      const last = (what) => measured[what].at(-1).rps.toFixed(0);
      console.log(`  round ${round + 1}, ${label}: create ${last('create')}, get ${last('get')}, query ${last('query')} req/s`);
    }
  }
  return new Map(
    [...rounds].map(([peer, measured]) => [peer, { create: medianRound(measured.create), get: medianRound(measured.get), query: medianRound(measured.query) }]),
  );
}

/** Every query form of `peer`, timed in sequential requests. */
async function timeForms(peer) {
  const timed = [];
  for (const form of peer.forms) timed.push({ label: form.label, ...(await timeSequentially(form.request)) });
  return timed;
}

/**
 * The `parse` scenario: Parse Server 9 on PostgreSQL, idp on the same PostgreSQL (a schema of
 * its own in the same database) and idp on SQLite, each with the same PARSE_SIZE people, all
 * three running at once; the rates of create, get and `age = 7` under load, in rounds
 * (PARSE_ROUNDS), and every query form's latency. `databaseUrl` names the PostgreSQL server.
 */
export async function runParseScenario({ databaseUrl, measureLoad, figures: { atLeast } }) {
  installParseServer();
  const parseDatabase = await freshParseDatabase(databaseUrl);
  const forms = queryForms(PARSE_SIZE);
  const parse = await startChild(['bench/parse-server.js', parseDatabase], 'Parse Server');
  try {
    const objectId = await prepareParse(parse.url, parseDatabase);
    const theirs = {
      label: 'Parse Server',
      target: parse,
      createPath: `${PARSE_MOUNT}/classes/Item`,
      getPath: `${PARSE_MOUNT}/classes/Person/${objectId}`,
      queryPath: `${PARSE_MOUNT}${parseQueryPath(forms[1].parse)}`,
      headers: PARSE_CLIENT,
      shape: parsePerson,
      numbering: { next: PARSE_SIZE },
      forms: forms.map((form) => ({ label: form.parseLabel ?? form.label, request: () => parseCall(parse.url, 'GET', parseQueryPath(form.parse)) })),
    };
    const idpPeer = async (label, idp) => {
      const { token } = await setUpApplication(idp.url);
      const uuids = await loadPeople(idp.url, token, 0, PARSE_SIZE);
      const path = (ql) => `/bench/app/people?ql=${encodeURIComponent(ql)}&limit=${PAGE}`;
      return {
        label,
        target: idp,
        createPath: '/bench/app/items',
        getPath: `/bench/app/people/${uuids[PARSE_SIZE >> 1]}`,
        queryPath: path(forms[1].ql),
        headers: { authorization: `Bearer ${token}` },
        shape: person,
        numbering: { next: PARSE_SIZE },
        forms: forms.map((form) => ({ label: form.label, request: () => call(idp.url, 'GET', path(form.ql), { token }) })),
      };
    };
    return await withIdp({ databaseUrl: parseDatabase }, async (onPostgresServer) =>
      withIdp({}, async (onSqliteServer) => {
        const peers = [theirs, await idpPeer('idp on PostgreSQL', onPostgresServer), await idpPeer('idp on SQLite', onSqliteServer)];
        const rates = await measureInRounds(peers, measureLoad);
        const timed = new Map();
        for (const peer of peers) timed.set(peer, await timeForms(peer));
        return judgeParse(peers, rates, timed, forms, atLeast);
      }),
    );
  } finally {
    await parse.stop();
  }
}

/** Prints the query forms' table and resolves with the figures of `parse`: each rate of idp against Parse's, both the median rounds. */
function judgeParse([theirs, onPostgres, onSqlite], rates, timed, forms, atLeast) {
  printGrid(
    `query forms over ${PARSE_SIZE.toLocaleString('en-US')} people, median / p99 ms of sequential requests (runs)`,
    ['query', 'idp, PostgreSQL', 'idp, SQLite', 'Parse Server 9, PostgreSQL'],
    forms.map((form, i) => [
      form.label,
      ...[onPostgres, onSqlite].map((peer) => timed.get(peer)[i]).map(({ median, p99, runs }) => `${ms(median)} / ${ms(p99)} (${runs})`),
      `${ms(timed.get(theirs)[i].median)} / ${ms(timed.get(theirs)[i].p99)} (${timed.get(theirs)[i].runs})${form.parseLabel ? `, as ${form.parseLabel}` : ''}`,
    ]),
  );
  const rate = ({ rps, cpuPerRequest, p99, each }) =>
    `${rps.toFixed(0)} req/s (rounds ${each.map((round) => round.toFixed(0)).join(', ')}), ${cpuPerRequest === null ? '?' : cpuPerRequest.toFixed(0)} µs CPU/req, p99 ${p99} ms`;
  return ['create', 'get', 'query'].flatMap((what) => {
    const parse = rates.get(theirs)[what];
    return [
      [onPostgres, 'PostgreSQL', 1.5],
      [onSqlite, 'SQLite', 3],
    ].map(([peer, database, target]) => {
      const ours = rates.get(peer)[what];
      return atLeast(`${what} idp ${database} vs Parse`, ours.rps / parse.rps, target, '×', `idp ${rate(ours)}; Parse ${rate(parse)}`);
    });
  });
}
