import { Option, type Command } from 'commander';
import { act, examples } from './client/run.js';
import { confirmOrYes, needText } from './client/prompt.js';
import type { Ctx } from './client/context.js';
import { p } from './client/api.js';
import { nameHint, nameOf, parseProperties } from './client/data.js';
import { entitiesOf, messageOf, type Result } from './client/output.js';
import { requestToken } from './client/tokens.js';
import { UsageError } from './client/errors.js';

const KEYS = [
  'client_id',
  'client_secret',
  'client_name',
  'token_endpoint_auth_method',
  'grant_types',
  'response_types',
  'redirect_uris',
  'post_logout_redirect_uris',
  'scope',
  'require_pkce',
  'require_consent',
  'allow_plain_pkce',
  'identity_providers',
  'jwks_uri',
  'subject_type',
  'sector_identifier_uri',
  'backchannel_logout_uri',
  'backchannel_logout_session_required',
  'frontchannel_logout_uri',
  'frontchannel_logout_session_required',
];

interface ClientFlags {
  name?: string;
  redirectUri: string[];
  postLogoutRedirectUri: string[];
  grantType: string[];
  responseType: string[];
  scope?: string;
  authMethod?: string;
  public?: boolean;
  requirePkce?: boolean;
  requireConsent?: boolean;
  allowPlainPkce?: boolean;
  identityProvider: string[];
  jwksUri?: string;
  subjectType?: string;
  sectorIdentifierUri?: string;
  backchannelLogoutUri?: string;
  backchannelLogoutSessionRequired?: boolean;
  frontchannelLogoutUri?: string;
  frontchannelLogoutSessionRequired?: boolean;
  data?: string;
}

const clientsPath = (ctx: Ctx) => p`/management/orgs/${ctx.org()}/apps/${ctx.app()}/clients`;

/** RFC 7591 client metadata names (docs/api.md#clients); only what was given is sent. */
function metadataOf(flags: ClientFlags): Record<string, unknown> {
  const list = (values: string[]) => (values.length > 0 ? values : undefined);
  const metadata: Record<string, unknown> = {
    ...parseProperties([], flags.data),
    client_name: flags.name,
    redirect_uris: list(flags.redirectUri),
    post_logout_redirect_uris: list(flags.postLogoutRedirectUri),
    grant_types: list(flags.grantType),
    response_types: list(flags.responseType),
    scope: flags.scope,
    token_endpoint_auth_method: flags.public ? 'none' : flags.authMethod,
    require_pkce: flags.requirePkce,
    require_consent: flags.requireConsent,
    allow_plain_pkce: flags.allowPlainPkce,
    identity_providers: list(flags.identityProvider),
    jwks_uri: flags.jwksUri,
    subject_type: flags.subjectType,
    sector_identifier_uri: flags.sectorIdentifierUri,
    backchannel_logout_uri: flags.backchannelLogoutUri,
    backchannel_logout_session_required: flags.backchannelLogoutSessionRequired,
    frontchannel_logout_uri: flags.frontchannelLogoutUri,
    frontchannel_logout_session_required: flags.frontchannelLogoutSessionRequired,
  };
  return Object.fromEntries(Object.entries(metadata).filter(([, value]) => value !== undefined));
}

/** The clients of an answer: the envelope's entities, or the RFC 7591 document itself. */
function clientsOf(body: unknown): Record<string, unknown>[] {
  const entities = entitiesOf(body);
  return entities.length > 0 || (body as { entities?: unknown }).entities !== undefined ? entities : [body as Record<string, unknown>];
}

function clientResult(body: unknown): Result {
  const client = clientsOf(body)[0] ?? {};
  return { json: body, view: { kind: 'record', record: client, keys: KEYS }, quiet: String(client.client_id ?? '') };
}

async function create(ctx: Ctx, name: string | undefined, flags: ClientFlags) {
  const json = metadataOf({ ...flags, name: await needText(nameOf(name, 'client_name') ?? flags.name, 'client name', nameHint('client_name')) });
  return clientResult(await ctx.call({ method: 'POST', path: clientsPath(ctx), json }));
}

interface RegisterFlags extends ClientFlags {
  initialAccessToken?: string;
  clientId?: string;
  clientSecret?: string;
  application?: string;
}

/** What a registration answers beside the metadata (RFC 7591 3.2.1, RFC 7592 3). */
const REGISTERED_KEYS = [...KEYS, 'registration_access_token', 'registration_client_uri'];

