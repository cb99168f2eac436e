import type { Command } from 'commander';
import { act, examples } from './client/run.js';
import { needText } from './client/prompt.js';
import type { Ctx } from './client/context.js';
import { createArguments, nameHint, splitCreateWords } from './client/data.js';
import { recordOf } from './client/output.js';
import { addCollectionVerbs, addMemberVerbs, appPath } from './client/collection.js';

const KEYS = ['uuid', 'path', 'title', 'created', 'modified'];
/** A nested path is written with its slashes, as created (docs/api.md#groups). */
const ID_HELP = 'path (e.g. offices/berlin) or uuid';

/** POST /{orgId}/{appId}/groups with CreateGroup (path and title). */
async function create(ctx: Ctx, path: string | undefined, words: string[], flags: { title?: string; data?: string }) {
  const { name, properties } = splitCreateWords([path, ...words], 'path', flags.data);
  const groupPath = await needText(name, 'group path', nameHint('path'));
  const json = { title: groupPath, ...properties, path: groupPath, ...(flags.title !== undefined && { title: flags.title }) };
  return recordOf(await ctx.call({ method: 'POST', path: appPath(ctx, 'groups'), json }), KEYS);
}

export function register(noun: Command): void {
  const group = examples(noun.description('groups of an application (--org, --app)'), 'idp group create berlin --title "Berlin office"');
  examples(
    createArguments(group.command('create').description('create a group'), 'path', 'group path, e.g. offices/berlin')
      .option('--title <title>', 'display title (default: the path)')
      .action(act(create)),
    'idp group create berlin --title "Berlin office"',
  );
  addCollectionVerbs(
    group,
    { collection: 'groups', what: 'group', idHelp: ID_HELP, columns: ['path', 'title', 'uuid'], keys: KEYS, example: 'offices/berlin' },
    ['list', 'get', 'update', 'delete'],
  );
  addMemberVerbs(group, 'groups', 'group', 'offices/berlin', ID_HELP);
}
