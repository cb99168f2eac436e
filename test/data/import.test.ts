/**
 * The bulk import (docs/api.md#bulk-import): a POST of application/x-ndjson stores its lines in
 * batches, each committed with its index rows; a refused line stops it, leaving the batches
 * before it stored and naming where to resume.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dialectOf } from '../../src/db/open.js';
import { distanceMeters } from '../../src/data/query/functions.js';
import { expectRefusal, expectRefusedUnchanged } from '../helpers.js';
import { APP, appUser, createDataTest, type DataTest } from './setup.js';

let d: DataTest;
beforeEach(async () => {
  // Small batches, so that a few thousand entities make several.
  d = await createDataTest({ importBatch: 500 });
});
afterEach(() => d.t.close());

const CITIES = ['Berlin', 'Paris', 'Oslo', 'Rome'];

interface Dog {
  name: string;
  age: number;
  city: string;
  about: string;
  location: { latitude: number; longitude: number };
}

/** The i-th dog: a name, numbers, a word to find and a location. */
const dog = (i: number): Dog => ({
  name: `d${i}`,
  age: i % 17,
  city: CITIES[i % CITIES.length],
  about: `likes tag${i % 50} and long walks`,
  location: { latitude: 40 + (i % 100) / 10, longitude: 10 + (i % 37) / 10 },
});

const ndjson = (items: readonly unknown[]): string => items.map((item) => (typeof item === 'string' ? item : JSON.stringify(item))).join('\n');

const importLines = (body: string, options: { token?: string; type?: string; path?: string } = {}) =>
  d.t.request('POST', `${APP}${options.path ?? '/dogs'}`, {
    body,
    headers: { 'content-type': options.type ?? 'application/x-ndjson' },
    token: options.token ?? d.admin,
  });

const get = (ql: string, explain = false) =>
  d.t.request('GET', `${APP}/dogs?limit=1000&ql=${encodeURIComponent(ql)}${explain ? '&explain=true' : ''}`, { token: d.admin });

/** The names of the dogs a query finds, sorted. */
async function namesOf(ql: string): Promise<string[]> {
  const res = await get(ql);
  expect(res.status, res.text).toBe(200);
  return res.body.entities.map((entity: { name: string }) => entity.name).sort();
}

/** The names the plain evaluation gives: the same condition over the dogs in memory. */
function expectedNames(count: number, keep: (one: Dog) => boolean): string[] {
  return Array.from({ length: count }, (_, i) => dog(i))
    .filter(keep)
    .map((one) => one.name)
    .sort();
}

