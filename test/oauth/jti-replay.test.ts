/**
 * Single-use JWT IDs (src/identity/tokens/jti-replay.ts): the first claim wins until its JWT
 * expires, on whichever instance a replay arrives, and housekeeping forgets expired claims.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimJti } from '../../src/identity/tokens/jti-replay.js';
import { pruneExpired } from '../../src/operations/housekeeping.js';
import { createTestApp, type Clock, type TestApp } from '../helpers.js';

let t: TestApp;
const clock: Clock = { now: 1_700_000_000_000 };
beforeEach(async () => {
  clock.now = 1_700_000_000_000;
  t = await createTestApp({}, { now: () => clock.now });
});
afterEach(() => t.close());

const MINUTE = 60_000;
const claimedRows = async () => Number((await t.deps.db.$client.query<{ n: number | string }>('select count(*) as n from jti_replay'))[0].n);

describe('claimJti', () => {
  it('accepts a jti once per purpose, and refuses it again until it expires', async () => {
    const expiresAt = clock.now + MINUTE;
    expect(await claimJti(t.deps, 'client_assertion:rp', 'abc', expiresAt)).toBe(true);
    expect(await claimJti(t.deps, 'client_assertion:rp', 'abc', expiresAt)).toBe(false);
    // Another purpose or another jti is another claim.
    expect(await claimJti(t.deps, 'client_assertion:other', 'abc', expiresAt)).toBe(true);
    expect(await claimJti(t.deps, 'client_assertion:rp', 'abd', expiresAt)).toBe(true);
    // A later expiry does not reopen a claim that still holds.
    expect(await claimJti(t.deps, 'client_assertion:rp', 'abc', expiresAt + MINUTE)).toBe(false);

    clock.now = expiresAt - 1;
    expect(await claimJti(t.deps, 'client_assertion:rp', 'abc', expiresAt + MINUTE)).toBe(false);
    clock.now = expiresAt;
    expect(await claimJti(t.deps, 'client_assertion:rp', 'abc', clock.now + MINUTE)).toBe(true);
    expect(await claimJti(t.deps, 'client_assertion:rp', 'abc', clock.now + MINUTE)).toBe(false);
  });

  it('lets exactly one of many simultaneous claims of one jti win', async () => {
    const results = await Promise.all(Array.from({ length: 8 }, () => claimJti(t.deps, 'dpop:key', 'same', clock.now + MINUTE)));
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it('sees the claims of another instance on the same database', async () => {
    const other = { db: t.deps.db, now: () => clock.now };
    expect(await claimJti(other, 'client_assertion:rp', 'xyz', clock.now + MINUTE)).toBe(true);
    expect(await claimJti(t.deps, 'client_assertion:rp', 'xyz', clock.now + MINUTE)).toBe(false);
  });

  it('keeps a long jti in one fixed-size row', async () => {
    const long = 'j'.repeat(10_000);
    expect(await claimJti(t.deps, 'client_assertion:rp', long, clock.now + MINUTE)).toBe(true);
    expect(await claimJti(t.deps, 'client_assertion:rp', long, clock.now + MINUTE)).toBe(false);
    const [row] = await t.deps.db.$client.query<{ key: string }>('select key from jti_replay');
    expect(row.key).toHaveLength(43);
  });

  it('is forgotten by housekeeping once expired, and not before', async () => {
    await claimJti(t.deps, 'client_assertion:rp', 'one', clock.now + MINUTE);
    await claimJti(t.deps, 'client_assertion:rp', 'two', clock.now + 5 * MINUTE);
    expect(await pruneExpired(t.deps)).toMatchObject({ jti_replay: 0 });
    expect(await claimedRows()).toBe(2);
    clock.now += MINUTE + 1;
    expect(await pruneExpired(t.deps)).toMatchObject({ jti_replay: 1 });
    expect(await claimedRows()).toBe(1);
    expect(await claimJti(t.deps, 'client_assertion:rp', 'two', clock.now + MINUTE)).toBe(false);
  });
});
