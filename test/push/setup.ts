/**
 * Shared pieces of the push tests: an application with notifiers and devices, credentials made
 * on the spot (an APNs .p8 key, a service account), and a worker tuned for tests.
 */
import { exportPKCS8, exportSPKI, generateKeyPair } from 'jose';
import { createDataTest, APP, type DataTest } from '../data/setup.js';
import { startDeliveryWorker, type DeliveryWorker, type WorkerOptions } from '../../src/push/worker.js';

export { APP };

export interface AppleKey {
  p8: string;
  publicKey: string;
  keyId: string;
  teamId: string;
}

export async function appleKey(): Promise<AppleKey> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  return { p8: await exportPKCS8(privateKey), publicKey: await exportSPKI(publicKey), keyId: 'KEY1234567', teamId: 'TEAM123456' };
}

export interface ServiceAccountKey {
  account: Record<string, string>;
  publicKey: string;
}

export async function serviceAccount(tokenUri: string): Promise<ServiceAccountKey> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  return {
    account: {
      type: 'service_account',
      project_id: 'idp-test',
      private_key_id: 'key-1',
      private_key: await exportPKCS8(privateKey),
      client_email: 'push@idp-test.iam.gserviceaccount.com',
      client_id: '1234567890',
      token_uri: tokenUri,
    },
    publicKey: await exportSPKI(publicKey),
  };
}

/** Posts and fails the test on anything but 200. */
export async function must(d: DataTest, method: string, path: string, json?: unknown) {
  const res = await d.t.request(method, path, { json, token: d.admin });
  if (res.status !== 200) throw new Error(`${method} ${path} → ${res.status} ${res.text}`);
  return res.body;
}

/** Creates `count` devices with a token for `notifier` (token = prefix + index). */
export async function createDevices(d: DataTest, notifier: string, count: number, prefix = 'token-', extra: Record<string, unknown> = {}) {
  const body = Array.from({ length: count }, (_, i) => ({ name: `device-${prefix}${i}`, [`${notifier}.notifier.id`]: `${prefix}${i}`, ...extra }));
  const created = await must(d, 'POST', `${APP}/devices`, body);
  return created.entities as { uuid: string; name: string }[];
}

/** How often a test worker looks at an idle queue. */
export const TEST_POLL_MS = 10;

export function testWorker(d: DataTest, options: Partial<WorkerOptions> = {}): DeliveryWorker {
  return startDeliveryWorker(d.t.deps, { pollMs: TEST_POLL_MS, retryBaseMs: 20, retryMaxMs: 100, flushMs: 5, ...options });
}

/**
 * Reads the notification until its state is one of `states`: at once, then after each round of
 * the worker that found nothing more to do (a retry that is not due yet is such a round).
 */
export async function waitForState(d: DataTest, worker: DeliveryWorker | undefined, uuid: string, states: string[], timeoutMs = 10_000) {
  if (worker === undefined) throw new Error('start the worker before waiting for it');
  const until = Date.now() + timeoutMs;
  for (;;) {
    const body = await must(d, 'GET', `${APP}/notifications/${uuid}`);
    const entity = body.entities[0];
    if (states.includes(entity.state)) return entity;
    if (Date.now() > until) throw new Error(`notification ${uuid} stayed ${entity.state}, wanted ${states.join('|')}`);
    await worker.idle();
  }
}

export { createDataTest, type DataTest };
