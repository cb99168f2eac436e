import type { Command } from 'commander';
import { act, examples } from './client/run.js';
import { needText, passwordOf, passwordOptions, type PasswordFlags } from './client/prompt.js';
import { requestToken } from './client/tokens.js';
import type { Ctx } from './client/context.js';
import { ADMIN_CLI, p, withTokens, type TokenSet } from './client/api.js';
import { UsageError } from './client/errors.js';
import { firstEntity, messageOf } from './client/output.js';

interface LoginFlags extends PasswordFlags {
  username?: string;
  code?: boolean;
  device?: boolean;
  scope?: string;
}

/** The organizations an admin belongs to, so a first login can pick the only one as default. */
async function organizationsOf(ctx: Ctx, username: string): Promise<string[]> {
  const user = firstEntity(await ctx.call({ method: 'GET', path: p`/management/users/${username}` }));
  const orgs = user.organizations;
  return orgs && typeof orgs === 'object' ? Object.keys(orgs) : [];
}

/** The `preferred_username` of an access token we just received (read, not verified: a label). */
function usernameOf(accessToken: string): string | undefined {
  try {
    const claims = JSON.parse(Buffer.from(accessToken.split('.')[1] ?? '', 'base64url').toString('utf8')) as { preferred_username?: unknown };
    return typeof claims.preferred_username === 'string' ? claims.preferred_username : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A sign-in in a browser for admin-cli: the browser flow (RFC 8252 7.3, authorization code +
 * PKCE through a loopback redirect) or, with `--device`, the device flow (RFC 8628) for a
 * terminal whose machine has no browser; what to open goes to stderr.
 */
async function signInWithBrowser(ctx: Ctx, flags: LoginFlags): Promise<{ username: string; tokens: TokenSet & Record<string, unknown> }> {
  const options = { issuer: ctx.url, clientId: ADMIN_CLI, scope: flags.scope };
  const tokens = flags.device
    ? await (await import('./device-flow.js')).runDeviceFlow(options)
    : await (await import('./auth-code-flow.js')).runAuthorizationCodeFlow(options);
  const username = usernameOf(tokens.access_token);
  if (username === undefined) throw new UsageError('the token of the browser sign-in names no user');
  return { username, tokens };
}

async function signInWithPassword(ctx: Ctx, flags: LoginFlags) {
  const username = await needText(flags.username ?? ctx.profile().username, 'username', 'pass --username, or --code to sign in with a browser');
  const password = await passwordOf(flags);
  return { username, tokens: await requestToken(ctx, { grant_type: 'password', client_id: ADMIN_CLI, username, password }) };
}

async function login(ctx: Ctx, flags: LoginFlags) {
  const browser = flags.code ? '--code' : flags.device ? '--device' : undefined;
  if (flags.code && flags.device) throw new UsageError('--code and --device are two ways to sign in with a browser; choose one');
  if (browser && (flags.password !== undefined || flags.passwordStdin)) throw new UsageError(`${browser} signs in with a browser; leave out the password`);
  const { username, tokens } = browser ? await signInWithBrowser(ctx, flags) : await signInWithPassword(ctx, flags);
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
    .option('-u, --username <username>', 'admin username or email (asked on a terminal)')
    .option('--code', 'sign in with a browser instead: authorization code + PKCE, loopback redirect on 127.0.0.1')
    .option('--device', 'sign in with a browser on any device: prints an address and a code to enter there (RFC 8628)')
    .option('--scope <scopes>', 'with --code or --device: scopes to ask for (default "openid profile offline_access api")');
  examples(
    passwordOptions(command).action(act(login)),
    'idp login --url http://127.0.0.1:8080 --username demo',
    'echo "$ADMIN_PASSWORD" | idp login --username demo --password-stdin --profile ci',
    'idp login --code --url https://idp.example.com',
    'idp login --device --url https://idp.example.com',
  );
}
