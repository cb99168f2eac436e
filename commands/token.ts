import { Option, type Command } from 'commander';
import { act, examples } from './client/run.js';
import { needSecret, needText, passwordOf, passwordOptions, type PasswordFlags } from './client/prompt.js';
import { requestToken } from './client/tokens.js';
import type { Ctx } from './client/context.js';
import { ADMIN_CLI, withTokens, type TokenSet } from './client/api.js';
import type { Result } from './client/output.js';
import { ServerError, UsageError } from './client/errors.js';

interface ClientFlags {
  clientId?: string;
  clientSecret?: string;
  scope?: string;
}

/** RFC 8693 section 3: token type identifiers. */
const TOKEN_TYPES: Record<string, string> = {
  access_token: 'urn:ietf:params:oauth:token-type:access_token',
  refresh_token: 'urn:ietf:params:oauth:token-type:refresh_token',
  id_token: 'urn:ietf:params:oauth:token-type:id_token',
  jwt: 'urn:ietf:params:oauth:token-type:jwt',
};
const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';

function tokenType(value: string | undefined): string | undefined {
  return value === undefined ? undefined : (TOKEN_TYPES[value] ?? value);
}

function clientOptions(command: Command, defaultClient?: string): Command {
  return command
    .addOption(new Option('--client-id <id>', `client id${defaultClient ? ` (default ${defaultClient})` : ''}`).env('IDP_CLIENT_ID'))
    .addOption(new Option('--client-secret <secret>', 'client secret (confidential clients)').env('IDP_CLIENT_SECRET'))
    .option('--scope <scopes>', 'space-separated scopes (default: all the client may have)');
}

async function issued(ctx: Ctx, form: Record<string, string | undefined>): Promise<Result> {
  const tokens = await requestToken(ctx, form);
  const keys = ['access_token', 'token_type', 'expires_in', 'scope', 'refresh_token', 'id_token', 'issued_token_type'];
  return { json: tokens, view: { kind: 'record', record: tokens, keys }, quiet: tokens.access_token };
}

async function clientCredentials(ctx: Ctx, flags: ClientFlags) {
  const clientId = await needText(flags.clientId, 'client id', 'pass --client-id or set IDP_CLIENT_ID');
  const clientSecret = await needSecret(flags.clientSecret, 'client secret', 'pass --client-secret or set IDP_CLIENT_SECRET');
  return issued(ctx, { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret, scope: flags.scope });
}

async function password(ctx: Ctx, flags: ClientFlags & PasswordFlags & { username?: string }) {
  const username = await needText(flags.username, 'username', 'pass --username');
  const secret = await passwordOf(flags);
  return issued(ctx, {
    grant_type: 'password',
    client_id: flags.clientId ?? ADMIN_CLI,
    client_secret: flags.clientSecret,
    username,
    password: secret,
    scope: flags.scope,
  });
}

/**
 * Refresh tokens rotate on use (docs/api.md#tokens): refreshing the profile's own token
 * stores the new pair, or the profile would hold a spent token whose reuse revokes the session.
 */
async function refresh(ctx: Ctx, flags: ClientFlags & { refreshToken?: string }) {
  const own = flags.refreshToken === undefined;
  const refreshToken = flags.refreshToken ?? ctx.profile().refresh_token;
  if (!refreshToken) throw new UsageError(`no refresh token: pass --refresh-token, or run \`${ctx.loginCommand}\` first`);
  const result = await issued(ctx, {
    grant_type: 'refresh_token',
    client_id: flags.clientId ?? ADMIN_CLI,
    client_secret: flags.clientSecret,
    refresh_token: refreshToken,
    scope: flags.scope,
  }).catch((error: unknown) => {
    // The profile's own session is over: only a new sign-in gives a new refresh token.
    if (own && error instanceof ServerError && error.error === 'invalid_grant') {
      throw new ServerError(error.status, error.error, `${error.message}: run \`${ctx.loginCommand}\` again`, error.body);
    }
    throw error;
  });
  if (own) await ctx.saveProfile((profile) => withTokens(profile, result.json as TokenSet));
  return result;
}

interface ExchangeFlags extends ClientFlags {
  subjectToken?: string;
  subjectTokenType: string;
  actorToken?: string;
  actorTokenType?: string;
  audience?: string;
  resource?: string;
  requestedTokenType?: string;
}

/** RFC 8693 section 2.1: the subject token defaults to the profile's own access token. */
async function exchange(ctx: Ctx, flags: ExchangeFlags) {
  const subjectToken = flags.subjectToken ?? ctx.profile().access_token;
  if (!subjectToken) throw new UsageError('no subject token: pass --subject-token, or run `idp login` first');
  if (flags.actorTokenType !== undefined && flags.actorToken === undefined) throw new UsageError('--actor-token-type needs --actor-token');
  const clientId = await needText(flags.clientId, 'client id', 'pass --client-id or set IDP_CLIENT_ID');
  return issued(ctx, {
    grant_type: TOKEN_EXCHANGE,
    client_id: clientId,
    client_secret: flags.clientSecret,
    subject_token: subjectToken,
    subject_token_type: tokenType(flags.subjectTokenType),
    actor_token: flags.actorToken,
    actor_token_type: flags.actorToken === undefined ? undefined : tokenType(flags.actorTokenType ?? 'access_token'),
    audience: flags.audience,
    resource: flags.resource,
    requested_token_type: tokenType(flags.requestedTokenType),
    scope: flags.scope,
  });
}

export function register(noun: Command): void {
  const token = examples(
    noun.description('get tokens from the token endpoint /connect/token'),
    'idp token client-credentials --client-id "$ID" --client-secret "$SECRET" --quiet',
  );

  examples(
    clientOptions(token.command('client-credentials').description('client_credentials grant: a token for an organization, application or OAuth client')).action(
      act(clientCredentials),
    ),
    'idp token client-credentials --client-id YXA6… --client-secret YXA6… --scope api --quiet',
  );

  examples(
    passwordOptions(
      clientOptions(token.command('password').description('password grant: a token for a user (admin-cli: admin users)'), ADMIN_CLI).option(
        '-u, --username <username>',
        'username or email',
      ),
    ).action(act(password)),
    'idp token password --username demo --client-id admin-cli',
  );

  examples(
    clientOptions(
      token.command('refresh').description("refresh_token grant: new tokens for the given refresh token, or for the profile's (saved back into it)"),
      ADMIN_CLI,
    )
      .option('--refresh-token <token>', "refresh token (default: the profile's)")
      .action(act(refresh)),
    'idp token refresh --json',
  );

  const types = Object.keys(TOKEN_TYPES).join(', ');
  examples(
    clientOptions(token.command('exchange').description('RFC 8693 token exchange: trade a token for another (delegation, impersonation, down-scoping)'))
      .option('--subject-token <token>', "the token to exchange (default: the profile's access token)")
      .option('--subject-token-type <type>', `${types} or a URI`, 'access_token')
      .option('--actor-token <token>', 'the acting party (delegation)')
      .option('--actor-token-type <type>', `${types} or a URI (default access_token)`)
      .option('--audience <audience>', 'where the new token will be used')
      .option('--resource <uri>', 'the resource the new token is for')
      .option('--requested-token-type <type>', `${types} or a URI`)
      .action(act(exchange)),
    'idp token exchange --client-id my-service --client-secret "$SECRET" --subject-token "$USER_TOKEN" --scope api',
  );
}
