/**
 * Two `idp serve` processes on one PostgreSQL schema, as behind a load balancer without sticky
 * sessions: tokens, revocations, refresh families and codes, browser sessions and the forms' CSRF
 * and sealed requests, the login throttle (database or Redis), and the push queue, whose leases
 * split a large send between the instances and, when one is killed mid-send, run out so the other
 * finishes it. Each instance is a child process on its own port; all publish one issuer. Skipped
 * with a message where no PostgreSQL server (or, for the Redis test, no Redis) answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import type { RunningIdp } from '../spawn.js';
import { startLocalApns, type ApnsRequest, type LocalApns } from '../push/apns-server.js';
import { appleKey, type AppleKey } from '../push/setup.js';
import { authorizeAsUser, Browser, formOf, redirectOf, REDIRECT } from '../authorize/support.js';
import { expectOAuthError, expectRefusal } from '../helpers.js';
import {
  call,
  closeAgents,
  createSchema,
  ISSUER,
  must,
  postgresProblem,
  REDIS_URL,
  redisProblem,
  logInstancesOnFailure,
  startInstance,
  stopAll,
  waitFor,
  type Answer,
  type Schema,
} from './cluster.js';

const postgres = await postgresProblem();
const redis = postgres === undefined ? await redisProblem() : 'PostgreSQL is not available';
if (postgres !== undefined) console.warn(`test/multi skipped: ${postgres}`);
else if (redis !== undefined) console.warn(`test/multi: the Redis throttle test is skipped: ${redis}`);

const ADMIN = { organization: 'acme', username: 'alice', name: 'Alice', email: 'alice@example.com', password: 'correct-horse' };
const BOB = { username: 'bob', email: 'bob@example.com', name: 'Bob', password: 'bobs-password-1' };
const TOPIC = 'com.example.multi';
const DEVICES = 2000;

/**
 * Answers to the same one-time request (a refresh token, a code) made at both instances at once:
 * exactly one is a success, and the other is refused as spent, invalid_grant.
 */
function expectOneSpent(answers: readonly Answer[]): void {
  const detail = JSON.stringify(answers.map((answer) => answer.body));
  expect(answers.map((answer) => answer.status).sort(), detail).toEqual([200, 400]);
  expectOAuthError(
    answers.find((answer) => answer.status !== 200)!,
    400,
    'invalid_grant',
  );
  expect(answers.find((answer) => answer.status === 200)!.body.access_token, detail).toEqual(expect.any(String));
}

/** Tokens by how many requests APNs saw for each. */
function countByToken(requests: readonly ApnsRequest[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const request of requests) counts.set(request.token, (counts.get(request.token) ?? 0) + 1);
  return counts;
}

