/**
 * The FCM provider against a local FCM and token endpoint: the signed assertion, the cached
 * access token, the message, and each kind of answer.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { APP, createDataTest, createDevices, must, serviceAccount, testWorker, waitForState, type DataTest } from './setup.js';
import { startLocalFcm, type LocalFcm } from './fcm-server.js';
import type { DeliveryWorker } from '../../src/push/worker.js';

let d: DataTest;
let fcm: LocalFcm;
let worker: DeliveryWorker | undefined;

beforeEach(async () => {
  d = await createDataTest();
  const placeholder = await serviceAccount('http://127.0.0.1/token');
  fcm = await startLocalFcm({ publicKey: placeholder.publicKey, clientEmail: placeholder.account.client_email, projectId: placeholder.account.project_id });
  await must(d, 'POST', `${APP}/notifiers`, {
    name: 'android',
    provider: 'google',
    environment: 'production',
    credentials: { ...placeholder.account, token_uri: fcm.tokenUri },
  });
});

afterEach(async () => {
  await worker?.stop();
  worker = undefined;
  await fcm.close();
  await d.t.close();
});

async function sendAll(payload: unknown, extra: Record<string, unknown> = {}) {
  const res = await d.t.request('POST', `${APP}/devices/*/notifications`, { json: { payloads: { android: payload }, ...extra }, token: d.admin });
  expect(res.status, res.text).toBe(200);
  return res.body.entities[0] as { uuid: string };
}

const start = () => (worker = testWorker(d, { fcmUrl: fcm.url }));

describe('google provider', () => {
  it('gets one token by a signed assertion, caches it, and sends each message', async () => {
    await createDevices(d, 'android', 20);
    const expire = Date.now() + 600_000;
    const notification = await sendAll('Hello', { expire });
    start();
    const done = await waitForState(d, worker, notification.uuid, ['FINISHED', 'FAILED']);
    expect(fcm.problems).toEqual([]);
    expect(done.statistics).toEqual({ sent: 20, errors: 0 });
    expect(fcm.tokensIssued()).toBe(1);
    const message = fcm.messages.find((m) => m.token === 'token-0')!.message;
    expect(message).toMatchObject({
      token: 'token-0',
      notification: { body: 'Hello' },
      apns: { headers: { 'apns-expiration': String(Math.floor(expire / 1000)) } },
    });
    expect((message.android as { ttl: string }).ttl).toMatch(/^\d+s$/);
  });

  it('an object payload is the message; UNREGISTERED and INVALID_ARGUMENT remove the token', async () => {
    const devices = await createDevices(d, 'android', 3);
    fcm.answer = (m) =>
      m.token === 'token-0'
        ? { status: 404, errorCode: 'UNREGISTERED' }
        : m.token === 'token-1'
          ? { status: 400, errorCode: 'INVALID_ARGUMENT' }
          : { status: 200 };
    const notification = await sendAll({ data: { score: '5x1' } });
    start();
    const done = await waitForState(d, worker, notification.uuid, ['FINISHED']);
    expect(done.statistics).toEqual({ sent: 1, errors: 2 });
    expect(fcm.messages[0].message).toMatchObject({ data: { score: '5x1' } });
    const token = async (i: number) => (await must(d, 'GET', `${APP}/devices/${devices[i].uuid}`)).entities[0]['android.notifier.id'];
    expect(await token(0)).toBeUndefined();
    expect(await token(1)).toBeUndefined();
    expect(await token(2)).toBe('token-2');
  });

  it('retries QUOTA_EXCEEDED and UNAVAILABLE, honouring Retry-After; a revoked token is renewed', async () => {
    await createDevices(d, 'android', 2);
    fcm.answer = (m, attempt) =>
      attempt > 1
        ? { status: 200 }
        : m.token === 'token-0'
          ? { status: 429, errorCode: 'QUOTA_EXCEEDED', headers: { 'retry-after': '0' } }
          : { status: 503, status_: 'UNAVAILABLE' };
    const notification = await sendAll('x');
    start();
    expect((await waitForState(d, worker, notification.uuid, ['FINISHED'])).statistics).toEqual({ sent: 2, errors: 0 });
    const receipts = (await must(d, 'GET', `${APP}/${notification.uuid}/*/receipts`)).entities;
    expect(
      receipts
        .map((r: { errorCode?: string }) => r.errorCode)
        .filter(Boolean)
        .sort(),
    ).toEqual(['QUOTA_EXCEEDED', 'UNAVAILABLE']);

    fcm.revokeTokens();
    fcm.answer = () => ({ status: 200 });
    const again = await sendAll('y');
    expect((await waitForState(d, worker, again.uuid, ['FINISHED'])).statistics).toEqual({ sent: 2, errors: 0 });
    expect(fcm.tokensIssued()).toBe(2);
  });

  it('a sender mismatch fails without retry', async () => {
    await createDevices(d, 'android', 1);
    fcm.answer = () => ({ status: 403, errorCode: 'SENDER_ID_MISMATCH' });
    const notification = await sendAll('x');
    start();
    expect((await waitForState(d, worker, notification.uuid, ['FAILED'])).statistics).toEqual({ sent: 0, errors: 1 });
    expect(fcm.messages).toHaveLength(1);
  });
});
