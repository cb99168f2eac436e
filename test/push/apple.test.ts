/**
 * The APNs provider against a local HTTP/2 APNs over TLS: every header, the provider token's
 * signature and claims, the body, and each kind of answer (success, 410, BadDeviceToken, 429 and
 * 5xx retried, ExpiredProviderToken renewed), many streams on one connection.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { APP, appleKey, createDataTest, createDevices, must, testWorker, waitForState, type AppleKey, type DataTest } from './setup.js';
import { startLocalApns, type LocalApns } from './apns-server.js';
import { createAppleClient } from '../../src/push/providers/apple.js';
import type { DeliveryWorker } from '../../src/push/worker.js';

let d: DataTest;
let key: AppleKey;
let apns: LocalApns;
let worker: DeliveryWorker | undefined;
const TOPIC = 'com.example.app';

beforeEach(async () => {
  d = await createDataTest();
  key = await appleKey();
  apns = await startLocalApns({ publicKey: key.publicKey, keyId: key.keyId, teamId: key.teamId, topic: TOPIC });
  await must(d, 'POST', `${APP}/notifiers`, {
    name: 'ios',
    provider: 'apple',
    environment: 'development',
    p8: key.p8,
    keyId: key.keyId,
    teamId: key.teamId,
    topic: TOPIC,
  });
});

afterEach(async () => {
  await worker?.stop();
  worker = undefined;
  await apns.close();
  await d.t.close();
});

const start = (options = {}) => (worker = testWorker(d, { apnsUrl: apns.url, ca: apns.cert, ...options }));

async function sendAll(payload: unknown, extra: Record<string, unknown> = {}) {
  const res = await d.t.request('POST', `${APP}/devices/*/notifications`, { json: { payloads: { ios: payload }, ...extra }, token: d.admin });
  expect(res.status, res.text).toBe(200);
  return res.body.entities[0] as { uuid: string };
}

describe('apple provider', () => {
  it('sends with every header APNs requires, a valid provider token and the body', async () => {
    await createDevices(d, 'ios', 3, 'a1b2c3');
    const expire = Date.now() + 3_600_000;
    const notification = await sendAll('Hello', { expire });
    start();
    const done = await waitForState(d, worker, notification.uuid, ['FINISHED', 'FAILED']);
    expect(apns.problems).toEqual([]);
    expect(done).toMatchObject({ state: 'FINISHED', statistics: { sent: 3, errors: 0 } });
    expect(apns.requests.map((r) => r.token).sort()).toEqual(['a1b2c30', 'a1b2c31', 'a1b2c32']);
    const [first] = apns.requests;
    expect(first.body).toEqual({ aps: { alert: 'Hello' } });
    expect(first.headers).toMatchObject({
      'apns-topic': TOPIC,
      'apns-push-type': 'alert',
      'apns-priority': '10',
      'apns-expiration': String(Math.floor(expire / 1000)),
    });
    expect(first.claims.iss).toBe(key.teamId);
    expect(new Set(apns.requests.map((r) => r.headers.authorization)).size).toBe(1);
  });

  it('a background payload is sent as given with push type background', async () => {
    await createDevices(d, 'ios', 1);
    const notification = await sendAll({ aps: { 'content-available': 1 }, custom: 'x' });
    start();
    await waitForState(d, worker, notification.uuid, ['FINISHED']);
    expect(apns.requests[0].body).toEqual({ aps: { 'content-available': 1 }, custom: 'x' });
    expect(apns.requests[0].headers).toMatchObject({ 'apns-push-type': 'background', 'apns-priority': '5', 'apns-expiration': '0' });
  });

  it('410 Unregistered and 400 BadDeviceToken remove the device token; other 400s fail', async () => {
    const devices = await createDevices(d, 'ios', 3);
    apns.answer = (request) =>
      request.token === 'token-0'
        ? { status: 410, reason: 'Unregistered' }
        : request.token === 'token-1'
          ? { status: 400, reason: 'BadDeviceToken' }
          : { status: 400, reason: 'PayloadTooLarge' };
    const notification = await sendAll('x');
    start();
    const done = await waitForState(d, worker, notification.uuid, ['FAILED']);
    expect(done.statistics).toEqual({ sent: 0, errors: 3 });
    const device = async (i: number) => (await must(d, 'GET', `${APP}/devices/${devices[i].uuid}`)).entities[0];
    expect((await device(0))['ios.notifier.id']).toBeUndefined();
    expect((await device(1))['ios.notifier.id']).toBeUndefined();
    expect((await device(2))['ios.notifier.id']).toBe('token-2');
    const receipts = (await must(d, 'GET', `${APP}/${notification.uuid}/*/receipts`)).entities;
    expect(receipts.map((r: { errorCode: string }) => r.errorCode).sort()).toEqual(['BadDeviceToken', 'PayloadTooLarge', 'Unregistered']);
    expect(receipts[0].errorMessage).toMatch(/APNs answered 4\d\d/);
    expect(apns.requests).toHaveLength(3);
  });

  it('429 and 5xx are retried with back-off, with one receipt per attempt and the same apns-id', async () => {
    await createDevices(d, 'ios', 2);
    apns.answer = (request, attempt) =>
      attempt === 1
        ? request.token === 'token-0'
          ? { status: 429, reason: 'TooManyRequests' }
          : { status: 503, reason: 'ServiceUnavailable' }
        : { status: 200 };
    const notification = await sendAll('x');
    start();
    const done = await waitForState(d, worker, notification.uuid, ['FINISHED']);
    expect(done.statistics).toEqual({ sent: 2, errors: 0 });
    expect(apns.requests).toHaveLength(4);
    for (const token of ['token-0', 'token-1']) {
      const ids = apns.requests.filter((r) => r.token === token).map((r) => r.headers['apns-id']);
      expect(new Set(ids).size).toBe(1);
    }
    const receipts = (await must(d, 'GET', `${APP}/${notification.uuid}/*/receipts`)).entities;
    expect(receipts).toHaveLength(4);
    expect(receipts.filter((r: { sent?: number }) => r.sent !== undefined)).toHaveLength(2);
    expect(
      receipts
        .map((r: { errorCode?: string }) => r.errorCode)
        .filter(Boolean)
        .sort(),
    ).toEqual(['ServiceUnavailable', 'TooManyRequests']);
  });

  it('gives up after the last attempt', async () => {
    await createDevices(d, 'ios', 1);
    apns.answer = () => ({ status: 500, reason: 'InternalServerError' });
    const notification = await sendAll('x');
    start({ maxAttempts: 3 });
    const done = await waitForState(d, worker, notification.uuid, ['FAILED']);
    expect(done.statistics).toEqual({ sent: 0, errors: 1 });
    expect(apns.requests).toHaveLength(3);
  });

  it('many deliveries share one connection with concurrent streams', async () => {
    await createDevices(d, 'ios', 300);
    // No answer before 100 requests are in flight, as many as the worker may have at once.
    const full = apns.received(100);
    apns.answer = () => ({ status: 200, after: full });
    const notification = await sendAll('x');
    start({ concurrency: { apple: 100, google: 1, noop: 1 } });
    await waitForState(d, worker, notification.uuid, ['FINISHED']);
    expect(apns.requests).toHaveLength(300);
    expect(apns.connections()).toBe(1);
    expect(apns.maxConcurrentStreams()).toBe(100);
  });
});

describe('apple client', () => {
  it('renews the provider token before an hour and after ExpiredProviderToken', async () => {
    let now = Date.now();
    const client = createAppleClient(
      { uuid: 'n', name: 'ios', environment: 'production', visible: { keyId: key.keyId, teamId: key.teamId, topic: TOPIC }, secret: { p8: key.p8 } },
      { baseUrl: apns.url, ca: apns.cert, timeoutMs: 5000, now: () => now },
    );
    const message = { id: '6E0B54BA-8F35-4C4B-9B6F-0E8C7D6F1A11', token: 'abc', payload: 'x' };
    expect(await client.send(message)).toMatchObject({ kind: 'sent', providerId: message.id });
    now += 20 * 60_000;
    await client.send(message);
    now += 35 * 60_000;
    await client.send(message);
    const tokens = apns.requests.map((r) => r.headers.authorization);
    expect(tokens[0]).toBe(tokens[1]);
    expect(tokens[2]).not.toBe(tokens[1]);

    let expired = true;
    apns.answer = () => {
      const answer = expired ? { status: 403, reason: 'ExpiredProviderToken' } : { status: 200 };
      expired = false;
      return answer;
    };
    expect(await client.send(message)).toMatchObject({ kind: 'retry', code: 'ExpiredProviderToken', retryAfterMs: 0 });
    now += 1000;
    expect(await client.send(message)).toMatchObject({ kind: 'sent' });
    const last = apns.requests.slice(-2).map((r) => r.headers.authorization);
    expect(last[0]).not.toBe(last[1]);
    await client.close();
  });

  it('a connection that cannot be made is a retryable failure', async () => {
    const client = createAppleClient(
      { uuid: 'n', name: 'ios', environment: 'production', visible: { keyId: key.keyId, teamId: key.teamId, topic: TOPIC }, secret: { p8: key.p8 } },
      { baseUrl: 'https://127.0.0.1:1', timeoutMs: 2000, now: Date.now },
    );
    expect(await client.send({ id: '6E0B54BA-8F35-4C4B-9B6F-0E8C7D6F1A11', token: 'abc', payload: 'x' })).toMatchObject({ kind: 'retry' });
    await client.close();
  });
});
