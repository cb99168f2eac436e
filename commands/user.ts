import type { Command } from 'commander';
import { act, examples } from './client/run.js';
import { needSecret, needText, passwordOf, passwordOptions, type PasswordFlags } from './client/prompt.js';
import type { Ctx } from './client/context.js';
import { dataOptions, parseProperties } from './client/data.js';
import { messageOf, recordOf } from './client/output.js';
import { addCollectionVerbs, appPath } from './client/collection.js';

const KEYS = ['uuid', 'username', 'name', 'email', 'activated', 'created', 'modified'];

interface CreateFlags extends PasswordFlags {
  name?: string;
  email?: string;
  data?: string;
}

/** POST /{orgId}/{appId}/users (CreateUser); a password is optional for app users. */
async function create(ctx: Ctx, username: string | undefined, properties: string[], flags: CreateFlags) {
  const json = {
    ...parseProperties(properties, flags.data),
    username: await needText(username, 'username', 'pass it as the first argument'),
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

export function register(noun: Command): void {
  const user = examples(noun.description('users of an application (--org, --app)'), 'idp user list --org demo --app sandbox');
  examples(
    passwordOptions(
      dataOptions(user.command('create').description('create an application user').argument('[username]', 'username (asked on a terminal)'))
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
}
