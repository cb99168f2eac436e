/**
 * How long a request body may take to arrive, on a real server (server/middleware/body-time.ts,
 * docs/api.md#limits): a bulk import streams for as long as its lines keep coming, and stops
 * with `408 request_timeout` and where to resume when they stop; any other body that has not
 * arrived in time has its connection closed, and nothing of it is stored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServedTestApp, expectErrorBody, readResponse, signUp, type TestApp } from '../helpers.js';
import { APP } from '../data/setup.js';

// Seconds; Node's own limit for a whole request was 300 and cut imports that streamed for longer.
const BODY_TIMEOUT = 1;

let t: TestApp;
let admin: string;
beforeAll(async () => {
  t = await createServedTestApp({}, { bodyTimeout: BODY_TIMEOUT, importBatch: 5 });
  admin = await signUp(t);
  const app = await t.request('POST', '/management/orgs/acme/apps', { json: { name: 'sandbox' }, token: admin });
  expect(app.status, app.text).toBe(200);
});
afterAll(() => t.close());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A request body of `pieces`, each sent `gapMs` after the one before; `stallMs` after the last before it ends. */
function trickle(pieces: readonly string[], gapMs: number, stallMs = 0): ReadableStream<Uint8Array> {
  let next = 0;
  return new ReadableStream({
    async pull(controller) {
      if (next > 0) await sleep(next < pieces.length ? gapMs : stallMs);
      if (next === pieces.length) return controller.close();
      controller.enqueue(new TextEncoder().encode(pieces[next++]));
    },
  });
}

const dogLines = (from: number, count: number) => Array.from({ length: count }, (_, i) => `${JSON.stringify({ name: `dog-${from + i}`, age: i })}\n`);

const post = (path: string, type: string, body: ReadableStream<Uint8Array>, token?: string) =>
  t.send(path, { method: 'POST', headers: { 'content-type': type, ...(token && { authorization: `Bearer ${token}` }) }, body, duplex: 'half' } as RequestInit);

async function count(collection: string): Promise<number> {
  const res = await t.request('GET', `${APP}/${collection}?limit=1000`, { token: admin });
  expect(res.status, res.text).toBe(200);
  return res.body.entities.length;
}

describe('time limits of request bodies', () => {
  it('an import keeps going for longer than the time limit while its lines keep coming', async () => {
    // 3 s of lines, one every 100 ms, against a limit of 1 s.
    const res = await readResponse(await post(`${APP}/steady`, 'application/x-ndjson', trickle(dogLines(0, 30), 100), admin));
    expect(res.status, res.text).toBe(200);
    expect(res.body.count).toBe(30);
    expect(await count('steady')).toBe(30);
  }, 20_000);

  it('an import whose lines stop coming is 408 request_timeout, saying what was stored and where to resume', async () => {
    // 12 lines (two batches of 5 and two lines of a third), then nothing for three times the limit.
    const res = await readResponse(await post(`${APP}/stalled`, 'application/x-ndjson', trickle(dogLines(0, 12), 10, 3000), admin));
    expect(res.status, res.text).toBe(408);
    expectErrorBody(res);
    expect(res.body.error).toBe('request_timeout');
    expect(res.body.fields).toMatchObject({ line: '13', stored: '10', resume_line: '11' });
    expect(await count('stalled')).toBe(10);
  }, 20_000);

  it('any other body that has not arrived in time has its connection closed, and nothing is stored', async () => {
    const json = JSON.stringify({ name: 'late-dog', age: 3 });
    const halves = [json.slice(0, 10), json.slice(10)];
    const answered = post(`${APP}/late`, 'application/json', trickle(halves, 3000), admin);
    await expect(answered).rejects.toThrow();
    // Not even the collection was made.
    const listed = await t.request('GET', `${APP}/late`, { token: admin });
    expect(listed.status, listed.text).toBe(404);
  }, 20_000);
});
