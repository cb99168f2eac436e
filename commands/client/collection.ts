/**
 * The verbs every collection shares — list, get, update, delete, connections — written once for
 * `entity` (collection named on the command line) and for `user`, `group` and `role` (collection
 * fixed). Paths are `/{orgId}/{appId}/{collectionId}[/{entityId}]` with --org and --app.
 */
import type { Command } from 'commander';
import { act, examples } from './run.js';
import { confirmOrYes } from './prompt.js';
import type { Ctx } from './context.js';
import { dataOptions, listOptions, listTable, parseProperties, type ListFlags } from './data.js';
import { messageOf, recordOf, type Column } from './output.js';

/** `/{org}/{app}/…segments`, each segment encoded. */
export function appPath(ctx: Ctx, ...segments: string[]): string {
  return ['', ctx.org(), ctx.app(), ...segments].map(encodeURIComponent).join('/');
}

/**
 * The NAME of a row of any type: what names it in a path (docs/api.md#entities), so a user shows
 * its username and a group its path.
 */
export const NAME_COLUMN: Column = {
  key: 'name',
  value: (row) => (row.type === 'user' ? row.username : row.type === 'group' ? row.path : row.name),
};

/** The path segments of an entity's id: a group's nested path (`company/eng`) is one segment per level (docs/api.md#groups). */
export function idSegments(collection: string, id: string): string[] {
  return ['groups', 'group'].includes(collection.toLowerCase()) ? id.split('/') : [id];
}

/** A target written `name`, `uuid` or `collection/name` becomes one or two path segments. */
export function targetSegments(target: string): string[] {
  return target.split('/').filter((segment) => segment !== '');
}

export interface CollectionSpec {
  /** Fixed collection (users, groups, roles); absent for `entity`, where it is the first argument. */
  collection?: string;
  /** The singular word used in help: user, group, role, entity. */
  what: string;
  /** How an entity is named in help, e.g. "username or uuid". */
  idHelp: string;
  columns: (string | Column)[];
  keys?: string[];
  /** Example arguments for help: collection (if any) and an id. */
  example: string;
}

type Args = unknown[];

/** `a` or `an` before the nouns of help: an entity, a user (a `u` here is said "you"). */
function article(word: string): string {
  return /^[aeio]/i.test(word) ? 'an' : 'a';
}

/** Splits commander's action arguments into the collection, the positional words and the flags. */
function split<F>(spec: CollectionSpec, args: Args): { collection: string; words: string[]; flags: F } {
  const flags = args[args.length - 1] as F;
  const words = args.slice(0, -1).flatMap((value) => (Array.isArray(value) ? (value as string[]) : value === undefined ? [] : [value as string]));
  const [collection, ...rest] = spec.collection === undefined ? words : [spec.collection, ...words];
  return { collection, words: rest, flags };
}

