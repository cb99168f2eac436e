/**
 * Hostile input stays harmless (docs/testing.md#fuzzing). Every operation of the server's own
 * /openapi.json receives every kind of malformed input of test/fuzz/generate.ts — as an
 * organization admin, as an app user and with no token — over a real socket, and for each
 * request:
 *
 * - the server answers, within REQUEST_TIMEOUT_MS, and never with a 5xx;
 * - no response, headers included, carries a stack trace, a source path or SQL;
 * - every JSON error body is the documented one (docs/api.md#errors);
 * - a refused request (4xx) leaves every table as it was.
 *
 * A bounded run with a fixed seed is part of `npm test`; `npm run fuzz -- --seed N --minutes M`
 * runs longer (scripts/fuzz.js: FUZZ_SEED, FUZZ_MINUTES). A failure names its FUZZ_SEED and the
 * shrunk request, to replay.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DATABASE_URL } from '../database.js';
import { createTestApp, expectErrorBody, snapshot } from '../helpers.js';
import { describeRequest, fuzzRequests, KINDS, operationName, operationsOf, type FuzzRequest, type Operation } from './generate.js';
import { startFuzzTarget, type Answer, type FuzzTarget } from './target.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20_260_101);
const MINUTES = Number(process.env.FUZZ_MINUTES ?? 0);
/** Requests per operation and kind in the bounded run: fewer on PostgreSQL, where each table read is a round trip. */
const RUNS = Number(process.env.FUZZ_RUNS ?? (TEST_DATABASE_URL ? 1 : 3));
const REQUEST_TIMEOUT_MS = 10_000;

/**
 * Tables a refusal may rightly write: a wrong password is counted against the account and the
 * address (docs/design.md, "The throttle"), and so is a request for a mailed link.
 */
const REFUSAL_MAY_WRITE = ['login_throttle'];

