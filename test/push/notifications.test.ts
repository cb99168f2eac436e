/** Sending to every target through `noop`, validation, scheduling, expiry, cancel, delete, reads. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { APP, createDataTest, createDevices, must, TEST_POLL_MS, testWorker, waitForState, type DataTest } from './setup.js';
import { expectRefusal, expectRefusedUnchanged, type Clock } from '../helpers.js';
import type { DeliveryWorker } from '../../src/push/worker.js';

let d: DataTest;
let worker: DeliveryWorker | undefined;
// Time passes only when a test moves it: `deliver` and `expire` are reached without waiting.
let clock: Clock;

beforeEach(async () => {
  clock = { now: Date.now() };
  d = await createDataTest({}, { now: () => clock.now });
  await must(d, 'POST', `${APP}/notifiers`, { name: 'dev', provider: 'noop', environment: 'development' });
});

afterEach(async () => {
  await worker?.stop();
  worker = undefined;
  await d.t.close();
});

const send = (path: string, json: unknown) => d.t.request('POST', `${APP}${path}`, { json, token: d.admin });

describe('paths', () => {
  it('answer to the singular of each collection, as Usergrid did, and refuse other methods the same way', async () => {
    const [device] = await createDevices(d, 'dev', 1);
    expect((await must(d, 'GET', `${APP}/notifier/dev`)).entities[0]).toMatchObject({ type: 'notifier', name: 'dev' });
    const sent = (await must(d, 'POST', `${APP}/device/${device.uuid}/notification`, { payloads: { dev: 'hello' } })).entities[0];
    expect(sent).toMatchObject({ type: 'notification', expectedCount: 1 });
    expect((await must(d, 'GET', `${APP}/notification/${sent.uuid}`)).entities[0].uuid).toBe(sent.uuid);
    expect((await must(d, 'GET', `${APP}/notification`)).entities.map((e: { uuid: string }) => e.uuid)).toEqual([sent.uuid]);
    expect((await must(d, 'GET', `${APP}/receipt`)).action).toBe('get');
    const bySingular = (await send(`/device?ql=${encodeURIComponent(`select * where uuid = ${device.uuid}`)}`, { payloads: { dev: 'again' } })).body
      .entities[0];
    expect(bySingular).toMatchObject({ type: 'notification', expectedCount: 1 });
    for (const path of ['/notification', '/notifications']) {
      const refused = await expectRefusedUnchanged(d.t, () => d.t.request('DELETE', `${APP}${path}`, { token: d.admin }), 405, 'method_not_allowed');
      expect(refused.headers.get('allow')).toBe('GET');
    }
  });
});

describe('sending', () => {
  it('to one device: stored before the answer, sent by the worker, one receipt', async () => {
    const [device] = await createDevices(d, 'dev', 1);
    const res = await send(`/devices/${device.uuid}/notifications`, { payloads: { dev: 'hello' } });
    expect(res.status).toBe(200);
    const notification = res.body.entities[0];
    expect(notification).toMatchObject({ type: 'notification', state: 'CREATED', expectedCount: 1, payloads: { dev: 'hello' } });
    const queue = await must(d, 'GET', `${APP}/${notification.uuid}/*/queue`);
    expect(queue.entities.map((e: { uuid: string }) => e.uuid)).toEqual([device.uuid]);

    worker = testWorker(d);
    const done = await waitForState(d, worker, notification.uuid, ['FINISHED']);
    expect(done.statistics).toEqual({ sent: 1, errors: 0 });
    expect(done.started).toBeTypeOf('number');
    expect(done.finished).toBeTypeOf('number');
    const receipts = await must(d, 'GET', `${APP}/${notification.uuid}/*/receipts`);
    expect(receipts.entities).toHaveLength(1);
    expect(receipts.entities[0]).toMatchObject({
      type: 'receipt',
      device: device.uuid,
      notification: notification.uuid,
      notifierName: 'dev',
      payloads: { dev: 'hello' },
    });
    expect(receipts.entities[0].sent).toBeTypeOf('number');
    expect(receipts.entities[0].errorCode).toBeUndefined();
    const byDevice = await must(d, 'GET', `${APP}/${device.name}/*/receipts`);
    expect(byDevice.entities.map((e: { uuid: string }) => e.uuid)).toEqual([receipts.entities[0].uuid]);
    // Without the `*`, the same shape is the data API's: the device's connection to its receipts.
    const connected = await must(d, 'GET', `${APP}/devices/${device.uuid}/receipts`);
    expect(connected.entities.map((e: { uuid: string }) => e.uuid)).toEqual([receipts.entities[0].uuid]);
    expect((await must(d, 'GET', `${APP}/${notification.uuid}/*/receipt`)).entities).toHaveLength(1);
    const back = await must(d, 'GET', `${APP}/${receipts.entities[0].uuid}/*/notifications`);
    expect(back.entities.map((e: { uuid: string }) => e.uuid)).toEqual([notification.uuid]);
    expect((await must(d, 'GET', `${APP}/${notification.uuid}/*/queue`)).entities).toEqual([]);
  });

  it('to every device, to devices a query matches, to a user and to a group', async () => {
    const devices = await createDevices(d, 'dev', 6);
    await createDevices(d, 'other', 2, 'elsewhere-');
    await must(d, 'PUT', `${APP}/devices/${devices[0].uuid}`, { platform: 'ios' });
    await must(d, 'PUT', `${APP}/devices/${devices[1].uuid}`, { platform: 'ios' });
    await must(d, 'POST', `${APP}/users`, [{ username: 'fred' }, { username: 'wilma' }]);
    await must(d, 'POST', `${APP}/users/fred/devices/${devices[2].uuid}`);
    await must(d, 'POST', `${APP}/users/fred/devices/${devices[3].uuid}`);
    await must(d, 'POST', `${APP}/users/wilma/devices/${devices[4].uuid}`);
    await must(d, 'POST', `${APP}/groups`, { path: 'flintstones', title: 'Flintstones' });
    await must(d, 'POST', `${APP}/groups/flintstones/users/fred`);
    await must(d, 'POST', `${APP}/groups/flintstones/users/wilma`);

    const expected: [string, number][] = [
      ['/devices/*/notifications', 6],
      ["/devices?ql=select * where platform = 'ios'", 2],
      ['/users/fred/notifications', 2],
      ['/groups/flintstones/notifications', 3],
    ];
    const uuids: string[] = [];
    for (const [path, count] of expected) {
      const res = await send(path, { payloads: { dev: { text: path } } });
      expect(res.status, path).toBe(200);
      expect(res.body.entities[0].expectedCount, path).toBe(count);
      uuids.push(res.body.entities[0].uuid);
    }
    const bareQuery = await send(`/devices?queryStatement=${encodeURIComponent("platform = 'ios'")}`, { payloads: { dev: 'q' } });
    expect(bareQuery.body.entities[0].expectedCount).toBe(2);

    worker = testWorker(d);
    for (const [i, uuid] of uuids.entries()) {
      const done = await waitForState(d, worker, uuid, ['FINISHED']);
      expect(done.statistics.sent).toBe(expected[i][1]);
    }
    const finished = await must(d, 'GET', `${APP}/notifications?ql=${encodeURIComponent("select * where state = 'FINISHED'")}&limit=2`);
    expect(finished.entities).toHaveLength(2);
    expect(finished.cursor).toBeTypeOf('string');
    const next = await must(d, 'GET', `${APP}/notifications?ql=${encodeURIComponent("select * where state = 'FINISHED'")}&limit=2&cursor=${finished.cursor}`);
    expect(next.entities).toHaveLength(2);
    const receipts = await must(d, 'GET', `${APP}/receipts?limit=1000`);
    expect(receipts.entities).toHaveLength(6 + 2 + 2 + 3 + 2);
  });

  it('POST /devices without a query still creates a device', async () => {
    const res = await send('/devices', { name: 'plain', 'dev.notifier.id': 'x' });
    expect(res.status).toBe(200);
    expect(res.body.entities[0]).toMatchObject({ type: 'device', name: 'plain' });
  });

  it.each([
    ['missing payloads', {}, 'required_property_not_found', 'payloads'],
    ['payloads not an object', { payloads: 'hello' }, 'illegal_argument', 'payloads'],
    ['payloads an array', { payloads: ['hello'] }, 'illegal_argument', 'payloads'],
    ['unknown notifier', { payloads: { nope: 'hello' } }, 'illegal_argument', 'payloads'],
    ['payload neither text nor object', { payloads: { dev: 42 } }, 'illegal_argument', 'payloads.dev'],
    ['deliver not a number', { payloads: { dev: 'x' }, deliver: 'tomorrow' }, 'illegal_argument', 'deliver'],
    ['deliver in the past', { payloads: { dev: 'x' }, deliver: 1000 }, 'illegal_argument', 'deliver'],
    ['expire in the past', { payloads: { dev: 'x' }, expire: 1000 }, 'illegal_argument', 'expire'],
  ])('400 for %s, storing nothing', async (_name, body, error, field) => {
    await createDevices(d, 'dev', 2);
    const res = await expectRefusedUnchanged(d.t, () => send('/devices/*/notifications', body), 400, error);
    expect(res.body.fields).toHaveProperty([field]);
  });

  it('404 for an unknown device, user or group; 400 for a bad query', async () => {
    for (const path of ['/devices/nope/notifications', '/users/nobody/notifications', '/groups/none/notifications']) {
      await expectRefusedUnchanged(d.t, () => send(path, { payloads: { dev: 'x' } }), 404, 'entity_not_found');
    }
    await expectRefusedUnchanged(d.t, () => send('/devices?ql=select * where (', { payloads: { dev: 'x' } }), 400, 'query_parse');
  });

  it('a guest may register a device but not send to devices by query', async () => {
    await createDevices(d, 'dev', 1);
    expect((await d.t.request('POST', `${APP}/devices`, { json: { name: 'mine' } })).status).toBe(200);
    await expectRefusedUnchanged(d.t, () => d.t.request('POST', `${APP}/devices?ql=select *`, { json: { payloads: { dev: 'spam' } } }), 401, 'unauthorized');
  });
});