export function addCollectionVerbs(noun: Command, spec: CollectionSpec, verbs: readonly ('list' | 'get' | 'update' | 'delete' | 'connections')[]): void {
  const withCollection = (command: Command) => (spec.collection === undefined ? command.argument('<collection>', 'collection, e.g. dogs') : command);
  const id = (command: Command) => command.argument('<id>', spec.idHelp);
  const name = `idp ${noun.name()}`;

  const definitions = {
    list: () =>
      examples(
        listOptions(withCollection(noun.command('list').description(`list ${spec.collection ?? 'the entities of a collection'}, newest first`))).action(
          act(async (ctx, ...args: Args) => {
            const { collection, flags } = split<ListFlags>(spec, args);
            return listTable(ctx, appPath(ctx, collection), flags, spec.columns, `no ${spec.collection ?? 'entities'}`);
          }),
        ),
        `${name} list ${spec.collection === undefined ? 'dogs ' : ''}--ql "select * where created > 0" --all --json`,
      ),
    get: () =>
      examples(
        id(withCollection(noun.command('get').description(`show one ${spec.what}`))).action(
          act(async (ctx, ...args: Args) => {
            const { collection, words } = split(spec, args);
            return recordOf(await ctx.call({ method: 'GET', path: appPath(ctx, collection, ...idSegments(collection, words[0])) }), spec.keys);
          }),
        ),
        `${name} get ${spec.example}`,
      ),
    update: () =>
      examples(
        dataOptions(id(withCollection(noun.command('update').description(`change properties of ${article(spec.what)} ${spec.what} (others are kept)`)))).action(
          act(async (ctx, ...args: Args) => {
            const { collection, words, flags } = split<{ data?: string }>(spec, args);
            const [target, ...properties] = words;
            const json = parseProperties(properties, flags.data);
            return recordOf(await ctx.call({ method: 'PUT', path: appPath(ctx, collection, ...idSegments(collection, target)), json }), spec.keys);
          }),
        ),
        `${name} update ${spec.example} color=brown age=4`,
      ),
    delete: () =>
      examples(
        id(withCollection(noun.command('delete').description(`delete ${article(spec.what)} ${spec.what}`)))
          .option('-y, --yes', 'delete without asking')
          .action(
            act(async (ctx, ...args: Args) => {
              const { collection, words, flags } = split<{ yes?: boolean }>(spec, args);
              await confirmOrYes(flags.yes, `Delete ${collection}/${words[0]}?`);
              const body = await ctx.call({ method: 'DELETE', path: appPath(ctx, collection, ...idSegments(collection, words[0])) });
              return messageOf(body, `deleted ${collection}/${words[0]}`);
            }),
          ),
        `${name} delete ${spec.example} --yes`,
      ),
    connections: () =>
      examples(
        listOptions(
          id(withCollection(noun.command('connections').description(`list what a ${spec.what} is connected to by a relation`))).argument(
            '<relation>',
            'relation, e.g. likes, following',
          ),
        ).action(
          act(async (ctx, ...args: Args) => {
            const { collection, words, flags } = split<ListFlags>(spec, args);
            return listTable(
              ctx,
              appPath(ctx, collection, ...idSegments(collection, words[0]), words[1]),
              flags,
              ['type', NAME_COLUMN, 'uuid', 'created'],
              'no connections',
            );
          }),
        ),
        `${name} connections ${spec.example} likes`,
      ),
  };
  for (const verb of verbs) definitions[verb]();
}

/** `add-user`, `remove-user` and `users` of groups and roles: POST|DELETE|GET /{collection}/{id}/users[/{user}]. */
export function addMemberVerbs(noun: Command, collection: string, what: string, example: string, idHelp = 'name or uuid'): void {
  const name = `idp ${noun.name()}`;
  const member = (method: 'POST' | 'DELETE') =>
    act(async (ctx, id: string, user: string, flags: { yes?: boolean }) => {
      if (method === 'DELETE') await confirmOrYes(flags.yes, `Remove ${user} from ${what} ${id}?`);
      const body = await ctx.call({ method, path: appPath(ctx, collection, ...idSegments(collection, id), 'users', user) });
      return messageOf(body, `${user} is ${method === 'POST' ? 'now' : 'no longer'} in ${what} ${id}`);
    });
  const args = (command: Command) => command.argument('<id>', `${what}: ${idHelp}`).argument('<user>', 'username or uuid');
  examples(args(noun.command('add-user').description(`add a user to the ${what}`)).action(member('POST')), `${name} add-user ${example} fred`);
  examples(
    args(noun.command('remove-user').description(`remove a user from the ${what}`))
      .option('-y, --yes', 'remove without asking')
      .action(member('DELETE')),
    `${name} remove-user ${example} fred --yes`,
  );
  examples(
    listOptions(noun.command('users').description(`list the users of the ${what}`).argument('<id>', `${what}: ${idHelp}`)).action(
      act(async (ctx, id: string, flags: ListFlags) =>
        listTable(ctx, appPath(ctx, collection, ...idSegments(collection, id), 'users'), flags, ['username', 'name', 'email', 'uuid'], 'no users'),
      ),
    ),
    `${name} users ${example}`,
  );
}
