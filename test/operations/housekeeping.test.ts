/**
 * Housekeeping (docs/operations.md#housekeeping): the rows every sign-in adds are forgotten once
 * nothing can use them, and never before — a refresh token still works, a rotated one still
 * revokes its family when it comes back, a replayed code still revokes what it issued.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { storeAsset } from '../../src/data/assets.js';
import { createAuthorizationCode } from '../../src/identity/authorize/authorization-codes.js';
import { pruneExpired } from '../../src/operations/housekeeping.js';
import { leaseLogoutDeliveries, listLogoutDeliveries, queueLogoutDeliveries, recordLogoutAttempt } from '../../src/db/logout-store.js';
import { expectOAuthError, ORG, type Clock, type TestApp } from '../helpers.js';
import { basic, claimsOf, createAppUser, createTenantApp, registerClient, token, type Tenant } from './../oauth/fixtures.js';

let t: TestApp;
let tenant: Tenant;
let clock: Clock;
beforeEach(async () => {
  ({ t, tenant, clock } = await createTenantApp());
});
afterEach(() => t.close());

const HOUR = 3_600_000;
/**
 * The token family of the tenant admin's own sign-in at /management/token (fixtures.ts): no
 * refresh token, so housekeeping forgets it with the first family that expires after it.
 */
const SETUP_FAMILY = 1;
const DAY = 24 * HOUR;

const adminLogin = (extra: Record<string, string> = {}) =>
  token(t, { grant_type: 'password', client_id: 'admin-cli', username: ORG.username, password: ORG.password, ...extra });
const refresh = (refreshToken: string) => token(t, { grant_type: 'refresh_token', client_id: 'admin-cli', refresh_token: refreshToken });

async function rows(table: 'oauth_grants' | 'refresh_tokens' | 'authorization_codes' | 'login_throttle' | 'assets' | 'asset_chunks'): Promise<number> {
  const [row] = await t.deps.db.$client.query<{ n: number | string }>(`select count(*) as n from ${table}`);
  return Number(row.n);
}

async function counts() {
  return {
    families: await rows('oauth_grants'),
    refreshTokens: await rows('refresh_tokens'),
    codes: await rows('authorization_codes'),
    throttle: await rows('login_throttle'),
  };
}

/** What pruneExpired answers when it removed nothing: one count per kind of row it forgets. */
const NOTHING_PRUNED = {
  refresh_tokens: 0,
  token_families: 0,
  authorization_codes: 0,
  pushed_authorization_requests: 0,
  login_throttle: 0,
  jti_replay: 0,
  logout_deliveries: 0,
  assets: 0,
};

