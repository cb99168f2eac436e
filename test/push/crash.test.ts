/**
 * The durable queue end to end: `idp serve` (a child process) sends one notification to a few
 * thousand devices through a local APNs, is killed with SIGKILL in the middle, and restarted on
 * the same database. Every device must end with exactly one recorded successful delivery, and
 * APNs must have seen exactly one message id per device: what was in flight at the kill is sent
 * again under the same apns-id, never as a second notification.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startIdp, testDatabase, type RunningIdp, type TestDatabase } from '../spawn.js';
import { callServer } from '../helpers.js';
import { startLocalApns, type LocalApns } from './apns-server.js';
import { appleKey } from './setup.js';

const DEVICES = 3000;
const TOPIC = 'com.example.crash';
let dir: string;
let apns: LocalApns;
let idp: RunningIdp | undefined;
let database: TestDatabase | undefined;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'idp-push-crash-'));
});
afterAll(async () => {
  await idp?.stop('SIGKILL');
  await apns?.close();
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

const call = (url: string, method: string, path: string, token: string | undefined, json?: unknown) => callServer(url, method, path, { json, token });

it('SIGKILL in the middle of a large send, then restart: every device gets exactly one delivery', { timeout: 120_000 }, async () => {
  const key = await appleKey();
  apns = await startLocalApns({ publicKey: key.publicKey, keyId: key.keyId, teamId: key.teamId, topic: TOPIC });
  // The first third is answered at once; later answers wait for the kill, so it lands mid-send
  // with those requests in flight, and the restarted server finds them answered at once.
  let killed!: () => void;
  const kill = new Promise<void>((resolve) => (killed = resolve));
  apns.answer = () => (apns.requests.length <= DEVICES / 3 ? { status: 200 } : { status: 200, after: kill });
  const ca = join(dir, 'apns-ca.pem');
  writeFileSync(ca, apns.cert);
  database = testDatabase(join(dir, 'idp.db'));
  const env = { IDP_APNS_URL: apns.url, NODE_EXTRA_CA_CERTS: ca, IDP_PUSH_LEASE_MS: '8000', IDP_LOG_LEVEL: 'warn' };
  idp = await startIdp(['--port', '0', ...database.args, '--issuer', 'http://idp.crash.test'], env);

  await call(idp.url, 'POST', '/management/orgs', undefined, {
    organization: 'acme',
    username: 'alice',
    name: 'Alice',
    email: 'alice@example.com',
    password: 'correct-horse',
  });
  const { access_token: token } = await call(idp.url, 'POST', '/management/token', undefined, {
    grant_type: 'password',
    username: 'alice',
    password: 'correct-horse',
  });
  await call(idp.url, 'POST', '/management/orgs/acme/apps', token, { name: 'sandbox' });
  await call(idp.url, 'POST', '/acme/sandbox/notifiers', token, {
    name: 'ios',
    provider: 'apple',
    environment: 'production',
    p8: key.p8,
    keyId: key.keyId,
    teamId: key.teamId,
    topic: TOPIC,
  });
  const devices = Array.from({ length: DEVICES }, (_, i) => ({ name: `d${i}`, 'ios.notifier.id': `tok${i}` }));
  for (let i = 0; i < DEVICES; i += 1000) await call(idp.url, 'POST', '/acme/sandbox/devices', token, devices.slice(i, i + 1000));
  const sent = await call(idp.url, 'POST', '/acme/sandbox/devices/*/notifications', token, { payloads: { ios: 'crash test' } });
  const uuid = sent.entities[0].uuid;
  expect(sent.entities[0].expectedCount).toBe(DEVICES);

  await apns.received(DEVICES / 3);
  await idp.stop('SIGKILL');
  killed();
  const atKill = apns.requests.length;
  expect(atKill).toBeLessThan(DEVICES);

  idp = await startIdp(['--port', '0', ...database.args, '--issuer', 'http://idp.crash.test'], env);
  let notification: { state: string; statistics: { sent: number; errors: number } };
  for (;;) {
    notification = (await call(idp.url, 'GET', `/acme/sandbox/notifications/${uuid}`, token)).entities[0];
    if (['FINISHED', 'FAILED'].includes(notification.state)) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(apns.problems).toEqual([]);
  expect(notification).toMatchObject({ state: 'FINISHED', statistics: { sent: DEVICES, errors: 0 } });

  const idsByToken = new Map<string, Set<string>>();
  for (const request of apns.requests) {
    const ids = idsByToken.get(request.token) ?? new Set<string>();
    ids.add(String(request.headers['apns-id']));
    idsByToken.set(request.token, ids);
  }
  expect(idsByToken.size).toBe(DEVICES);
  expect([...idsByToken.values()].every((ids) => ids.size === 1)).toBe(true);
  // Only messages whose answer was not yet recorded went out a second time: those in flight
  // (APNs concurrency, 200) and answers waiting for their batch (at most 500, 20 ms).
  const resent = apns.requests.length - DEVICES;
  expect(resent).toBeLessThanOrEqual(200 + 500);

  let receipts = 0;
  let cursor: string | undefined;
  do {
    const page = await call(idp.url, 'GET', `/acme/sandbox/${uuid}/*/receipts?limit=1000${cursor ? `&cursor=${cursor}` : ''}`, token);
    receipts += page.entities.filter((receipt: { sent?: number }) => receipt.sent !== undefined).length;
    cursor = page.cursor;
  } while (cursor);
  expect(receipts).toBe(DEVICES);
  console.log(`crash test: ${atKill} APNs requests before SIGKILL, ${resent} in-flight messages resent under their original apns-id`);

  expect(await idp.stop('SIGTERM')).toBe(0);
  idp = undefined;
});