/**
 * The initial access token a registration presents (RFC 7591 3, docs/api.md#dynamic-client-registration):
 * one given, else the application credentials' client_credentials token (their flags may come
 * from the environment, so an explicit token or application goes first); none for open
 * registration, which names its application instead.
 */
async function initialAccessTokenOf(ctx: Ctx, flags: RegisterFlags): Promise<string | undefined> {
  if (flags.initialAccessToken !== undefined && flags.application !== undefined) {
    throw new UsageError('--initial-access-token and --application are two ways to register: pass one');
  }
  if (flags.initialAccessToken !== undefined) return flags.initialAccessToken;
  if (flags.application !== undefined) return undefined;
  if (flags.clientId === undefined || flags.clientSecret === undefined) {
    throw new UsageError(
      'pass --initial-access-token, --client-id with --client-secret (application credentials), or --application ORG/APP (open registration)',
    );
  }
  return (await requestToken(ctx, { grant_type: 'client_credentials', client_id: flags.clientId, client_secret: flags.clientSecret })).access_token;
}

/** RFC 7591 dynamic registration at /connect/register of any running server, as a program would register itself. */
async function registerDynamically(ctx: Ctx, name: string | undefined, flags: RegisterFlags) {
  const token = await initialAccessTokenOf(ctx, flags);
  const json = {
    ...metadataOf({ ...flags, name: nameOf(name, 'client_name') ?? flags.name }),
    ...(flags.application !== undefined && { application: flags.application }),
  };
  const body = (await ctx.call({ method: 'POST', path: '/connect/register', json, ...(token === undefined ? { auth: false } : { token }) })) as Record<
    string,
    unknown
  >;
  return { json: body, view: { kind: 'record' as const, record: body, keys: REGISTERED_KEYS }, quiet: String(body.client_id ?? '') };
}

async function list(ctx: Ctx) {
  const body = await ctx.call({ method: 'GET', path: clientsPath(ctx) });
  const rows = clientsOf(body);
  const columns = ['client_id', 'client_name', 'token_endpoint_auth_method', 'grant_types'].map((key) => ({ key }));
  return {
    json: body,
    view: { kind: 'table' as const, columns, rows, empty: 'no clients' },
    quiet: rows.map((row) => String(row.client_id)).join('\n') || undefined,
  };
}

async function get(ctx: Ctx, id: string) {
  return clientResult(await ctx.call({ method: 'GET', path: `${clientsPath(ctx)}/${encodeURIComponent(id)}` }));
}

/** What the server assigns; a PUT never sends it back. */
const ASSIGNED = new Set([
  'uuid',
  'type',
  'client_id',
  'client_Id',
  'client_secret',
  'client_id_issued_at',
  'client_secret_expires_at',
  'created',
  'modified',
  'metadata',
]);

/**
 * RFC 7592 2.2: PUT replaces the whole registration, so the current metadata is read first and
 * only what was given on the command line changes.
 */
async function update(ctx: Ctx, id: string, flags: ClientFlags) {
  const path = `${clientsPath(ctx)}/${encodeURIComponent(id)}`;
  const current = clientsOf(await ctx.call({ method: 'GET', path }))[0] ?? {};
  const kept = Object.fromEntries(Object.entries(current).filter(([key]) => !ASSIGNED.has(key)));
  return clientResult(await ctx.call({ method: 'PUT', path, json: { ...kept, ...metadataOf(flags) } }));
}

async function remove(ctx: Ctx, id: string, flags: { yes?: boolean }) {
  await confirmOrYes(flags.yes, `Delete client ${id}? Its tokens stop working`);
  const body = await ctx.call({ method: 'DELETE', path: `${clientsPath(ctx)}/${encodeURIComponent(id)}` });
  return messageOf(body, `deleted client ${id}`);
}

const collect = (value: string, previous: string[]) => [...previous, value];