describe('the bulk import', () => {
  it('stores every line in batches, and the indexes answer as the plain evaluation does', async () => {
    const count = 2300;
    const lines = Array.from({ length: count }, (_, i) => dog(i));
    // Blank lines and CRLF line ends are allowed.
    const res = await importLines(`${ndjson(lines.slice(0, 10))}\n\n  \r\n${ndjson(lines.slice(10)).replaceAll('\n', '\r\n')}\n`);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ action: 'post', count, entities: [], path: '/dogs', applicationName: 'sandbox' });

    expect(await namesOf("city = 'oslo' and age = 7")).toEqual(expectedNames(count, (one) => one.city === 'Oslo' && one.age === 7));
    expect(await namesOf('age >= 15')).toEqual(expectedNames(count, (one) => one.age >= 15));
    expect(await namesOf("about contains 'tag42'")).toEqual(expectedNames(count, (one) => one.about.includes('tag42 ')));
    const near = await namesOf('location within 30000 of 49.9, 13.6');
    expect(near.length).toBeGreaterThan(0);
    expect(near).toEqual(expectedNames(count, ({ location }) => distanceMeters(location.latitude, location.longitude, 49.9, 13.6) <= 30000));
    expect(await namesOf("name = 'd2299'")).toEqual(['d2299']);

    // Every query found its entities through an index (PostgreSQL's planner may prefer to read
    // 2,300 rows; its answers are checked above).
    if (dialectOf(d.t.deps.db) === 'sqlite') {
      expect((await get('age = 7', true)).body.explain).toMatchObject({ index: 'property age', rows_read: 135 });
      expect((await get("about contains 'tag42'", true)).body.explain).toMatchObject({ index: 'full-text about' });
      expect((await get('location within 1000 of 40, 10', true)).body.explain).toMatchObject({ index: 'spatial location' });
    }

    // Writes after the import index their entities through the triggers again.
    expect((await d.t.request('POST', `${APP}/dogs`, { json: { name: 'late', age: 99, about: 'unique zebra' }, token: d.admin })).status).toBe(200);
    expect(await namesOf('age = 99')).toEqual(['late']);
    expect(await namesOf("about contains 'zebra'")).toEqual(['late']);
  });

  it('indexes the properties that only entities late in a batch have, as the ones every entity has', async () => {
    // One batch of 450: the first hundred are numbered before it is indexed, the rest after.
    const lines = Array.from({ length: 450 }, (_, i) =>
      i === 420 ? { ...dog(i), rare: 5, collar: { colour: 'Red' } } : i === 430 ? { ...dog(i), rare: 6 } : dog(i),
    );
    const res = await importLines(ndjson(lines));
    expect(res.status, res.text).toBe(200);
    expect(res.body.count).toBe(450);

    expect(await namesOf('rare = 5')).toEqual(['d420']);
    expect(await namesOf('rare >= 5')).toEqual(['d420', 'd430']);
    expect(await namesOf("collar.colour = 'red'")).toEqual(['d420']);
    expect(await namesOf("city = 'rome' and age = 3")).toEqual(expectedNames(450, (one) => one.city === 'Rome' && one.age === 3));
    if (dialectOf(d.t.deps.db) === 'sqlite') {
      expect((await get('rare = 6', true)).body.explain).toMatchObject({ index: 'property rare', rows_read: 1 });
      expect((await get("collar.colour = 'red'", true)).body.explain).toMatchObject({ index: 'property collar.colour', rows_read: 1 });
    }
  });

  it('stops at a refused line: the batches before it stay stored and indexed, nothing of its batch, and the error says where to resume', async () => {
    const lines: unknown[] = Array.from({ length: 1300 }, (_, i) => dog(i));
    // Line 1201 (in the third batch of 500) takes the name of line 3.
    lines[1200] = { name: 'D2', age: 1 };
    const res = await importLines(ndjson(lines));
    expectRefusal(res, 400, 'duplicate_unique_property_exists');
    expect(res.body.message).toContain('line 1201');
    expect(res.body.fields).toMatchObject({ name: 'already taken', line: '1201', stored: '1000', resume_line: '1001' });
    expect((await get('select *')).body.count).toBe(1000);
    expect(await namesOf('age = 3')).toEqual(expectedNames(1000, (one) => one.age === 3));
    expect(await namesOf("name = 'd1000'")).toEqual([]);
    // The refused batch left the triggers indexing other writes.
    expect((await d.t.request('POST', `${APP}/dogs`, { json: { name: 'after', age: 77 }, token: d.admin })).status).toBe(200);
    expect(await namesOf('age = 77')).toEqual(['after']);

    // Resuming from that line with the name fixed stores the rest.
    lines[1200] = dog(1200);
    const rest = await importLines(ndjson(lines.slice(1000)));
    expect(rest.status, rest.text).toBe(200);
    expect(rest.body.count).toBe(300);
    expect(await namesOf('age = 3')).toEqual(expectedNames(1300, (one) => one.age === 3));
  });

  it.each([
    ['a line that is not JSON', '{"name": "x"', 400, 'json_parse'],
    ['a line that is not an object', '[{"name": "x"}]', 400, 'illegal_argument'],
    ['text that cannot be stored', '{"name": "x", "about": "a\\u0000b"}', 400, 'illegal_argument'],
    ['a name taken twice in the batch', '{"name": "d1"}', 400, 'duplicate_unique_property_exists'],
    ['a line nested too deep', `{"a": ${'['.repeat(40)}${']'.repeat(40)}}`, 400, 'json_too_deep'],
  ])('refuses %s with the line and the count stored', async (_label, bad, status, error) => {
    const res = await importLines(ndjson([dog(0), dog(1), '', bad, dog(4)]));
    expectRefusal(res, status, error);
    expect(res.body.fields).toMatchObject({ line: '4', stored: '0', resume_line: '1' });
    expect((await get('select *')).body.count ?? 0).toBe(0);
  });

  it('refuses a line longer than the body limit with 413, and takes bodies larger than it in total', async () => {
    const long = { name: 'long', text: 'x'.repeat(1024 * 1024) };
    const res = await importLines(ndjson([dog(0), long]));
    expectRefusal(res, 413, 'payload_too_large');
    expect(res.body.fields).toMatchObject({ line: '2', stored: '0' });
    // 3 MiB in all, each line well under the limit.
    const big = Array.from({ length: 3 }, (_, i) => ({ name: `big${i}`, text: 'y'.repeat(1000 * 1000) }));
    const ok = await importLines(ndjson(big));
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.count).toBe(3);
  });

  it('is refused without permission, and for users and events, whose POST does more than store', async () => {
    await expectRefusedUnchanged(d.t, () => importLines(ndjson([dog(0)]), { token: '' }), 401, 'unauthorized');
    const fred = await appUser(d, 'fred');
    // The default role lets an app user read, not write, other collections.
    await expectRefusedUnchanged(d.t, () => importLines(ndjson([dog(0)]), { token: fred.token }), 403, 'forbidden');
    for (const path of ['/users', '/events']) {
      const res = await expectRefusedUnchanged(d.t, () => importLines(ndjson([{ username: 'x', name: 'x' }]), { path }), 400, 'illegal_argument');
      expect(res.body.message).toContain('cannot be imported');
    }
  });

  it('takes NDJSON on POST only: other media types go to the plain paths', async () => {
    await expectRefusedUnchanged(
      d.t,
      () => d.t.request('PUT', `${APP}/dogs`, { body: ndjson([dog(0)]), headers: { 'content-type': 'application/x-ndjson' }, token: d.admin }),
      415,
      'unsupported_media_type',
    );
    await expectRefusedUnchanged(d.t, () => importLines(ndjson([dog(0)]), { type: 'application/jsonl' }), 415, 'unsupported_media_type');
  });
});