describe.skipIf(postgres !== undefined)(
  postgres === undefined ? 'two instances on one PostgreSQL schema' : `two instances on one PostgreSQL schema (skipped: ${postgres})`,
  () => {
    let schema: Schema;
    let dir: string;
    let key: AppleKey;
    // Each instance sends to a local APNs of its own, so what each one delivered is known exactly.
    let apnsA: LocalApns;
    let apnsB: LocalApns;
    // One CA file per local APNs: both certificates name `localhost`, and OpenSSL looks a CA up by
    // its subject, so given both in one file it would check each server against the first.
    const ca = new Map<LocalApns, string>();
    let a: RunningIdp;
    let b: RunningIdp;
    let token: string;

    const pushEnv = (apns: LocalApns, env: NodeJS.ProcessEnv = {}) => ({ IDP_APNS_URL: apns.url, NODE_EXTRA_CA_CERTS: ca.get(apns), ...env });

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'idp-multi-'));
      key = await appleKey();
      const expectations = { publicKey: key.publicKey, keyId: key.keyId, teamId: key.teamId, topic: TOPIC };
      [apnsA, apnsB] = await Promise.all([startLocalApns(expectations), startLocalApns(expectations)]);
      for (const [name, apns] of [
        ['a', apnsA],
        ['b', apnsB],
      ] as const) {
        ca.set(apns, join(dir, `apns-${name}.pem`));
        writeFileSync(ca.get(apns)!, apns.cert);
      }
      schema = await createSchema();
      // Started together on an empty schema: they migrate it one at a time (an advisory lock).
      [a, b] = await Promise.all([startInstance(schema, { env: pushEnv(apnsA) }), startInstance(schema, { env: pushEnv(apnsB) })]);
      expect(a.url).not.toBe(b.url);
      await must(a.url, 'POST', '/management/orgs', { json: ADMIN });
      token = (await must(b.url, 'POST', '/management/token', { json: { grant_type: 'password', username: ADMIN.username, password: ADMIN.password } }))
        .access_token;
      await must(a.url, 'POST', '/management/orgs/acme/apps', { json: { name: 'shop' }, token });
    }, 90_000);

    // What the instances logged (warnings and errors) helps explain a failure.
    logInstancesOnFailure(() => ({ A: a, B: b }));

    afterAll(async () => {
      await stopAll([a, b]);
      await Promise.all([apnsA?.close(), apnsB?.close(), closeAgents()]);
      await schema?.drop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    }, 30_000);

    it('publishes one issuer and one key set from both instances', async () => {
      const [discoveryA, discoveryB] = await Promise.all([
        must(a.url, 'GET', '/.well-known/openid-configuration'),
        must(b.url, 'GET', '/.well-known/openid-configuration'),
      ]);
      expect(discoveryA.issuer).toBe(ISSUER);
      expect(discoveryB).toEqual(discoveryA);
      const [jwksA, jwksB] = await Promise.all([
        must(a.url, 'GET', '/.well-known/openid-configuration/jwks'),
        must(b.url, 'GET', '/.well-known/openid-configuration/jwks'),
      ]);
      const kids = (jwks: { keys: { kid: string }[] }) => jwks.keys.map((jwk) => jwk.kid).sort();
      expect(kids(jwksB)).toEqual(kids(jwksA));
    });

    it('a token issued by A is accepted by B, revoked through B, then refused by A', async () => {
      const grant = { grant_type: 'password', client_id: 'admin-cli', username: ADMIN.username, password: ADMIN.password };
      const issued = await must(a.url, 'POST', '/connect/token', { form: grant });
      expect(decodeJwt(issued.access_token).iss).toBe(ISSUER);
      // A has verified it (and remembers its signature as checked) before B revokes it.
      expect((await call(a.url, 'GET', '/management/orgs/acme', { token: issued.access_token })).status).toBe(200);
      expect((await call(b.url, 'GET', '/management/orgs/acme', { token: issued.access_token })).status).toBe(200);
      const revoked = await call(b.url, 'POST', '/connect/revocation', {
        form: { token: issued.access_token, client_id: 'admin-cli', token_type_hint: 'access_token' },
      });
      expect(revoked.status).toBe(200);
      expectRefusal(await call(a.url, 'GET', '/management/orgs/acme', { token: issued.access_token }), 401, 'unauthorized');

      // The grant itself lives on: A's refresh token rotates at B; replayed at A, the spent one
      // ends the whole family, so the access token B just issued is refused by A as well.
      const refresh = { grant_type: 'refresh_token', client_id: 'admin-cli', refresh_token: issued.refresh_token };
      const rotated = await must(b.url, 'POST', '/connect/token', { form: refresh });
      expect((await call(a.url, 'GET', '/management/orgs/acme', { token: rotated.access_token })).status).toBe(200);
      expectOAuthError(await call(a.url, 'POST', '/connect/token', { form: refresh }), 400, 'invalid_grant');
      expectRefusal(await call(a.url, 'GET', '/management/orgs/acme', { token: rotated.access_token }), 401, 'unauthorized');
      expectOAuthError(await call(b.url, 'POST', '/connect/token', { form: { ...refresh, refresh_token: rotated.refresh_token } }), 400, 'invalid_grant');
    });

    it('a refresh token presented to both instances at once rotates once', async () => {
      for (let round = 0; round < 3; round++) {
        const issued = await must(b.url, 'POST', '/connect/token', {
          form: { grant_type: 'password', client_id: 'admin-cli', username: ADMIN.username, password: ADMIN.password },
        });
        const refresh = { grant_type: 'refresh_token', client_id: 'admin-cli', refresh_token: issued.refresh_token };
        expectOneSpent(await Promise.all([call(a.url, 'POST', '/connect/token', { form: refresh }), call(b.url, 'POST', '/connect/token', { form: refresh })]));
      }
    });

    describe('browser sessions', () => {
      let client: { client_id: string; client_secret: string };
      const authorize = (extra: Record<string, string> = {}) =>
        `/connect/authorize?${new URLSearchParams({ client_id: client.client_id, redirect_uri: REDIRECT, response_type: 'code', scope: 'openid profile', state: 'st', ...extra })}`;
      const redeem = (base: string, code: string) =>
        call(base, 'POST', '/connect/token', {
          form: { grant_type: 'authorization_code', code, redirect_uri: REDIRECT },
          headers: {
            authorization: `Basic ${Buffer.from(`${encodeURIComponent(client.client_id)}:${encodeURIComponent(client.client_secret)}`).toString('base64')}`,
          },
        });

      beforeAll(async () => {
        const created = await must(a.url, 'POST', '/management/orgs/acme/apps/shop/clients', {
          token,
          json: {
            client_name: 'Shop',
            redirect_uris: [REDIRECT],
            grant_types: ['authorization_code'],
            response_types: ['code'],
            require_pkce: false,
            require_consent: false,
          },
        });
        client = created.entities[0];
        await must(b.url, 'POST', '/acme/shop/users', { token, json: BOB });
      });

      it("a browser that signed in on A is signed in silently on B (prompt=none), and B's code is redeemed at A", async () => {
        // Cookies are kept per host name, not per port, as browsers keep them: both instances get them.
        const browser = new Browser(a.url);
        const signedIn = redirectOf(await authorizeAsUser(browser, `${a.url}${authorize()}`, BOB));
        expect(signedIn.query.get('iss')).toBe(ISSUER);
        expect(signedIn.query.get('code')).toBeTruthy();

        const silent = redirectOf(await browser.get(`${b.url}${authorize({ prompt: 'none', state: 'silent' })}`));
        expect(silent.query.get('error')).toBeNull();
        expect(silent.query.get('state')).toBe('silent');
        expect(silent.query.get('iss')).toBe(ISSUER);
        const tokens = await redeem(a.url, silent.query.get('code')!);
        expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
        const idToken = decodeJwt(tokens.body.id_token);
        expect(idToken).toMatchObject({ iss: ISSUER, aud: client.client_id, preferred_username: BOB.username });

        // A fresh browser has no session on either.
        expect(redirectOf(await new Browser(b.url).get(`${b.url}${authorize({ prompt: 'none' })}`)).query.get('error')).toBe('login_required');
      });

      it('a sign-in form rendered by A is accepted by B (CSRF token and sealed request), and a code is used once across both', async () => {
        const browser = new Browser(a.url);
        const page = await browser.get(`${a.url}${authorize()}`);
        expect(page.status).toBe(200);
        const form = formOf(await page.text(), '/connect/authorize/login');
        const posted = redirectOf(await browser.post(`${b.url}/connect/authorize/login`, { ...form.fields, login: BOB.username, password: BOB.password }));
        let code = posted.query.get('code');
        for (let round = 0; round < 3; round++) {
          expect(code).toBeTruthy();
          expectOneSpent(await Promise.all([redeem(a.url, code!), redeem(b.url, code!)]));
          // The session B started is A's as well: the next code comes silently from A.
          code = redirectOf(await browser.get(`${a.url}${authorize({ prompt: 'none' })}`)).query.get('code');
        }
      });
    });

    /**
     * Wrong passwords for one account, alternately at the first and the second instance (and in
     * turn by each of the names given for it), from one local address of its own (so that
     * address's own count starts at zero). Counted together, the sixth failure blocks the account:
     * the first 429 comes after 6 failures (up to 8 if a blocking second already ran out on a slow
     * machine), while each instance alone saw at most 4 (counted per instance, the first 429 could
     * only come after 10).
     */
    async function guessUntilThrottled(instances: readonly RunningIdp[], ...names: string[]) {
      const from = `127.${randomBytes(3).join('.')}`;
      const failures: { instance: number; answer: Answer }[] = [];
      for (let attempt = 0; attempt < 12; attempt++) {
        const instance = attempt % instances.length;
        const answer = await call(instances[instance].url, 'POST', '/management/token', {
          json: { grant_type: 'password', username: names[attempt % names.length], password: 'not-the-password' },
          from,
        });
        if (answer.status === 429) return { from, failures, throttled: answer };
        failures.push({ instance, answer });
      }
      return { from, failures, throttled: undefined };
    }

    function expectSharedCount({ failures, throttled }: Awaited<ReturnType<typeof guessUntilThrottled>>) {
      expect(throttled, `no 429 after ${failures.length} failures`).toBeDefined();
      expectOAuthError(throttled!, 429, 'too_many_requests');
      expect(Number(throttled!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      // An unknown account answers as a wrong password does, so a guess learns nothing.
      for (const { answer } of failures) expectOAuthError(answer, 400, 'invalid_grant');
      expect(failures.length).toBeGreaterThanOrEqual(6);
      expect(failures.length).toBeLessThanOrEqual(8);
      for (const instance of [0, 1]) expect(failures.filter((failure) => failure.instance === instance).length).toBeLessThanOrEqual(4);
      return failures.length;
    }

    /** A new admin (signed up with an organization of its own): its username, email and uuid. */
    async function newAdmin(): Promise<[string, string, string]> {
      const username = `carol-${randomBytes(6).toString('hex')}`;
      const email = `${username}@example.com`;
      await must(a.url, 'POST', '/management/orgs', { json: { organization: username, username, name: 'Carol', email, password: 'carols-password' } });
      const signedIn = await must(b.url, 'POST', '/management/token', { json: { grant_type: 'password', username, password: 'carols-password' } });
      return [username, email, String(signedIn.user.uuid)];
    }

    it("counts an account's username, email and uuid as one account on both instances (counters in the database)", async () => {
      const [username, email, uuid] = await newAdmin();
      const guesses = await guessUntilThrottled([a, b], username, email.toUpperCase(), uuid);
      const failures = expectSharedCount(guesses);
      const rows = await schema.sql<{ key: string; failures: number }>(
        'select key, failures::int as failures from login_throttle where key like $1 or key like $2 order by key',
        [`account:admin:%${username}%`, `account:admin:${uuid}`],
      );
      expect(rows).toEqual([{ key: `account:admin:${uuid}`, failures }]);
    });

    it('counts failed passwords for one account on both instances together (counters in the database)', async () => {
      const login = `ghost-${randomBytes(6).toString('hex')}`;
      const guesses = await guessUntilThrottled([a, b], login);
      const failures = expectSharedCount(guesses);
      const rows = await schema.sql<{ key: string; failures: number }>(
        'select key, failures::int as failures from login_throttle where key in ($1, $2) order by key',
        [`account:admin:${login}`, `address:${guesses.from}`],
      );
      expect(rows).toEqual([
        { key: `account:admin:${login}`, failures },
        { key: `address:${guesses.from}`, failures },
      ]);
    });

    describe('push (and after a restart, the throttle in Redis)', () => {
      beforeAll(async () => {
        await must(a.url, 'POST', '/acme/shop/notifiers', {
          token,
          json: { name: 'ios', provider: 'apple', environment: 'production', p8: key.p8, keyId: key.keyId, teamId: key.teamId, topic: TOPIC },
        });
        const devices = Array.from({ length: DEVICES }, (_, i) => ({ name: `d${i}`, 'ios.notifier.id': `tok${i}` }));
        for (let i = 0; i < DEVICES; i += 1000) await must(i === 0 ? a.url : b.url, 'POST', '/acme/shop/devices', { token, json: devices.slice(i, i + 1000) });
      }, 60_000);

      async function send(base: string, text: string): Promise<string> {
        const sent = await must(base, 'POST', '/acme/shop/devices/*/notifications', { token, json: { payloads: { ios: text } } });
        expect(sent.entities[0].expectedCount).toBe(DEVICES);
        return sent.entities[0].uuid;
      }

      async function finished(base: string, uuid: string) {
        return waitFor(
          `notification ${uuid} to finish`,
          async () => {
            const entity = (await must(base, 'GET', `/acme/shop/notifications/${uuid}`, { token })).entities[0];
            return ['FINISHED', 'FAILED', 'EXPIRED'].includes(entity.state) ? entity : undefined;
          },
          60_000,
          100,
        );
      }

      async function deliveryStates(uuid: string) {
        const rows = await schema.sql<{ state: string; count: number }>(
          'select state, count(*)::int as count from push_deliveries where notification_uuid = $1 group by state',
          [uuid],
        );
        return Object.fromEntries(rows.map((row) => [row.state, row.count]));
      }

      async function sentReceipts(uuid: string): Promise<number> {
        const [row] = await schema.sql<{ count: number }>(
          "select count(*)::int as count from entities where collection = 'receipts' and properties ->> 'notification' = $1 and properties ? 'sent'",
          [uuid],
        );
        return row.count;
      }

      it(`splits a send to ${DEVICES} devices between both instances, each device delivered exactly once`, { timeout: 90_000 }, async () => {
        // No answer before both instances have sent: neither can finish the send alone.
        const bothSending = Promise.all([apnsA.received(apnsA.requests.length + 1), apnsB.received(apnsB.requests.length + 1)]);
        apnsA.answer = apnsB.answer = () => ({ status: 200, after: bothSending });
        const uuid = await send(a.url, 'split');
        const notification = await finished(b.url, uuid);
        expect(apnsA.problems).toEqual([]);
        expect(apnsB.problems).toEqual([]);
        expect(notification).toMatchObject({ state: 'FINISHED', statistics: { sent: DEVICES, errors: 0 } });
        const counts = countByToken([...apnsA.requests, ...apnsB.requests]);
        expect(counts.size).toBe(DEVICES);
        expect([...counts.values()].filter((count) => count !== 1)).toEqual([]);
        expect(apnsA.requests.length).toBeGreaterThan(0);
        expect(apnsB.requests.length).toBeGreaterThan(0);
        expect(await deliveryStates(uuid)).toEqual({ sent: DEVICES });
        expect(await sentReceipts(uuid)).toBe(DEVICES);
        console.log(`split send: instance A delivered ${apnsA.requests.length}, instance B ${apnsB.requests.length} of ${DEVICES}`);
      });

      /**
       * A rolling restart: both instances stop (SIGTERM) and start again, A with a short push lease
       * (its request time-out is half of it) so that its leases run out soon after it is killed, and
       * both with their throttle counters in Redis when Redis answers.
       */
      describe(`after a restart of both (A with a short push lease${redis === undefined ? ', both with --redis-url' : ''})`, () => {
        const leaseMs = 4000;

        beforeAll(async () => {
          expect(await Promise.all([a.stop('SIGTERM'), b.stop('SIGTERM')])).toEqual([0, 0]);
          const args = redis === undefined ? ['--redis-url', REDIS_URL] : [];
          [a, b] = await Promise.all([
            startInstance(schema, { args, env: pushEnv(apnsA, { IDP_PUSH_LEASE_MS: String(leaseMs) }) }),
            startInstance(schema, { args, env: pushEnv(apnsB) }),
          ]);
        }, 60_000);

        it.skipIf(redis !== undefined)(
          `counts failed passwords for one account on both instances together (counters in Redis)${redis ? ` — skipped: ${redis}` : ''}`,
          async () => {
            // Redis keeps counts for 15 minutes: the account is named at random, and the requests come
            // from a random address of 127/8.
            const login = `ghost-${randomBytes(6).toString('hex')}`;
            const guesses = await guessUntilThrottled([a, b], login);
            const failures = expectSharedCount(guesses);
            expect(await schema.sql('select 1 from login_throttle where key = $1', [`account:admin:${login}`])).toEqual([]);
            const { Redis } = await import('ioredis');
            const client = new Redis(REDIS_URL, { lazyConnect: true, connectTimeout: 2000, maxRetriesPerRequest: 0 });
            try {
              await client.connect();
              expect(Number(await client.hget(`idp:throttle:account:admin:${login}`, 'failures'))).toBe(failures);
              expect(await client.pttl(`idp:throttle:account:admin:${login}`)).toBeGreaterThan(0);
              expect(Number(await client.hget(`idp:throttle:address:${guesses.from}`, 'failures'))).toBe(failures);
            } finally {
              client.disconnect();
            }
          },
        );

        it.skipIf(redis !== undefined)(
          `counts an account's username, email and uuid as one account on both instances (counters in Redis)${redis ? ` — skipped: ${redis}` : ''}`,
          async () => {
            const [username, email, uuid] = await newAdmin();
            const guesses = await guessUntilThrottled([a, b], uuid, username, email);
            const failures = expectSharedCount(guesses);
            const { Redis } = await import('ioredis');
            const client = new Redis(REDIS_URL, { lazyConnect: true, connectTimeout: 2000, maxRetriesPerRequest: 0 });
            try {
              await client.connect();
              expect(Number(await client.hget(`idp:throttle:account:admin:${uuid}`, 'failures'))).toBe(failures);
              expect(await client.keys(`idp:throttle:account:admin:*${username}*`)).toEqual([]);
            } finally {
              client.disconnect();
            }
          },
        );

        it(
          'A killed with SIGKILL mid-send: its leases run out, B finishes, every device gets exactly one successful delivery',
          { timeout: 90_000 },
          async () => {
            apnsA.requests.length = 0;
            apnsB.requests.length = 0;
            // A's APNs answers its first QUICK requests, then holds every further one unanswered until
            // A is dead: those are in flight, leased by A and never answered, so never delivered.
            const QUICK = 200;
            let seen = 0;
            let killed!: () => void;
            const kill = new Promise<void>((resolve) => (killed = resolve));
            apnsA.answer = () => (++seen <= QUICK ? { status: 200 } : { status: 503, reason: 'ServiceUnavailable', after: kill });
            // B answers nothing before A has a send past its quick ones in flight: work is left for A.
            const aPastQuick = apnsA.received(QUICK + 1);
            apnsB.answer = () => ({ status: 200, after: aPastQuick });
            const uuid = await send(b.url, 'kill');

            await aPastQuick;
            // Kill only once A has recorded every answer it got: what it delivered is on record.
            const quick = apnsA.requests.slice(0, QUICK).map((request) => request.token);
            await waitFor(
              "A's answers to be recorded",
              async () => {
                const [row] = await schema.sql<{ count: number }>(
                  "select count(*)::int as count from push_deliveries where notification_uuid = $1 and state = 'sent' and token = any($2)",
                  [uuid, quick],
                );
                return row.count === QUICK ? true : undefined;
              },
              20_000,
            );
            const killedAt = Date.now();
            // B's leases last 30 s from now, A's at most leaseMs: these are A's.
            const [orphaned] = await schema.sql<{ count: number }>(
              "select count(*)::int as count from push_deliveries where notification_uuid = $1 and state = 'leased' and lease_until <= $2",
              [uuid, killedAt + leaseMs],
            );
            await a.stop('SIGKILL');
            killed();
            const hung = apnsA.requests.slice(QUICK).map((request) => request.token);
            expect(hung.length).toBeGreaterThan(0);
            expect(orphaned.count).toBeGreaterThan(0);

            const notification = await finished(b.url, uuid);
            expect(apnsA.problems).toEqual([]);
            expect(apnsB.problems).toEqual([]);
            expect(notification).toMatchObject({ state: 'FINISHED', statistics: { sent: DEVICES, errors: 0 } });
            // Successful deliveries: A's quick answers and every one of B's.
            const delivered = countByToken([...apnsA.requests.slice(0, QUICK), ...apnsB.requests]);
            expect(delivered.size).toBe(DEVICES);
            expect([...delivered.values()].filter((count) => count !== 1)).toEqual([]);
            // What A held when it died went out again from B, under the same apns-id.
            const bTokens = new Set(apnsB.requests.map((request) => request.token));
            expect(hung.filter((token) => !bTokens.has(token))).toEqual([]);
            const idsByToken = new Map<string, Set<string>>();
            for (const request of [...apnsA.requests, ...apnsB.requests]) {
              const ids = idsByToken.get(request.token) ?? new Set<string>();
              ids.add(String(request.headers['apns-id']));
              idsByToken.set(request.token, ids);
            }
            expect([...idsByToken.values()].filter((set) => set.size !== 1)).toEqual([]);
            expect(await deliveryStates(uuid)).toEqual({ sent: DEVICES });
            expect(await sentReceipts(uuid)).toBe(DEVICES);
            const held = new Set(hung);
            const resentAfter = Math.min(...apnsB.requests.filter((request) => held.has(request.token)).map((request) => request.at)) - killedAt;
            console.log(
              `kill test: A delivered ${QUICK} and held ${hung.length} sends (${orphaned.count} leases) when killed; B delivered ${apnsB.requests.length}, resending what A held from ${resentAfter} ms after the kill (lease ${leaseMs} ms); finished ${Date.now() - killedAt} ms after the kill`,
            );
          },
        );
      });
    });
  },
);