describe('schedule, expiry, cancel, delete', () => {
  it('stays SCHEDULED until deliver, then is sent', async () => {
    await createDevices(d, 'dev', 3);
    const deliver = clock.now + 400;
    const res = await send('/devices/*/notifications', { payloads: { dev: 'later' }, deliver });
    expect(res.body.entities[0]).toMatchObject({ state: 'SCHEDULED', deliver });
    worker = testWorker(d);
    // The worker has looked at the queue and found nothing due.
    await worker.idle();
    expect((await must(d, 'GET', `${APP}/notifications/${res.body.entities[0].uuid}`)).entities[0].state).toBe('SCHEDULED');
    const scheduled = await must(d, 'GET', `${APP}/notifications?ql=${encodeURIComponent("state = 'SCHEDULED'")}`);
    expect(scheduled.entities).toHaveLength(1);
    clock.now = deliver;
    const done = await waitForState(d, worker, res.body.entities[0].uuid, ['FINISHED']);
    expect(done.started).toBe(deliver);
    expect(done.statistics.sent).toBe(3);
  });

  it('not delivered before expire: not sent, EXPIRED receipts', async () => {
    await createDevices(d, 'dev', 2);
    const now = clock.now;
    const res = await send('/devices/*/notifications', { payloads: { dev: 'too late' }, deliver: now + 100, expire: now + 150 });
    expect(res.status).toBe(200);
    // The server was not running from before deliver until after expire.
    clock.now = now + 250;
    worker = testWorker(d);
    const done = await waitForState(d, worker, res.body.entities[0].uuid, ['EXPIRED']);
    expect(done.statistics).toEqual({ sent: 0, errors: 2 });
    const receipts = await must(d, 'GET', `${APP}/${res.body.entities[0].uuid}/*/receipts`);
    expect(receipts.entities.map((r: { errorCode: string }) => r.errorCode)).toEqual(['EXPIRED', 'EXPIRED']);
    expect(receipts.entities.every((r: { sent?: number }) => r.sent === undefined)).toBe(true);
  });

  it('cancel before delivery: CANCELED, nothing sent; after sending: 403', async () => {
    await createDevices(d, 'dev', 2);
    const later = await send('/devices/*/notifications', { payloads: { dev: 'x' }, deliver: clock.now + 60_000 });
    const uuid = later.body.entities[0].uuid;
    const unsaid = await expectRefusedUnchanged(
      d.t,
      () => d.t.request('PUT', `${APP}/notifications/${uuid}`, { json: {}, token: d.admin }),
      400,
      'required_property_not_found',
    );
    expect(unsaid.body.fields).toHaveProperty('canceled');
    const canceled = await must(d, 'PUT', `${APP}/notifications/${uuid}`, { canceled: true });
    expect(canceled.entities[0]).toMatchObject({ state: 'CANCELED', canceled: true });
    expect((await must(d, 'GET', `${APP}/${uuid}/*/queue`)).entities).toEqual([]);

    const now = await send('/devices/*/notifications', { payloads: { dev: 'y' } });
    worker = testWorker(d);
    await waitForState(d, worker, now.body.entities[0].uuid, ['FINISHED']);
    // Stopped, so that only the refused request could change a table.
    await worker.stop();
    worker = undefined;
    await expectRefusedUnchanged(
      d.t,
      () => d.t.request('PUT', `${APP}/notifications/${now.body.entities[0].uuid}`, { json: { canceled: true }, token: d.admin }),
      403,
      'forbidden',
    );
    expect((await must(d, 'GET', `${APP}/receipts`)).entities).toHaveLength(2);
    expect((await must(d, 'GET', `${APP}/notifications/${uuid}`)).entities[0].state).toBe('CANCELED');
  });

  it('DELETE removes an unsent notification and refuses a sent one', async () => {
    await createDevices(d, 'dev', 2);
    const later = await send('/devices/*/notifications', { payloads: { dev: 'x' }, deliver: clock.now + 60_000 });
    await must(d, 'DELETE', `${APP}/notifications/${later.body.entities[0].uuid}`);
    expectRefusal(await d.t.request('GET', `${APP}/notifications/${later.body.entities[0].uuid}`, { token: d.admin }), 404, 'entity_not_found');
    expect(await d.t.deps.db.$client.query('select count(*) as n from push_deliveries')).toEqual([{ n: 0 }]);

    const sent = await send('/devices/*/notifications', { payloads: { dev: 'y' } });
    worker = testWorker(d);
    await waitForState(d, worker, sent.body.entities[0].uuid, ['FINISHED']);
    // Stopped, so that only the refused request could change a table.
    await worker.stop();
    worker = undefined;
    await expectRefusedUnchanged(d.t, () => d.t.request('DELETE', `${APP}/notifications/${sent.body.entities[0].uuid}`, { token: d.admin }), 403, 'forbidden');
    expect((await must(d, 'GET', `${APP}/notifications/${sent.body.entities[0].uuid}`)).entities[0].state).toBe('FINISHED');
  });

  it('pages the queue and receipts', async () => {
    await createDevices(d, 'dev', 25);
    const res = await send('/devices/*/notifications', { payloads: { dev: 'x' }, deliver: clock.now + 60_000 });
    const uuid = res.body.entities[0].uuid;
    const seen = new Set<string>();
    let cursor: string | undefined;
    do {
      const page = await must(d, 'GET', `${APP}/${uuid}/*/queue?limit=10${cursor ? `&cursor=${cursor}` : ''}`);
      for (const entity of page.entities) seen.add(entity.uuid);
      cursor = page.cursor;
    } while (cursor);
    expect(seen.size).toBe(25);
    expectRefusal(await d.t.request('GET', `${APP}/${uuid}/*/queue?cursor=!!`, { token: d.admin }), 400, 'illegal_argument');
  });

  it('a notification with no device that has a token finishes at once', async () => {
    await createDevices(d, 'other', 2);
    const res = await send('/devices/*/notifications', { payloads: { dev: 'x' } });
    expect(res.body.entities[0]).toMatchObject({ state: 'FINISHED', expectedCount: 0 });
  });

  it('POST /notifications and writes to receipts are 405', async () => {
    await expectRefusedUnchanged(d.t, () => send('/notifications', { payloads: { dev: 'x' } }), 405, 'method_not_allowed');
    await expectRefusedUnchanged(d.t, () => d.t.request('PUT', `${APP}/receipts`, { json: {}, token: d.admin }), 405, 'method_not_allowed');
  });
});

