/**
 * The back-channel logout queue's guarantees (docs/api.md#logout), on the storage itself: a
 * delivery is leased once; a lease whose worker died runs out and goes back to the queue; and
 * only the lease that made an attempt records its answer, so a late answer of a dead worker
 * changes nothing.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { leaseLogoutDeliveries, listLogoutDeliveries, queueLogoutDeliveries, recordLogoutAttempt, recoverLogoutLeases } from '../../src/db/logout-store.js';
import { createTestApp, type TestApp } from '../helpers.js';

let t: TestApp;
beforeEach(async () => {
  t = await createTestApp();
});
afterEach(() => t.close());

describe('the back-channel logout queue', () => {
  it('leases a delivery once, takes it back when the lease runs out, and records only the live lease', async () => {
    const { db } = t.deps;
    const now = 1_000_000;
    await queueLogoutDeliveries(db, [{ clientId: 'rp', sub: 'user-1', sid: 'session-1' }], now);
    const [first] = await leaseLogoutDeliveries(db, 10, now, 30_000);
    expect(first).toMatchObject({ clientId: 'rp', sub: 'user-1', sid: 'session-1', state: 'leased', attempts: 1 });
    expect(await leaseLogoutDeliveries(db, 10, now, 30_000)).toEqual([]);

    // The worker died: before the lease runs out nothing changes, then the delivery is due again.
    expect(await recoverLogoutLeases(db, now + 29_999)).toBe(0);
    expect(await recoverLogoutLeases(db, now + 30_000)).toBe(1);
    const [second] = await leaseLogoutDeliveries(db, 10, now + 30_000, 30_000);
    expect(second).toMatchObject({ id: first!.id, attempts: 2 });

    // The dead worker's late answer is dropped; the live lease's is kept.
    expect(await recordLogoutAttempt(db, first!, { state: 'failed', error: 'HTTP 400' }, now + 31_000)).toBe(false);
    expect(await recordLogoutAttempt(db, second!, { state: 'sent', error: null }, now + 31_000)).toBe(true);
    expect(await listLogoutDeliveries(db, 'rp')).toEqual([expect.objectContaining({ state: 'sent', attempts: 2, error: null, finished: now + 31_000 })]);
  });

  it('puts a retry back in the queue until its time', async () => {
    const { db } = t.deps;
    const now = 2_000_000;
    await queueLogoutDeliveries(db, [{ clientId: 'rp', sub: 'user-1', sid: null }], now);
    const [leased] = await leaseLogoutDeliveries(db, 10, now, 30_000);
    expect(await recordLogoutAttempt(db, leased!, { state: 'queued', error: 'HTTP 503', retryAt: now + 2000 }, now)).toBe(true);
    expect(await leaseLogoutDeliveries(db, 10, now + 1999, 30_000)).toEqual([]);
    expect(await leaseLogoutDeliveries(db, 10, now + 2000, 30_000)).toEqual([expect.objectContaining({ attempts: 2, error: 'HTTP 503' })]);
  });
});
