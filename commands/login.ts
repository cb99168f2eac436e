import type { Command } from 'commander';
import { act, examples } from './client/run.js';
import { needText, passwordOf, passwordOptions, type PasswordFlags } from './client/prompt.js';
import { requestToken } from './client/tokens.js';
import type { Ctx } from './client/context.js';
import { ADMIN_CLI, p, withTokens } from './client/api.js';
import { firstEntity, messageOf } from './client/output.js';

interface LoginFlags extends PasswordFlags {
  username?: string;
}

/** The organizations an admin belongs to, so a first login can pick the only one as default. */
async function organizationsOf(ctx: Ctx, username: string): Promise<string[]> {
  const user = firstEntity(await ctx.call({ method: 'GET', path: p`/management/users/${username}` }));
  const orgs = user.organizations;
  return orgs && typeof orgs === 'object' ? Object.keys(orgs) : [];
}

async function login(ctx: Ctx, flags: LoginFlags) {
  const username = await needText(flags.username ?? ctx.profile().username, 'username', 'pass --username');
  const password = await passwordOf(flags);
  const tokens = await requestToken(ctx, { grant_type: 'password', client_id: ADMIN_CLI, username, password });
  await ctx.saveProfile((profile) => ({ ...withTokens(profile, tokens), url: ctx.url, username }));
  let org = ctx.profile().org;
  if (org === undefined) {
    const orgs = await organizationsOf(ctx, username);
    if (orgs.length === 1) [org] = orgs;
    if (org !== undefined) await ctx.saveProfile((profile) => ({ ...profile, org }));
  }
  const where = ctx.profileName === 'default' ? '' : ` (profile ${ctx.profileName})`;
  return messageOf(tokens, `logged in to ${ctx.url} as ${username}${where}${org ? `; organization ${org}` : ''}`, tokens.access_token);
}

export function register(noun: Command): void {
  const command = noun
    .description('sign in as an admin user (password grant of the admin-cli client) and save the tokens in the profile')
    .option('-u, --username <username>', 'admin username or email (asked on a terminal)');
  examples(
    passwordOptions(command).action(act(login)),
    'idp login --url http://127.0.0.1:8080 --username demo',
    'echo "$ADMIN_PASSWORD" | idp login --username demo --password-stdin --profile ci',
  );
}
