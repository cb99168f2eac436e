import type { Command } from 'commander';
import { act, examples } from './client/run.js';
import { needText, passwordOf, passwordOptions, type PasswordFlags } from './client/prompt.js';
import { listTable, nameHint, nameOf, pagingOptions, type ListFlags } from './client/data.js';
import type { Ctx } from './client/context.js';
import { p } from './client/api.js';
import { recordOf, tableOf } from './client/output.js';
import { credentialsResult, orgOf } from './client/management.js';

interface CreateFlags extends PasswordFlags {
  username?: string;
  name?: string;
  email?: string;
}

/** POST /management/orgs with CreateOrg, sent as a form; the owner is created with it. */
async function create(ctx: Ctx, organization: string | undefined, flags: CreateFlags) {
  const form = {
    organization: await needText(nameOf(organization, 'organization'), 'organization name', nameHint('organization')),
    username: await needText(flags.username, "owner's username", 'pass --username'),
    name: await needText(flags.name, "owner's full name", 'pass --name'),
    email: await needText(flags.email, "owner's email", 'pass --email'),
    password: await passwordOf(flags, "owner's password"),
  };
  return recordOf(await ctx.call({ method: 'POST', path: '/management/orgs', form }), ['uuid', 'orgname', 'username', 'email', 'created']);
}

async function get(ctx: Ctx, org: string | undefined) {
  return recordOf(await ctx.call({ method: 'GET', path: p`/management/orgs/${orgOf(ctx, org)}` }), [
    'uuid',
    'orgname',
    'username',
    'email',
    'applicationdata',
    'created',
  ]);
}

/** GET /management/orgs: every organization, by name (sysadmins). */
async function list(ctx: Ctx, flags: Pick<ListFlags, 'limit' | 'cursor' | 'all'>) {
  return listTable(ctx, '/management/orgs', flags, ['name', 'uuid', 'activated', 'created'], 'there is no organization yet');
}

async function credentials(ctx: Ctx, org: string | undefined, flags: { regenerate?: boolean; yes?: boolean }) {
  return credentialsResult(ctx, p`/management/orgs/${orgOf(ctx, org)}/credentials`, flags.regenerate, flags.yes);
}

async function feed(ctx: Ctx, org: string | undefined, flags: { limit?: string }) {
  const body = await ctx.call({ method: 'GET', path: p`/management/orgs/${orgOf(ctx, org)}/feed`, query: { limit: flags.limit } });
  return tableOf(body, ['uuid', 'published', 'category', 'verb', 'title'], 'nothing has happened yet');
}

export function register(noun: Command): void {
  const org = examples(noun.description('organizations'), 'idp org get demo');
  examples(
    passwordOptions(
      org
        .command('create')
        .description('create an organization with its first admin user')
        .argument('[name]', 'organization name, alone or as organization=VALUE (asked on a terminal)')
        .option('-u, --username <username>', "owner's username")
        .option('--name <name>', "owner's full name")
        .option('--email <email>', "owner's email"),
      "owner's password",
    ).action(act(create)),
    'idp org create acme --username alice --name "Alice Admin" --email alice@example.com',
  );
  examples(
    org.command('get').description('show an organization').argument('[org]', 'name or uuid (default --org)').action(act(get)),
    'idp org get acme --json',
  );
  examples(
    pagingOptions(org.command('list').description('list every organization on the server, by name (sysadmins only)')).action(act(list)),
    'idp org list --all',
  );
  examples(
    org
      .command('credentials')
      .description("show the organization's client id and secret")
      .argument('[org]', 'name or uuid (default --org)')
      .option('--regenerate', 'generate a new secret; the old one stops working at once')
      .option('-y, --yes', 'regenerate without asking')
      .action(act(credentials)),
    'idp org credentials acme --regenerate --yes',
  );
  examples(
    org
      .command('feed')
      .description('what happened in the organization, newest first')
      .argument('[org]', 'name or uuid (default --org)')
      .option('-l, --limit <n>', 'at most this many (default 10)')
      .action(act(feed)),
    'idp org feed acme --limit 50',
  );
}
