import type { Command } from 'commander';
import { act, examples } from './client/run.js';
import { confirmOrYes, needChoice, needText } from './client/prompt.js';
import type { Ctx } from './client/context.js';
import { p } from './client/api.js';
import { entitiesOf, messageOf, recordOf, tableOf } from './client/output.js';
import { credentialsResult, SECOND_FACTOR_FLAG, secondFactorSetting } from './client/management.js';
import { UsageError } from './client/errors.js';
import { listOrNone, nameHint, nameOf } from './client/data.js';

const appsPath = (ctx: Ctx) => p`/management/orgs/${ctx.org()}/apps`;

/**
 * The application named on the command line, else (when `fallback`) --app; on a terminal the
 * organization's applications are offered. Deleting never falls back to a default.
 */
async function chooseApp(ctx: Ctx, app: string | undefined, fallback: boolean): Promise<string> {
  return needChoice(app ?? (fallback ? ctx.defaults.app : undefined), 'application', 'pass its name as an argument', async () =>
    entitiesOf(await ctx.call({ method: 'GET', path: appsPath(ctx) })).map((entity) => ({
      value: String(entity.applicationName),
      description: String(entity.uuid),
    })),
  );
}

async function create(ctx: Ctx, name: string | undefined) {
  const json = { name: await needText(nameOf(name, 'name'), 'application name', nameHint('name')) };
  return recordOf(await ctx.call({ method: 'POST', path: appsPath(ctx), json }), ['uuid', 'name', 'applicationName', 'organization', 'created']);
}

async function list(ctx: Ctx) {
  return tableOf(await ctx.call({ method: 'GET', path: appsPath(ctx) }), [{ key: 'applicationName', header: 'name' }, 'uuid', 'created'], 'no applications');
}

async function remove(ctx: Ctx, name: string | undefined, flags: { yes?: boolean }) {
  const app = await chooseApp(ctx, name, false);
  await confirmOrYes(flags.yes, `Delete application ${ctx.org()}/${app} and all its data?`);
  const body = await ctx.call({ method: 'DELETE', path: `${appsPath(ctx)}/${encodeURIComponent(app)}` });
  return messageOf(body, `deleted application ${ctx.org()}/${app}`);
}

const APP_FIELDS = ['uuid', 'name', 'applicationName', 'organization', 'passwordPolicy', 'secondFactorRequired', 'created', 'modified'];

async function get(ctx: Ctx, name: string | undefined) {
  const app = await chooseApp(ctx, name, true);
  return recordOf(await ctx.call({ method: 'GET', path: `${appsPath(ctx)}/${encodeURIComponent(app)}` }), APP_FIELDS);
}

interface PolicyFlags {
  passwordMinLength?: string;
  passwordRequire?: string;
  passwordBlocklist?: string;
  serverPasswordPolicy?: boolean;
  secondFactorRequired?: string;
}

/** The application's password policy from the flags given (undefined: none given); the server checks the values. */
function passwordPolicyOf(flags: PolicyFlags): Record<string, unknown> | null | undefined {
  const given = [flags.passwordMinLength, flags.passwordRequire, flags.passwordBlocklist].some((flag) => flag !== undefined);
  if (flags.serverPasswordPolicy) {
    if (given) throw new UsageError('--server-password-policy removes the policy: leave out the other --password-* flags');
    return null;
  }
  if (!given) return undefined;
  const minLength = flags.passwordMinLength;
  const require = flags.passwordRequire;
  return {
    ...(minLength !== undefined && { minLength: /^\d+$/.test(minLength) ? Number(minLength) : minLength }),
    ...(require !== undefined && { require: listOrNone(require) }),
    ...(flags.passwordBlocklist !== undefined && { blocklist: flags.passwordBlocklist }),
  };
}

async function update(ctx: Ctx, name: string | undefined, flags: PolicyFlags) {
  const app = await chooseApp(ctx, name, true);
  const passwordPolicy = passwordPolicyOf(flags);
  const json = { ...(passwordPolicy !== undefined && { passwordPolicy }), ...secondFactorSetting(flags.secondFactorRequired) };
  if (Object.keys(json).length === 0) {
    throw new UsageError(
      'nothing to change: pass --password-min-length, --password-require, --password-blocklist, --server-password-policy or --second-factor-required',
    );
  }
  return recordOf(await ctx.call({ method: 'PUT', path: `${appsPath(ctx)}/${encodeURIComponent(app)}`, json }), APP_FIELDS);
}

async function credentials(ctx: Ctx, name: string | undefined, flags: { regenerate?: boolean; yes?: boolean }) {
  const app = await chooseApp(ctx, name, true);
  return credentialsResult(ctx, `${appsPath(ctx)}/${encodeURIComponent(app)}/credentials`, flags.regenerate, flags.yes);
}

export function register(noun: Command): void {
  const app = examples(noun.description('applications of an organization (--org)'), 'idp app list --org demo');
  examples(
    app
      .command('create')
      .description('create an application')
      .argument('[name]', 'application name, alone or as name=VALUE (asked on a terminal)')
      .action(act(create)),
    'idp app create sandbox --org demo',
  );
  examples(app.command('list').description('list the applications of the organization').action(act(list)), 'idp app list --org demo --json');
  examples(
    app
      .command('get')
      .description('show an application and its password policy')
      .argument('[name]', 'application name or uuid (default --app; chosen from a list on a terminal)')
      .action(act(get)),
    'idp app get sandbox --org demo',
  );
  examples(
    app
      .command('update')
      .description(
        "set the password policy of the application's users (the flags given replace its whole policy, and what they leave out follows the server's), and whether they must have a second factor",
      )
      .argument('[name]', 'application name or uuid (default --app; chosen from a list on a terminal)')
      .option('--password-min-length <n>', 'fewest characters a new password may have')
      .option('--password-require <classes>', 'character classes a new password must contain: lower,upper,digit,symbol, or none')
      .option('--password-blocklist <list>', 'common|off: refuse common and breached passwords')
      .option('--server-password-policy', "remove the application's policy: its users follow the server's")
      .option(...SECOND_FACTOR_FLAG)
      .action(act(update)),
    'idp app update sandbox --org demo --password-min-length 12 --password-require digit',
  );
  examples(
    app
      .command('delete')
      .description('delete an application and all its data')
      .argument('[name]', 'application name or uuid (chosen from a list on a terminal)')
      .option('-y, --yes', 'delete without asking')
      .action(act(remove)),
    'idp app delete sandbox --org demo --yes',
  );
  examples(
    app
      .command('credentials')
      .description("show the application's client id and secret")
      .argument('[name]', 'application name or uuid (default --app; chosen from a list on a terminal)')
      .option('--regenerate', 'generate a new secret; the old one stops working at once')
      .option('-y, --yes', 'regenerate without asking')
      .action(act(credentials)),
    'idp app credentials sandbox --org demo --quiet',
  );
}