/** Lets `count` poll intervals pass on the clock, waiting after each for a round of the worker that finds nothing to do. */
async function pollsOf(running: DeliveryWorker, count: number): Promise<void> {
  for (let poll = 0; poll < count; poll++) {
    clock.now += TEST_POLL_MS;
    await running.idle();
  }
}

describe('the worker', () => {
  it('opens no transaction while nothing is queued, and still sends what is queued later', async () => {
    const driver = d.t.deps.db.$client;
    const atomic = driver.atomic.bind(driver);
    let transactions = 0;
    driver.atomic = (body) => {
      transactions++;
      return atomic(body);
    };
    try {
      worker = testWorker(d);
      // Polls of an empty queue: before, each opened a sweep and a lease per provider.
      await pollsOf(worker, 10);
      expect(transactions).toBe(0);
      const [device] = await createDevices(d, 'dev', 1);
      const res = await send(`/devices/${device.uuid}/notifications`, { payloads: { dev: 'later' } });
      expect((await waitForState(d, worker, res.body.entities[0].uuid, ['FINISHED'])).statistics).toEqual({ sent: 1, errors: 0 });
      // Idle again once the answer is recorded: the count stops growing.
      await worker.idle();
      const settled = transactions;
      await pollsOf(worker, 10);
      expect(transactions).toBe(settled);
    } finally {
      driver.atomic = atomic;
    }
  });
});