function metadataOptions(command: Command): Command {
  return command
    .option('--redirect-uri <uri>', 'allowed redirect URI (repeatable)', collect, [])
    .option('--post-logout-redirect-uri <uri>', 'allowed post-logout redirect URI (repeatable)', collect, [])
    .option(
      '--grant-type <type>',
      'authorization_code, client_credentials, password, refresh_token, urn:ietf:params:oauth:grant-type:token-exchange (repeatable)',
      collect,
      [],
    )
    .option('--response-type <type>', 'code, id_token, token, code token, … (repeatable)', collect, [])
    .option('--scope <scopes>', 'space-separated allowed scopes, e.g. "openid profile email api"')
    .option('--auth-method <method>', 'client_secret_basic, client_secret_post, client_secret_jwt, private_key_jwt (with --jwks-uri or jwks in --data) or none')
    .option('--jwks-uri <url>', "where the client's public keys are (https), for private_key_jwt and signed request objects")
    .option('--public', 'a public client (token_endpoint_auth_method none, no secret)')
    .option('--require-pkce', 'require PKCE (default for public clients)')
    .option('--no-require-pkce', 'do not require PKCE')
    .option('--require-consent', 'ask users for consent (default)')
    .option('--no-require-consent', 'skip the consent page')
    .option('--allow-plain-pkce', 'accept code_challenge_method=plain')
    .option('--backchannel-logout-uri <url>', 'where logout tokens are posted when a user signs out (OIDC Back-Channel Logout)')
    .option('--backchannel-logout-session-required', 'logout tokens must carry the session id (sid)')
    .option('--frontchannel-logout-uri <url>', 'page the logout page loads in an iframe (OIDC Front-Channel Logout)')
    .option('--frontchannel-logout-session-required', 'the front-channel page gets iss and sid in its query')
    .option('--identity-provider <name>', 'external provider allowed with acr_values=idp:NAME (repeatable)', collect, [])
    .option('--subject-type <type>', "public (the user's id as sub, default) or pairwise (a sub of the client's sector)")
    .option('--sector-identifier-uri <url>', "https URL of a JSON array of the client's redirect URIs; its host is the pairwise sector")
    .option('-d, --data <json>', 'further RFC 7591 metadata as a JSON object, or @FILE');
}

export function register(noun: Command): void {
  const client = examples(noun.description('OAuth/OIDC clients of an application (--org, --app)'), 'idp client list --org demo --app sandbox');
  examples(
    metadataOptions(
      client
        .command('create')
        .description('register a client; the answer carries its client_id and, for confidential clients, client_secret')
        .argument('[name]', 'client name, alone or as client_name=VALUE (asked on a terminal)'),
    ).action(act(create)),
    'idp client create web --redirect-uri https://app.example.com/callback --grant-type authorization_code --grant-type refresh_token --scope "openid profile api"',
    'idp client create spa --public --redirect-uri http://127.0.0.1:5173/cb --grant-type authorization_code',
  );
  examples(
    metadataOptions(
      client
        .command('register')
        .description(
          'register a client at /connect/register (RFC 7591) with an initial access token, application credentials, or open registration; prints client_id, client_secret and the registration access token',
        )
        .argument('[name]', 'client name, alone or as client_name=VALUE'),
    )
      .addOption(new Option('--initial-access-token <token>', 'an initial access token minted for the application').env('IDP_INITIAL_ACCESS_TOKEN'))
      .addOption(new Option('--client-id <id>', "the application's credentials: client id").env('IDP_CLIENT_ID'))
      .addOption(new Option('--client-secret <secret>', "the application's credentials: client secret").env('IDP_CLIENT_SECRET'))
      .option('--application <org/app>', 'the application to join by open registration (no token)')
      .action(act(registerDynamically)),
    'idp client register web --client-id YXA6… --client-secret YXA6… --redirect-uri https://app.example.com/cb -o json',
    'idp client register cli --initial-access-token "$IAT" --public --redirect-uri http://127.0.0.1/cb',
  );
  examples(client.command('list').description('list the clients of the application').action(act(list)), 'idp client list --json');
  examples(client.command('get').description('show a client').argument('<client-id>', 'client_id').action(act(get)), 'idp client get 3f6c…');
  examples(
    metadataOptions(
      client
        .command('update')
        .description('change the metadata of a client (only what is given)')
        .argument('<client-id>', 'client_id')
        .option('--name <name>', 'client name'),
    ).action(act(update)),
    'idp client update 3f6c… --redirect-uri https://app.example.com/cb2 --no-require-consent',
  );
  examples(
    client
      .command('delete')
      .description('delete a client')
      .argument('<client-id>', 'client_id')
      .option('-y, --yes', 'delete without asking')
      .action(act(remove)),
    'idp client delete 3f6c… --yes',
  );
}
