import type { Command } from 'commander';
import { act, examples } from './client/run.js';
import { needText } from './client/prompt.js';
import type { Ctx } from './client/context.js';
import { createArguments, splitCreateWords } from './client/data.js';
import { recordOf } from './client/output.js';
import { addCollectionVerbs, appPath } from './client/collection.js';

const KEYS = ['uuid', 'name', 'type', 'created', 'modified'];

/**
 * Registers a device with its push token in `<notifier>.notifier.id`
 * (docs/api.md#push-notifications, a property name with dots, not a nested path); with --user the
 * device is created connected to that user (`POST /users/{user}/devices`), so user and group
 * notifications reach it.
 */
async function registerDevice(
  ctx: Ctx,
  name: string | undefined,
  words: string[],
  flags: { notifier?: string; pushToken?: string; user?: string; data?: string },
) {
  const { properties } = splitCreateWords([name, ...words], 'name', flags.data);
  const notifier = await needText(flags.notifier, 'notifier name', 'pass --notifier');
  const token = await needText(flags.pushToken, 'push token', 'pass --push-token');
  const json = { ...properties, [`${notifier}.notifier.id`]: token };
  const path = flags.user === undefined ? appPath(ctx, 'devices') : appPath(ctx, 'users', flags.user, 'devices');
  return recordOf(await ctx.call({ method: 'POST', path, json }), [...KEYS, `${notifier}.notifier.id`]);
}

export function register(noun: Command): void {
  const device = examples(
    noun.description('devices of an application (--org, --app)'),
    'idp device register --notifier ios --push-token 740f4707bebcf74f9b7c25d48e3358945f6aa01da5ddb387462c7eaf61bb78ad --user fred',
  );
  examples(
    createArguments(device.command('register').description('register a device and its push token'), 'name', 'device name')
      .option('--notifier <name>', 'the notifier the token is for')
      .option('--push-token <token>', 'the push token (APNs device token or FCM registration token); --token is the access token')
      .option('--user <user>', 'connect the device to this user (username or uuid)')
      .action(act(registerDevice)),
    'idp device register pixel-7 --notifier android --push-token fcm-registration-token',
  );
  addCollectionVerbs(
    device,
    { collection: 'devices', what: 'device', idHelp: 'name or uuid', columns: ['name', 'uuid', 'created'], keys: KEYS, example: 'pixel-7' },
    ['list', 'get', 'delete'],
  );
}
