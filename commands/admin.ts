import type { Command } from 'commander';
import { act, examples } from './client/run.js';
import { confirmOrYes, needSecret, needText, passwordOf, passwordOptions, type PasswordFlags } from './client/prompt.js';
import { nameHint, nameOf } from './client/data.js';
import type { Ctx } from './client/context.js';
import { p } from './client/api.js';
import { messageOf, recordOf, tableOf } from './client/output.js';
import { UsageError } from './client/errors.js';

const USER_KEYS = ['uuid', 'username', 'name', 'email', 'organizations', 'activated', 'disabled', 'created'];

interface CreateFlags extends PasswordFlags {
  name?: string;
  email?: string;
}

/**
 * POST /management/users (CreateAdminUser). With an organization in context (--org,
 * IDP_ORG, profile) the new admin is also added to it, which is what "create an admin" means to
 * an organization's administrator.
 */
async function create(ctx: Ctx, username: string | undefined, flags: CreateFlags) {
  const json = {
    username: await needText(nameOf(username, 'username'), 'username', nameHint('username')),
    name: flags.name,
    email: flags.email,
    password: await passwordOf(flags),
  };
  const created = await ctx.call({ method: 'POST', path: '/management/users', json });
  const org = ctx.defaults.org;
  if (org === undefined) return recordOf(created, USER_KEYS);
  return recordOf(await ctx.call({ method: 'PUT', path: p`/management/orgs/${org}/users/${json.username}` }), USER_KEYS);
}

async function get(ctx: Ctx, user: string | undefined) {
  const id = user ?? ctx.profile().username;
  if (id === undefined) throw new UsageError('which admin user? pass a username, email or uuid');
  return recordOf(await ctx.call({ method: 'GET', path: p`/management/users/${id}` }), USER_KEYS);
}

async function list(ctx: Ctx) {
  return tableOf(await ctx.call({ method: 'GET', path: p`/management/orgs/${ctx.org()}/users` }), ['username', 'name', 'email', 'uuid'], 'no admin users');
}

async function add(ctx: Ctx, user: string) {
  const body = await ctx.call({ method: 'PUT', path: p`/management/orgs/${ctx.org()}/users/${user}` });
  return messageOf(body, `${user} is now an administrator of ${ctx.org()}`);
}

async function remove(ctx: Ctx, user: string, flags: { yes?: boolean }) {
  await confirmOrYes(flags.yes, `Remove ${user} from the administrators of ${ctx.org()}?`);
  const body = await ctx.call({ method: 'DELETE', path: p`/management/orgs/${ctx.org()}/users/${user}` });
  return messageOf(body, `${user} is no longer an administrator of ${ctx.org()}`);
}

/** PUT /management/users/{userId}/password with ResetPW (old and new password). */
async function password(ctx: Ctx, user: string | undefined, flags: { password?: string; newPassword?: string }) {
  const id = user ?? ctx.profile().username;
  if (id === undefined) throw new UsageError('which admin user? pass a username, email or uuid');
  const json = {
    password: await needSecret(flags.password, 'current password', 'pass --password'),
    newpassword: await needSecret(flags.newPassword, 'new password', 'pass --new-password'),
  };
  const body = await ctx.call({ method: 'PUT', path: p`/management/users/${id}/password`, json });
  return messageOf(body, `password of ${id} changed`);
}

/** PUT /management/users/{userId}/deactivate or …/activate (docs/api.md#account-state). */
function switchTo(verb: 'deactivate' | 'activate') {
  return async (ctx: Ctx, user: string) => recordOf(await ctx.call({ method: 'PUT', path: p`/management/users/${user}/${verb}` }), USER_KEYS);
}

export function register(noun: Command): void {
  const admin = examples(noun.description('admin users (people who manage organizations)'), 'idp admin list --org demo');
  examples(
    passwordOptions(
      admin
        .command('create')
        .description('create an admin user, and add them to --org when an organization is in context')
        .argument('[username]', 'username, alone or as username=VALUE (asked on a terminal)')
        .option('--name <name>', 'full name')
        .option('--email <email>', 'email address'),
    ).action(act(create)),
    'idp admin create bob --email bob@example.com --name "Bob Builder" --org demo',
  );
  examples(
    admin.command('get').description('show an admin user').argument('[user]', "username, email or uuid (default: the profile's user)").action(act(get)),
    'idp admin get demo --json',
  );
  examples(admin.command('list').description('list the administrators of the organization').action(act(list)), 'idp admin list --org demo');
  examples(
    admin
      .command('add')
      .description('make an existing admin user an administrator of the organization')
      .argument('<user>', 'username, email or uuid')
      .action(act(add)),
    'idp admin add bob --org demo',
  );
  examples(
    admin
      .command('remove')
      .description('remove an admin user from the organization')
      .argument('<user>', 'username, email or uuid')
      .option('-y, --yes', 'remove without asking')
      .action(act(remove)),
    'idp admin remove bob --org demo --yes',
  );
  examples(
    admin
      .command('password')
      .description("change an admin user's password")
      .argument('[user]', "username, email or uuid (default: the profile's user)")
      .option('--password <password>', 'the current password (asked, hidden, on a terminal)')
      .option('--new-password <password>', 'the new password (asked, hidden, on a terminal)')
      .action(act(password)),
    'idp admin password demo',
  );
  examples(
    admin
      .command('deactivate')
      .description('deactivate an admin user: no new tokens, and every sign-in of the user ends at once')
      .argument('<user>', 'username, email or uuid')
      .action(act(switchTo('deactivate'))),
    'idp admin deactivate bob',
  );
  examples(
    admin
      .command('activate')
      .description('activate an admin user again')
      .argument('<user>', 'username, email or uuid')
      .action(act(switchTo('activate'))),
    'idp admin activate bob',
  );
}
