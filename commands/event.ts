import type { Command } from 'commander';
import { act, examples } from './client/run.js';
import type { Ctx } from './client/context.js';
import { dataOptions, parseProperties } from './client/data.js';
import { recordOf } from './client/output.js';
import { appPath } from './client/collection.js';

/** POST /{orgId}/{appId}/events with CreateEvent; `timestamp` defaults to now (ms). */
async function post(ctx: Ctx, properties: string[], flags: { data?: string; timestamp?: string }) {
  const json = { ...parseProperties(properties, flags.data), timestamp: flags.timestamp ?? String(Date.now()) };
  return recordOf(await ctx.call({ method: 'POST', path: appPath(ctx, 'events'), json }));
}

export function register(noun: Command): void {
  const event = examples(noun.description('events of an application (--org, --app)'), 'idp event post category=signup counters.signups=1');
  examples(
    dataOptions(event.command('post').description('record an event'))
      .option('--timestamp <ms>', 'when it happened, ms since the epoch (default now)')
      .action(act(post)),
    'idp event post category=purchase counters.purchases=1 --timestamp 1700000000000',
  );
}
