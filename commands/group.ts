import type { Command } from 'commander';
import { act, examples } from './client/run.js';
import { needText } from './client/prompt.js';
import type { Ctx } from './client/context.js';
import { dataOptions, parseProperties } from './client/data.js';
import { recordOf } from './client/output.js';
import { addCollectionVerbs, addMemberVerbs, appPath } from './client/collection.js';

const KEYS = ['uuid', 'path', 'title', 'created', 'modified'];

/** POST /{orgId}/{appId}/groups with CreateGroup (path and title). */
async function create(ctx: Ctx, path: string | undefined, properties: string[], flags: { title?: string; data?: string }) {
  const groupPath = await needText(path, 'group path', 'pass it as the first argument');
  const json = { ...parseProperties(properties, flags.data), path: groupPath, title: flags.title ?? groupPath };
  return recordOf(await ctx.call({ method: 'POST', path: appPath(ctx, 'groups'), json }), KEYS);
}

export function register(noun: Command): void {
  const group = examples(noun.description('groups of an application (--org, --app)'), 'idp group create berlin --title "Berlin office"');
  examples(
    dataOptions(group.command('create').description('create a group').argument('[path]', 'group path, e.g. offices/berlin (asked on a terminal)'))
      .option('--title <title>', 'display title (default: the path)')
      .action(act(create)),
    'idp group create berlin --title "Berlin office"',
  );
  addCollectionVerbs(
    group,
    { collection: 'groups', what: 'group', idHelp: 'path or uuid', columns: ['path', 'title', 'uuid'], keys: KEYS, example: 'berlin' },
    ['list', 'get', 'update', 'delete'],
  );
  addMemberVerbs(group, 'groups', 'group', 'berlin');
}
