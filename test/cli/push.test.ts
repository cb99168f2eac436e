/**
 * The push commands against a real server, through the development `noop` provider (the APNs and
 * FCM protocols themselves are tested in test/push/). The server runs in this process, so a test
 * can wait for its delivery worker instead of asking again and again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliAgainst, DEMO_FIXTURES, loginDemo, type CliClient } from './helpers.js';
import { startTestServer } from '../database.js';
import type { RunningServer } from '../../server/serve.js';

let server: RunningServer;
let cli: CliClient;
beforeAll(async () => {
  server = await startTestServer({ port: '0', fixtures: DEMO_FIXTURES });
  cli = cliAgainst(server.url, () => server.close());
  await loginDemo(cli);
  await cli.run(['config', 'set', 'app', 'sandbox']);
});
afterAll(() => cli.stop());

/** Reads with the CLI until `done` holds: at once, then after each idle round of the delivery worker. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let i = 0; i < 100; i++) {
    const value = await read();
    if (done(value)) return value;
    await server.deliveriesIdle();
  }
  throw new Error('the condition never held');
}

describe('push commands', () => {
  it('creates a notifier, registers devices, sends to a user and lists receipts', async () => {
    const notifier = await cli.json(['notifier', 'create', 'dev', '--provider', 'noop']);
    expect(notifier.entities[0]).toMatchObject({ name: 'dev', provider: 'noop', environment: 'development' });
    expect((await cli.json(['notifier', 'list'])).entities.map((n: { name: string }) => n.name)).toEqual(['dev']);

    await cli.json(['user', 'create', 'fred']);
    const phone = await cli.json(['device', 'register', 'name=phone', '--notifier', 'dev', '--push-token', 'token-1', '--user', 'fred']);
    expect(phone.entities[0]['dev.notifier.id']).toBe('token-1');
    await cli.json(['device', 'register', 'name=tablet', '--notifier', 'dev', '--push-token', 'token-2']);

    const sent = await cli.json(['notify', 'send', 'dev=hello fred', '--user', 'fred']);
    const id = sent.entities[0].uuid;
    const finished = await until(
      () => cli.json(['notify', 'list', '--ql', `select * where uuid = ${id}`]),
      (body) => body.entities[0]?.state === 'FINISHED',
    );
    expect(finished.entities[0].payloads).toEqual({ dev: 'hello fred' });
    const receipts = await cli.json(['notify', 'receipts', id]);
    expect(receipts.entities).toHaveLength(1);
    expect(receipts.entities[0].sent).toEqual(expect.any(Number));

    const everyone = await cli.json(['notify', 'send', 'dev=hello all', '--all']);
    const all = await until(
      () => cli.json(['notify', 'receipts', everyone.entities[0].uuid]),
      (body) => body.entities.length === 2,
    );
    expect(all.entities).toHaveLength(2);
  });

  it('schedules, cancels, and refuses bad usage with exit code 2', async () => {
    const later = new Date(Date.now() + 3600_000).toISOString();
    const scheduled = await cli.json(['notify', 'schedule', 'dev=later', '--all', '--deliver', later]);
    expect(scheduled.entities[0].state).toBe('SCHEDULED');
    const canceled = await cli.json(['notify', 'cancel', scheduled.entities[0].uuid, '--yes']);
    expect(canceled.entities[0].state).toBe('CANCELED');
    expect((await cli.run(['notify', 'cancel', scheduled.entities[0].uuid])).code).toBe(2);
    expect((await cli.run(['notify', 'send', 'dev=x'])).code).toBe(2);
    expect((await cli.run(['notify', 'send', 'dev=x', '--all', '--user', 'fred'])).code).toBe(2);
    expect((await cli.run(['notify', 'send', '--all'])).code).toBe(2);
    expect((await cli.run(['notify', 'schedule', 'dev=x', '--all', '--deliver', 'someday'])).code).toBe(2);
    const unknown = await cli.run(['notify', 'send', 'nobody=x', '--all']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^error: /);
    expect((await cli.run(['notifier', 'create', 'x', '--provider', 'apple', '--p8', '/nonexistent.p8'])).code).toBe(2);
  });
});
