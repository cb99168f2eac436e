import type { Command } from 'commander';
import { act, examples } from './client/run.js';
import { confirmOrYes } from './client/prompt.js';
import type { Ctx } from './client/context.js';
import { UsageError } from './client/errors.js';
import { listOptions, listTable, type ListFlags } from './client/data.js';
import { messageOf, recordOf } from './client/output.js';
import { appPath } from './client/collection.js';

const KEYS = ['uuid', 'state', 'scheduled', 'payloads', 'deliver', 'expire', 'created'];

interface SendFlags {
  device?: string;
  user?: string;
  group?: string;
  ql?: string;
  all?: boolean;
  deliver?: string;
  expire?: string;
}

/**
 * The send targets (docs/api.md#push-notifications): one device, every device, devices matching a
 * query, a user, a group.
 */
function targetPath(ctx: Ctx, flags: SendFlags): { path: string; query?: Record<string, string> } {
  const chosen = [flags.device, flags.user, flags.group, flags.ql, flags.all ? 'all' : undefined].filter((value) => value !== undefined);
  if (chosen.length !== 1) throw new UsageError('choose exactly one target: --device, --user, --group, --ql or --all');
  if (flags.device !== undefined) return { path: appPath(ctx, 'devices', flags.device, 'notifications') };
  if (flags.user !== undefined) return { path: appPath(ctx, 'users', flags.user, 'notifications') };
  if (flags.group !== undefined) return { path: appPath(ctx, 'groups', flags.group, 'notifications') };
  if (flags.ql !== undefined) return { path: appPath(ctx, 'devices'), query: { ql: flags.ql } };
  return { path: appPath(ctx, 'devices', '*', 'notifications') };
}

function milliseconds(text: string | undefined, flag: string): number | undefined {
  if (text === undefined) return undefined;
  // ISO dates are accepted for people; the API takes ms since the epoch (`deliver`, `expire`).
  const value = /^\d+$/.test(text) ? Number(text) : Date.parse(text);
  if (!Number.isFinite(value)) throw new UsageError(`${flag} must be ms since the epoch or an ISO date, not '${text}'`);
  return value;
}

/** CreateNotification: `payloads` {notifierName: message}, optional `deliver` and `expire`. */
async function send(ctx: Ctx, payloadWords: string[], flags: SendFlags) {
  if (payloadWords.length === 0) throw new UsageError('give at least one NOTIFIER=MESSAGE payload');
  const payloads: Record<string, string> = {};
  for (const word of payloadWords) {
    const eq = word.indexOf('=');
    if (eq <= 0) throw new UsageError(`'${word}' is not a payload: write NOTIFIER=MESSAGE`);
    payloads[word.slice(0, eq)] = word.slice(eq + 1);
  }
  const { path, query } = targetPath(ctx, flags);
  const deliver = milliseconds(flags.deliver, '--deliver');
  const expire = milliseconds(flags.expire, '--expire');
  const json = { payloads, ...(deliver !== undefined && { deliver }), ...(expire !== undefined && { expire }) };
  return recordOf(await ctx.call({ method: 'POST', path, query, json }), KEYS);
}

async function cancel(ctx: Ctx, id: string, flags: { yes?: boolean }) {
  await confirmOrYes(flags.yes, `Cancel notification ${id}?`);
  return recordOf(await ctx.call({ method: 'PUT', path: appPath(ctx, 'notifications', id), json: { canceled: true } }), KEYS);
}

async function remove(ctx: Ctx, id: string, flags: { yes?: boolean }) {
  await confirmOrYes(flags.yes, `Delete notification ${id}?`);
  return messageOf(await ctx.call({ method: 'DELETE', path: appPath(ctx, 'notifications', id) }), `deleted notification ${id}`);
}

async function list(ctx: Ctx, flags: ListFlags) {
  return listTable(ctx, appPath(ctx, 'notifications'), flags, ['uuid', 'state', 'created'], 'no notifications');
}

/** Receipts of every notification, or of one (`/{notificationId}/*\/receipts`), or of one device. */
async function receipts(ctx: Ctx, notification: string | undefined, flags: ListFlags & { device?: string }) {
  if (notification !== undefined && flags.device !== undefined) throw new UsageError('give a notification or --device, not both');
  const path =
    notification !== undefined
      ? appPath(ctx, notification, '*', 'receipts')
      : flags.device !== undefined
        ? appPath(ctx, flags.device, '*', 'receipts')
        : appPath(ctx, 'receipts');
  return listTable(ctx, path, flags, ['uuid', 'sent', 'errorCode', 'errorMessage', 'device'], 'no receipts');
}

function targetOptions(command: Command): Command {
  return command
    .argument('[payloads...]', 'NOTIFIER=MESSAGE, one per notifier')
    .option('--device <device>', 'one device (name or uuid)')
    .option('--user <user>', 'every device of a user')
    .option('--group <group>', "every device of a group's members")
    .option('--ql <query>', 'every device a query matches, e.g. "location within 1000 of 52.5, 13.4"')
    .option('--all', 'every device of the application')
    .option('--expire <when>', 'not delivered after this (ms since the epoch or ISO date)');
}

export function register(noun: Command): void {
  const notify = examples(noun.description('push notifications of an application (--org, --app)'), 'idp notify send ios="Your order shipped" --user fred');
  examples(
    targetOptions(notify.command('send').description('send a notification now')).action(act(send)),
    'idp notify send ios="Hello" android="Hello" --group walkers',
  );
  examples(
    targetOptions(notify.command('schedule').description('send a notification later'))
      .requiredOption('--deliver <when>', 'when to send (ms since the epoch or ISO date)')
      .action(act(send)),
    'idp notify schedule ios="Good morning" --all --deliver 2027-01-01T08:00:00Z',
  );
  examples(
    notify
      .command('cancel')
      .description('cancel a notification that is not sent yet')
      .argument('<id>', 'notification uuid')
      .option('-y, --yes', 'cancel without asking')
      .action(act(cancel)),
    'idp notify cancel 0190f2a4-… --yes',
  );
  examples(
    notify
      .command('delete')
      .description('delete an unsent notification')
      .argument('<id>', 'notification uuid')
      .option('-y, --yes', 'delete without asking')
      .action(act(remove)),
    'idp notify delete 0190f2a4-… --yes',
  );
  examples(
    listOptions(notify.command('list').description('list notifications, newest first')).action(act(list)),
    'idp notify list --ql "select * where state = \'FINISHED\'"',
  );
  examples(
    listOptions(
      notify
        .command('receipts')
        .description('list receipts')
        .argument('[notification]', 'only this notification (uuid)')
        .option('--device <device>', 'only this device'),
    ).action(act(receipts)),
    'idp notify receipts 0190f2a4-… --all --json',
  );
}