/** What must never reach a client, each with what finds it. */
const LEAKS: [string, RegExp][] = [
  ['a stack trace', /(?:^|\n|\\n)\s*at \S|\bat \S+ \(\S*:\d+:\d+\)|\bat (?:file|node):/],
  ['a source path', /\/src\/|\.ts:/],
  ['SQL', /SELECT|sqlite|SQLITE_|syntax error|relation "/],
];

/** Everything the client wrote, decoded as the server may decode it, to tell an echo from a leak. */
function written(request: FuzzRequest): string {
  const decode = (text: string) => {
    try {
      return decodeURIComponent(text.replace(/\+/g, ' '));
    } catch {
      return text;
    }
  };
  const body = request.body?.toString('utf8') ?? '';
  return [request.path, decode(request.path), ...Object.values(request.headers), body, decode(body)].join('\n');
}

function expectNoLeak(request: FuzzRequest, answer: Answer): void {
  const sent = written(request);
  const received = `${answer.rawHeaders.join('\n')}\n\n${answer.text}`;
  for (const [what, pattern] of LEAKS) {
    if (pattern.test(sent)) continue;
    expect(pattern.exec(received)?.[0], `${what} in the answer (${answer.status}): ${answer.text.slice(0, 2000)}`).toBeUndefined();
  }
}

let target: FuzzTarget;
/** How many requests got each status, printed at the end: how far the requests got. */
const statuses = new Map<number, number>();
/** Every row of every table now; refreshed after each request the server accepted. */
let tables: string;

const fingerprint = () => snapshot(target.server, { except: REFUSAL_MAY_WRITE });

/** Node's limit of a request's head (request line and headers): past it the server answers 431 and closes. */
const MAX_HEAD_BYTES = 16 * 1024;
/** The body limit (docs/api.md#limits). */
const MAX_BODY_BYTES = 1024 * 1024;

/**
 * By design, not faults: connections the server ends while the client still writes a request it
 * never reads, where a client (Node's, not curl) may see the connection reset instead of the whole
 * answer. Nothing of such a request reached a handler; it counts as a refusal (status 0).
 * - a head over Node's limit is answered 431 and the connection closed at once;
 * - the body of a GET, HEAD or OPTIONS is never read (no route takes one, so the body limit does
 *   not count it): past the limit the answer may be cut by the reset.
 */
function closedUnread(request: FuzzRequest, error: unknown): Answer | undefined {
  const head = request.path.length + Object.entries(request.headers).reduce((sum, [name, value]) => sum + name.length + value.length + 4, 0);
  const unreadBody = ['GET', 'HEAD', 'OPTIONS'].includes(request.method) && (request.body?.length ?? 0) > MAX_BODY_BYTES;
  const code = (error as { code?: string }).code;
  const reset = code === 'ECONNRESET' || code === 'EPIPE' || (error as Error).message === 'aborted';
  if (!reset || (head <= MAX_HEAD_BYTES && !unreadBody)) return undefined;
  return { status: 0, headers: new Headers(), rawHeaders: [], body: undefined, text: '' };
}

async function check(request: FuzzRequest): Promise<void> {
  let answer: Answer;
  try {
    answer = await target.send(request, REQUEST_TIMEOUT_MS);
  } catch (error) {
    answer = closedUnread(request, error) ?? fail(`no answer: ${(error as Error).message}`, error);
  }
  statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
  try {
    expect(answer.status, `a server error: ${answer.text.slice(0, 2000)}`).toBeLessThan(500);
    expectNoLeak(request, answer);
    if (answer.status >= 300 && answer.body !== null && typeof answer.body === 'object') expectErrorBody(answer);
    if (answer.status >= 400 || answer.status === 0)
      expect(await fingerprint(), `${answer.status} ${answer.body?.error} must leave every table unchanged`).toBe(tables);
  } finally {
    if ((answer.status > 0 && answer.status < 400) || answer.status >= 500) {
      await target.settle(request);
      tables = await fingerprint();
    }
  }
}

function fail(message: string, cause: unknown): never {
  throw new Error(message, { cause });
}

/** A seed of its own for each operation, kind and round, derived from SEED. */
function seedOf(...parts: (string | number)[]): number {
  let hash = SEED | 0;
  for (const char of parts.join('\u0000')) hash = (Math.imul(hash, 31) + char.charCodeAt(0)) | 0;
  return hash;
}

/** One kind of input for one operation: `runs` requests, shrunk to the simplest failing one. */
async function fuzz(op: Operation, kind: string, round: number, runs: number): Promise<void> {
  const seed = seedOf(operationName(op), kind, round);
  const property = fc.asyncProperty(fuzzRequests(op, kind, target.reality), async (request) => {
    try {
      await check(request);
    } catch (error) {
      // The next run, and fast-check's shrinking, start from the tables as they are now.
      tables = await fingerprint();
      throw error;
    }
  });
  const details = await fc.check(property, { seed, numRuns: runs, endOnFailure: false });
  if (!details.failed) return;
  const [request] = details.counterexample ?? [];
  throw new Error(
    [
      `fuzz failure (FUZZ_SEED=${SEED}; this check: fast-check seed ${seed}, path "${details.counterexamplePath}", after ${details.numShrinks} shrinks)`,
      request ? describeRequest(request) : '(no counterexample)',
      '',
      String((details.errorInstance as Error | undefined)?.message ?? details.errorInstance),
    ].join('\n'),
  );
}

describe(`fuzzing every operation of /openapi.json (FUZZ_SEED=${SEED})`, async () => {
  // The operations are read from an app of their own, so the list of tests is known before any runs.
  const listing = await createTestApp();
  const operations = operationsOf((await listing.request('GET', '/openapi.json')).body);
  await listing.close();
  const kinds = Object.keys(KINDS);
  const budgetMs = (MINUTES * 60_000) / operations.length;

  beforeAll(async () => {
    console.log(
      `fuzz: FUZZ_SEED=${SEED}, ${operations.length} operations × ${kinds.length} kinds, ${MINUTES > 0 ? `${MINUTES} minutes` : `${RUNS} run(s) each`}`,
    );
    target = await startFuzzTarget();
    tables = await fingerprint();
  }, 60_000);
  afterAll(async () => {
    const counts = [...statuses].sort(([a], [b]) => a - b).map(([status, count]) => `${status}: ${count}`);
    console.log(`fuzz: ${[...statuses.values()].reduce((a, b) => a + b, 0)} requests; ${counts.join(', ')}`);
    await target?.close();
  });

  it('reads the operations from /openapi.json', () => {
    expect(operations.length).toBeGreaterThan(90);
    expect(operations.map(operationName)).toContain('POST /{orgId}/{appId}/{collection}');
  });

  it.each(operations.map((op) => [operationName(op), op] as const))(
    '%s',
    async (_, op) => {
      const until = Date.now() + budgetMs;
      for (let round = 0; round === 0 || Date.now() < until; round++) {
        for (const kind of kinds) await fuzz(op, kind, round, RUNS);
      }
    },
    Math.max(120_000, budgetMs * 2),
  );
});
