import type { Command } from 'commander';
import { act, examples } from './client/run.js';
import { confirmOrYes, needText } from './client/prompt.js';
import { createArguments, nameHint, splitCreateWords } from './client/data.js';
import type { Ctx } from './client/context.js';
import { messageOf, recordOf, type Result } from './client/output.js';
import { addCollectionVerbs, addMemberVerbs, appPath } from './client/collection.js';

const KEYS = ['uuid', 'name', 'title', 'permissions', 'created'];

/** POST /{orgId}/{appId}/roles with AddRole (`title` and `role name`, with its space). */
async function create(ctx: Ctx, word: string | undefined, words: string[], flags: { title?: string; permission: string[]; data?: string }) {
  const { name, properties } = splitCreateWords([word, ...words], 'name', flags.data);
  const roleName = await needText(name, 'role name', nameHint('name'));
  const { name: _name, ...rest } = properties;
  const json = { title: roleName, ...rest, 'role name': roleName, ...(flags.title !== undefined && { title: flags.title }) };
  const created = await ctx.call({ method: 'POST', path: appPath(ctx, 'roles'), json });
  // With permissions, the answer to the last grant holds the role and all its permissions.
  let last = created;
  for (const permission of flags.permission) last = await grantOne(ctx, roleName, permission);
  return recordOf(last, KEYS);
}

function grantOne(ctx: Ctx, role: string, permission: string) {
  return ctx.call({ method: 'POST', path: appPath(ctx, 'roles', role, 'permissions'), json: { permission } });
}

function permissionsResult(body: unknown, text: string): Result {
  const permissions = (body as { data?: unknown }).data;
  return {
    ...messageOf(body, Array.isArray(permissions) ? `${text}\n${permissions.join('\n')}` : text),
    quiet: Array.isArray(permissions) ? permissions.join('\n') : undefined,
  };
}

async function grant(ctx: Ctx, role: string, permission: string) {
  return permissionsResult(await grantOne(ctx, role, permission), `granted ${permission} to role ${role}; it now has:`);
}

/** DELETE /{orgId}/{appId}/roles/{roleId}/permissions?grant_url_pattern=… */
async function revoke(ctx: Ctx, role: string, permission: string, flags: { yes?: boolean }) {
  await confirmOrYes(flags.yes, `Revoke ${permission} from role ${role}?`);
  const body = await ctx.call({ method: 'DELETE', path: appPath(ctx, 'roles', role, 'permissions'), query: { grant_url_pattern: permission } });
  return permissionsResult(body, `revoked ${permission} from role ${role}; it now has:`);
}

async function permissions(ctx: Ctx, role: string) {
  return permissionsResult(await ctx.call({ method: 'GET', path: appPath(ctx, 'roles', role, 'permissions') }), `permissions of role ${role}:`);
}

const collect = (value: string, previous: string[]) => [...previous, value];

export function register(noun: Command): void {
  const role = examples(noun.description('roles, their permissions and users (--org, --app)'), 'idp role create reader --permission "get:/**"');
  examples(
    createArguments(role.command('create').description('create a role'), 'name', 'role name')
      .option('--title <title>', 'display title (default: the name)')
      .option('-p, --permission <permission>', 'grant "verbs:/path/pattern" (repeatable)', collect, [])
      .action(act(create)),
    'idp role create editor --title Editors --permission "get,put,post:/posts/**"',
  );
  addCollectionVerbs(role, { collection: 'roles', what: 'role', idHelp: 'name or uuid', columns: ['name', 'title', 'uuid'], keys: KEYS, example: 'editor' }, [
    'list',
    'get',
    'delete',
  ]);
  examples(
    role
      .command('grant')
      .description('add a permission to a role')
      .argument('<role>', 'role name or uuid')
      .argument('<permission>', '"verbs:/path/pattern", e.g. "get,post:/posts/**"')
      .action(act(grant)),
    'idp role grant editor "delete:/posts/*"',
  );
  examples(
    role
      .command('revoke')
      .description('remove a permission from a role (a bare /path removes every verb on it)')
      .argument('<role>', 'role name or uuid')
      .argument('<permission>', '"verbs:/path/pattern" or "/path/pattern"')
      .option('-y, --yes', 'revoke without asking')
      .action(act(revoke)),
    'idp role revoke editor "delete:/posts/*" --yes',
  );
  examples(
    role.command('permissions').description('list the permissions of a role').argument('<role>', 'role name or uuid').action(act(permissions)),
    'idp role permissions editor --json',
  );
  addMemberVerbs(role, 'roles', 'role', 'editor');
}
