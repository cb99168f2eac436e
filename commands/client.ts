import type { Command } from 'commander';
import { act, examples } from './client/run.js';
import { confirmOrYes, needText } from './client/prompt.js';
import type { Ctx } from './client/context.js';
import { p } from './client/api.js';
import { nameHint, nameOf, parseProperties } from './client/data.js';
import { entitiesOf, messageOf, type Result } from './client/output.js';

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