describe('housekeeping', () => {
  it('forgets nothing that can still be used', async () => {
    const signIn = await adminLogin();
    const rotated = await refresh(signIn.body.refresh_token);
    expect(rotated.status, rotated.text).toBe(200);
    await adminLogin({ scope: 'api' });
    expectOAuthError(await adminLogin({ password: 'not-the-password' }), 400, 'invalid_grant');
    const before = await counts();
    expect(before).toEqual({ families: 2 + SETUP_FAMILY, refreshTokens: 2, codes: 0, throttle: 2 });

    expect(await pruneExpired(t.deps)).toEqual(NOTHING_PRUNED);
    expect(await counts()).toEqual(before);
    expect((await t.request('GET', '/management/orgs/acme', { token: rotated.body.access_token })).status).toBe(200);
    expect((await refresh(rotated.body.refresh_token)).status).toBe(200);
  });

  it('forgets a family without refresh tokens once its access tokens have expired, and decayed guessing counts', async () => {
    const apiOnly = await adminLogin({ scope: 'api' });
    expect(apiOnly.body.refresh_token).toBeUndefined();
    expectOAuthError(await adminLogin({ password: 'not-the-password' }), 400, 'invalid_grant');

    // Failure counts are forgotten after 15 minutes without a failure (sign-in/throttle.ts).
    clock.now += 15 * 60_000 - 1000;
    expect(await pruneExpired(t.deps)).toMatchObject({ token_families: 0, login_throttle: 0, jti_replay: 0, assets: 0 });
    clock.now += 2000;
    expect(await pruneExpired(t.deps)).toMatchObject({ token_families: 0, login_throttle: 2, assets: 0 });

    clock.now = clock.now - 15 * 60_000 - 1000 + HOUR - 1000;
    expect(await pruneExpired(t.deps)).toMatchObject({ token_families: 0 });
    expect((await t.request('GET', '/management/orgs/acme', { token: apiOnly.body.access_token })).status).toBe(200);

    clock.now += 2000;
    expect((await t.request('GET', '/management/orgs/acme', { token: apiOnly.body.access_token })).status).toBe(401);
    expect(await pruneExpired(t.deps)).toEqual({ ...NOTHING_PRUNED, token_families: 1 + SETUP_FAMILY });
    expect(await counts()).toEqual({ families: 0, refreshTokens: 0, codes: 0, throttle: 0 });
    // Signing in still works, and the counts start again from nothing.
    expect((await adminLogin()).status).toBe(200);
  });

  it('forgets back-channel logout deliveries a week after they finished, never one still queued', async () => {
    const { db } = t.deps;
    await queueLogoutDeliveries(
      db,
      [
        { clientId: 'a', sub: 'u', sid: null },
        { clientId: 'b', sub: 'u', sid: null },
      ],
      clock.now,
    );
    const [sent] = await leaseLogoutDeliveries(db, 1, clock.now, 30_000);
    expect(await recordLogoutAttempt(db, sent!, { state: 'sent', error: null }, clock.now)).toBe(true);
    clock.now += 7 * DAY;
    expect(await pruneExpired(t.deps)).toMatchObject({ logout_deliveries: 1 });
    expect((await listLogoutDeliveries(db, 'a')).length + (await listLogoutDeliveries(db, 'b')).length).toBe(1);
    clock.now += 30 * DAY;
    expect(await pruneExpired(t.deps)).toMatchObject({ logout_deliveries: 0 });
  });

  it('keeps a refreshed family alive for as long as its refresh tokens slide, and a rotated token still revokes it', async () => {
    const signIn = await adminLogin();
    let current = signIn.body.refresh_token as string;
    // Used every 20 days, the family outlives the 30-day refresh lifetime of its first token.
    for (let i = 0; i < 3; i++) {
      clock.now += 20 * DAY;
      await pruneExpired(t.deps);
      const next = await refresh(current);
      expect(next.status, `refresh ${i}: ${next.text}`).toBe(200);
      current = next.body.refresh_token;
    }
    // The two oldest rotated tokens have expired and are gone; the unexpired one is kept.
    expect(await counts()).toMatchObject({ families: 1, refreshTokens: 2 });
    const second = await refresh(current);
    expect(second.status).toBe(200);
    // Presenting the token just rotated is reuse: the family ends, with the newest token.
    expectOAuthError(await refresh(current), 400, 'invalid_grant');
    expectOAuthError(await refresh(second.body.refresh_token), 400, 'invalid_grant');
    expect((await t.request('GET', '/management/orgs/acme', { token: second.body.access_token })).status).toBe(401);
  });

  it('forgets a revoked family once its access tokens have expired, and they stay refused until then', async () => {
    const signIn = await adminLogin();
    const next = await refresh(signIn.body.refresh_token);
    expectOAuthError(await refresh(signIn.body.refresh_token), 400, 'invalid_grant');
    expect(await pruneExpired(t.deps)).toMatchObject({ refresh_tokens: 2, token_families: 0 });
    clock.now += HOUR - 1000;
    expect((await t.request('GET', '/management/orgs/acme', { token: next.body.access_token })).status).toBe(401);
    expect(await pruneExpired(t.deps)).toMatchObject({ token_families: 0 });
    clock.now += 2000;
    expect(await pruneExpired(t.deps)).toMatchObject({ token_families: 1 + SETUP_FAMILY });
    expect(await counts()).toMatchObject({ families: 0, refreshTokens: 0 });
    expectOAuthError(await refresh(next.body.refresh_token), 400, 'invalid_grant');
  });

  it('forgets an abandoned family once its last refresh token and access token have expired', async () => {
    const signIn = await adminLogin();
    const familyId = claimsOf(signIn.body.access_token).gid;
    clock.now += 30 * DAY;
    expect(await pruneExpired(t.deps)).toMatchObject({ refresh_tokens: 0, token_families: SETUP_FAMILY });
    clock.now += 1000;
    expect(await pruneExpired(t.deps)).toEqual({ ...NOTHING_PRUNED, refresh_tokens: 1, token_families: 1 });
    expect(familyId).toEqual(expect.any(String));
    expect(await counts()).toMatchObject({ families: 0, refreshTokens: 0 });
    expectOAuthError(await refresh(signIn.body.refresh_token), 400, 'invalid_grant');
  });

  it("keeps a spent code while the family it issued lives, so a replay still revokes that family's tokens", async () => {
    const userUuid = await createAppUser(t, tenant.appUuid, 'fred', 'fred-password');
    const rp = await registerClient(t, tenant, {
      redirect_uris: ['https://rp.test/cb'],
      grant_types: ['authorization_code', 'refresh_token'],
      require_pkce: false,
    });
    const mint = () =>
      createAuthorizationCode(t.deps, {
        clientId: rp.client_id,
        principal: { kind: 'app-user', appUuid: tenant.appUuid, userUuid, username: 'fred' },
        redirectUri: 'https://rp.test/cb',
        scope: ['openid', 'offline_access', 'api'],
        authTime: Math.floor(clock.now / 1000),
      });
    const exchange = (code: string) =>
      token(t, { grant_type: 'authorization_code', code, redirect_uri: 'https://rp.test/cb' }, { authorization: basic(rp.client_id, rp.client_secret!) });
    const spent = await mint();
    const unused = await mint();
    const first = await exchange(spent);
    expect(first.status, first.text).toBe(200);

    clock.now += 2 * HOUR;
    // The unused code expired and is forgotten; the spent one stays, since its family lives.
    expect(await pruneExpired(t.deps)).toMatchObject({ authorization_codes: 1, token_families: SETUP_FAMILY });
    const refreshed = await token(
      t,
      { grant_type: 'refresh_token', refresh_token: first.body.refresh_token },
      { authorization: basic(rp.client_id, rp.client_secret!) },
    );
    expect(refreshed.status, refreshed.text).toBe(200);
    expectOAuthError(await exchange(spent), 400, 'invalid_grant');
    expectOAuthError(await exchange(unused), 400, 'invalid_grant');
    // The replay ended the family: its newest refresh token and access token stop working.
    const again = await token(
      t,
      { grant_type: 'refresh_token', refresh_token: refreshed.body.refresh_token },
      { authorization: basic(rp.client_id, rp.client_secret!) },
    );
    expectOAuthError(again, 400, 'invalid_grant');
    const userinfo = await t.request('GET', '/connect/userinfo', { token: refreshed.body.access_token });
    expect(userinfo.status).toBe(401);

    clock.now += 31 * DAY;
    expect(await pruneExpired(t.deps)).toMatchObject({ token_families: 1, authorization_codes: 1 });
    expect(await counts()).toMatchObject({ families: 0, refreshTokens: 0, codes: 0 });
  });

  it('removes a file whose upload was cut off before its entity was written, a day later', async () => {
    async function* bytes() {
      yield new TextEncoder().encode('half an upload');
    }
    await storeAsset(t.deps, bytes());
    const stored = async () => ({ assets: await rows('assets'), chunks: await rows('asset_chunks') });
    expect(await stored()).toEqual({ assets: 1, chunks: 1 });
    clock.now += DAY - 1000;
    expect(await pruneExpired(t.deps)).toMatchObject({ assets: 0 });
    clock.now += 2000;
    expect(await pruneExpired(t.deps)).toMatchObject({ assets: 1 });
    expect(await stored()).toEqual({ assets: 0, chunks: 0 });
  });

  it('counts what it forgot in /metrics', async () => {
    await adminLogin({ scope: 'api' });
    clock.now += HOUR + 1000;
    await pruneExpired(t.deps);
    const metrics = await t.deps.metrics.registry.metrics();
    expect(metrics).toContain(`idp_pruned_rows_total{table="token_families"} ${1 + SETUP_FAMILY}`);
  });
});
