import type { Command } from 'commander';
import { act, examples } from './client/run.js';
import { confirmOrYes, needChoice, needText } from './client/prompt.js';
import type { Ctx } from './client/context.js';
import { p } from './client/api.js';
import { entitiesOf, messageOf, recordOf, tableOf } from './client/output.js';
import { credentialsResult } from './client/management.js';

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
  const json = { name: await needText(name, 'application name', 'pass it as the first argument') };
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

async function credentials(ctx: Ctx, name: string | undefined, flags: { regenerate?: boolean; yes?: boolean }) {
  const app = await chooseApp(ctx, name, true);
  return credentialsResult(ctx, `${appsPath(ctx)}/${encodeURIComponent(app)}/credentials`, flags.regenerate, flags.yes);
}

export function register(noun: Command): void {
  const app = examples(noun.description('applications of an organization (--org)'), 'idp app list --org demo');
  examples(
    app.command('create').description('create an application').argument('[name]', 'application name (asked on a terminal)').action(act(create)),
    'idp app create sandbox --org demo',
  );
  examples(app.command('list').description('list the applications of the organization').action(act(list)), 'idp app list --org demo --json');
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
