import type { Command } from 'commander';
import { act, examples } from './client/run.js';
import { needSecret, needText, passwordOf, passwordOptions, type PasswordFlags } from './client/prompt.js';
import type { Ctx } from './client/context.js';
import { createArguments, nameHint, splitCreateWords } from './client/data.js';
import { entitiesOf, messageOf, recordOf, tableOf } from './client/output.js';
import { addCollectionVerbs, appPath } from './client/collection.js';

const KEYS = ['uuid', 'username', 'name', 'email', 'activated', 'disabled', 'created', 'modified'];

interface CreateFlags extends PasswordFlags {
  name?: string;
  email?: string;
  data?: string;
}

/** POST /{orgId}/{appId}/users (CreateUser); a password is optional for app users. */
async function create(ctx: Ctx, username: string | undefined, words: string[], flags: CreateFlags) {
  const { name, properties } = splitCreateWords([username, ...words], 'username', flags.data);
  const json = {
    ...properties,
    username: await needText(name, 'username', nameHint('username')),
    ...(flags.name !== undefined && { name: flags.name }),
    ...(flags.email !== undefined && { email: flags.email }),
    ...((flags.password !== undefined || flags.passwordStdin) && { password: await passwordOf(flags) }),
  };
  return recordOf(await ctx.call({ method: 'POST', path: appPath(ctx, 'users'), json }), KEYS);
}

/**
 * POST /{orgId}/{appId}/users/{user}/password with ResetPW. The user changing their own
 * password sends the old one; an administrator of the application may leave it out.
 */
async function password(ctx: Ctx, user: string, flags: { oldPassword?: string; newPassword?: string }) {
  const json = {
    ...(flags.oldPassword !== undefined && { password: flags.oldPassword }),
    newpassword: await needSecret(flags.newPassword, 'new password', 'pass --new-password'),
  };
  const body = await ctx.call({ method: 'POST', path: appPath(ctx, 'users', user, 'password'), json });
  return messageOf(body, `password of ${user} changed`);
}

/** GET /{orgId}/{appId}/users/{user}/factors: the user's second factors, never a secret (docs/api.md#second-factors). */
async function listFactors(ctx: Ctx, user: string) {
  const body = await ctx.call({ method: 'GET', path: appPath(ctx, 'users', user, 'factors') });
  return tableOf(body, ['id', 'type', 'status', 'created'], `${user} has no second factor`);
}

/** An administrator removes every second factor of a user (a lost phone): one DELETE per factor; recovery codes go with the last. */
async function resetFactors(ctx: Ctx, user: string) {
  const factors = entitiesOf(await ctx.call({ method: 'GET', path: appPath(ctx, 'users', user, 'factors') }));
  for (const factor of factors) await ctx.call({ method: 'DELETE', path: appPath(ctx, 'users', user, 'factors', String(factor.id)) });
  return messageOf({ removed: factors.map((factor) => factor.id) }, `removed ${factors.length} second factor${factors.length === 1 ? '' : 's'} of ${user}`);
}

/** PUT /{orgId}/{appId}/users/{user}/deactivate or …/activate (docs/api.md#account-state). */
function switchTo(verb: 'deactivate' | 'activate') {
  return async (ctx: Ctx, user: string) => recordOf(await ctx.call({ method: 'PUT', path: appPath(ctx, 'users', user, verb) }), KEYS);
}

export function register(noun: Command): void {
  const user = examples(noun.description('users of an application (--org, --app)'), 'idp user list --org demo --app sandbox');
  examples(
    passwordOptions(
      createArguments(user.command('create').description('create an application user'), 'username', 'username')
        .option('--name <name>', 'full name')
        .option('--email <email>', 'email address'),
      'password (optional)',
    ).action(act(create)),
    'idp user create fred --email fred@example.com --password-stdin city=Berlin',
  );
  addCollectionVerbs(
    user,
    { collection: 'users', what: 'user', idHelp: 'username, email or uuid', columns: ['username', 'name', 'email', 'uuid'], keys: KEYS, example: 'fred' },
    ['list', 'get', 'update', 'delete', 'connections'],
  );
  examples(
    user
      .command('password')
      .description("set an application user's password")
      .argument('<user>', 'username or uuid')
      .option('--old-password <password>', 'the current password (needed when users change their own)')
      .option('--new-password <password>', 'the new password (asked, hidden, on a terminal)')
      .action(act(password)),
    'idp user password fred',
  );
  const factors = examples(user.command('factors').description("a user's second factors (TOTP, passkeys)"), 'idp user factors list fred');
  examples(
    factors.command('list').description("list a user's second factors").argument('<user>', 'username, email or uuid').action(act(listFactors)),
    'idp user factors list fred',
  );
  examples(
    factors
      .command('reset')
      .description('remove every second factor of a user, and their recovery codes (administrators)')
      .argument('<user>', 'username, email or uuid')
      .action(act(resetFactors)),
    'idp user factors reset fred',
  );
  examples(
    user
      .command('deactivate')
      .description('deactivate an application user: no new tokens, and every sign-in of the user ends at once')
      .argument('<user>', 'username, email or uuid')
      .action(act(switchTo('deactivate'))),
    'idp user deactivate fred',
  );
  examples(
    user
      .command('activate')
      .description('activate an application user again')
      .argument('<user>', 'username, email or uuid')
      .action(act(switchTo('activate'))),
    'idp user activate fred',
  );
}
