/**
 * The `idp` program. Nouns are listed here with a one-line summary; a noun's module (its verbs,
 * the HTTP client, prompts) is imported only when that noun is run, so `idp --help` loads
 * nothing but commander. One catch at the top turns errors into `error: …` (and with --json one
 * JSON object on stdout) and an exit code (commands/client/errors.ts).
 */
import { Command, CommanderError, Option } from 'commander';
import { failureOf, PartialFailure } from './client/errors.js';
import { FORMATS } from './client/output.js';
import { VERSION } from '../src/version.js';
import type { NounModule } from './client/run.js';
import { registerTokenCode } from './token-code.js';
import { registerKeys } from './keys.js';

interface Noun {
  name: string;
  summary: string;
  load(): Promise<NounModule>;
  /** It describes the whole program (shell completion): every noun is loaded before it runs. */
  wholeProgram?: true;
}

export const NOUNS: Noun[] = [
  { name: 'serve', summary: 'run the identity provider and application backend', load: () => import('./serve.js') },
  { name: 'db', summary: 'the database itself: schema version, migrate, export to a portable dump, import', load: () => import('./db.js') },
  { name: 'login', summary: 'sign in as an admin user and save the tokens in the profile', load: () => import('./login.js') },
  { name: 'logout', summary: 'forget (and revoke) the tokens of the profile', load: () => import('./logout.js') },
  { name: 'token', summary: 'get tokens from /connect/token: client-credentials, password, refresh, exchange', load: () => import('./token.js') },
  { name: 'org', summary: 'organizations: create, get, credentials, feed', load: () => import('./org.js') },
  { name: 'app', summary: 'applications of an organization: create, list, get, update, delete, credentials', load: () => import('./app.js') },
  { name: 'client', summary: 'OAuth/OIDC clients of an application', load: () => import('./client.js') },
  { name: 'admin', summary: 'admin users: create, get, list, add, remove, password', load: () => import('./admin.js') },
  { name: 'user', summary: 'users of an application', load: () => import('./user.js') },
  { name: 'entity', summary: 'entities of any collection, and their connections', load: () => import('./entity.js') },
  { name: 'group', summary: 'groups of an application and their members', load: () => import('./group.js') },
  { name: 'role', summary: 'roles, their permissions and members', load: () => import('./role.js') },
  { name: 'activity', summary: 'post activities to a user or group', load: () => import('./activity.js') },
  { name: 'feed', summary: "read a user's or group's activity feed", load: () => import('./feed.js') },
  { name: 'event', summary: 'record events', load: () => import('./event.js') },
  { name: 'notifier', summary: 'push notifiers (APNs, FCM) of an application', load: () => import('./notifier.js') },
  { name: 'device', summary: 'devices and their push tokens', load: () => import('./device.js') },
  { name: 'notify', summary: 'push notifications: send, schedule, cancel, list, receipts', load: () => import('./notify.js') },
  { name: 'fixtures', summary: 'apply a fixtures file to a running server', load: () => import('./fixtures.js') },
  { name: 'config', summary: 'profile settings: url, org, app', load: () => import('./config.js') },
  { name: 'completion', summary: 'print a shell completion script: bash, zsh or fish', load: () => import('./completion.js'), wholeProgram: true },
  { name: 'routes', summary: 'list every HTTP route of the server and the file that declares it', load: () => import('./routes.js') },
];

export function addGlobalOptions(program: Command): Command {
  return program
    .addOption(new Option('--url <url>', 'server URL (default http://127.0.0.1:8080)').env('IDP_URL'))
    .addOption(new Option('--token <token>', "access token to send instead of the profile's").env('IDP_TOKEN'))
    .addOption(new Option('--profile <name>', 'saved profile under $XDG_CONFIG_HOME/idp/ (default "default")').env('IDP_PROFILE'))
    .addOption(new Option('--org <org>', 'organization name or uuid').env('IDP_ORG'))
    .addOption(new Option('--app <app>', 'application name or uuid').env('IDP_APP'))
    .option('--json', "print the server's JSON on stdout and nothing else (-o json)")
    .addOption(new Option('-o, --output <format>', "table, wide (every property), or the server's answer as json or yaml").choices(FORMATS))
    .option('--columns <names>', 'the columns of a table: property names, comma-separated (a.b for nested ones)')
    .option('--quiet', 'print only the essential value (a token, a uuid), or nothing');
}

const loaded = new WeakSet<Command>();

/** Adds a noun's verbs, options and action to its command, once. */
async function loadNoun(command: Command): Promise<void> {
  const noun = NOUNS.find((candidate) => candidate.name === command.name());
  if (noun === undefined || loaded.has(command)) return;
  loaded.add(command);
  (await noun.load()).register(command);
}

async function loadNouns(program: Command): Promise<void> {
  await Promise.all(program.commands.map(loadNoun));
}

/** What must be loaded before `command` runs: the noun, or every noun for one that describes the whole program. */
async function loadFor(program: Command, command: Command): Promise<void> {
  const wholeProgram = NOUNS.some((noun) => noun.name === command.name() && noun.wholeProgram);
  await (wholeProgram ? loadNouns(program) : loadNoun(command));
}

// The Node.js too: bin/idp.js may have moved onto the one idp ships (bin/runtime.cjs).
const versionLine = () => `idp ${VERSION} (node ${process.version})`;

/**
 * The program: every noun with its one-line summary. A noun's module is loaded only when the
 * noun is about to run (commander's preSubcommand hook), including for `idp NOUN --help`.
 */
export function buildProgram(): Command {
  const program = addGlobalOptions(
    new Command('idp')
      .description('OAuth 2.0 / OpenID Connect provider and Usergrid-style application backend')
      .version(versionLine(), '-v, --version', 'print the version of idp and of the Node.js running it')
      .exitOverride()
      .showHelpAfterError(),
  );
  for (const noun of NOUNS) program.command(noun.name).description(noun.summary);
  // Verbs defined in their own files: `token code` (the browser flow) joins the token noun,
  // `keys rotate` works on the database file. Both are small and load eagerly.
  registerTokenCode(program);
  registerKeys(program);
  // -V, commander's own spelling, still works for the scripts that used it.
  program.addOption(new Option('-V').hideHelp()).on('option:V', () => {
    process.stdout.write(`${versionLine()}\n`);
    throw new CommanderError(0, 'commander.version', versionLine());
  });
  program
    .command('version')
    .description('print the version of idp and of the Node.js running it')
    .addHelpText('after', '\nExample:\n  $ idp version')
    .action(() => void process.stdout.write(`${versionLine()}\n`));
  program.addHelpText('after', '\nExamples:\n  $ idp login --url http://127.0.0.1:8080 --username demo\n  $ idp app list --json');
  program.hook('preSubcommand', (_program, command) => loadFor(program, command));
  return program;
}

/** The whole tree, every noun loaded: for the help and completion tests. */
export async function buildFullProgram(): Promise<Command> {
  const program = buildProgram();
  await loadNouns(program);
  return program;
}

export async function main(argv: string[]): Promise<number> {
  // `idp … | head`: a reader that has seen enough is not an error.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
  try {
    const program = buildProgram();
    // `idp help NOUN` shows the noun's help without dispatching to it, so no hook loads it.
    const [first, second] = argv.slice(2);
    const helped = first === 'help' ? program.commands.find((command) => command.name() === second) : undefined;
    if (helped !== undefined) await loadNoun(helped);
    await program.parseAsync(argv);
    return 0;
  } catch (error) {
    // --help and --version end through here with code 0.
    if (error instanceof CommanderError && error.exitCode === 0) return 0;
    const { exitCode, ...failure } = failureOf(error);
    // Commander has already written its own `error: …` line and the help.
    if (!(error instanceof CommanderError)) process.stderr.write(`error: ${failure.error_description}\n`);
    // A partial failure's result, on stdout already, is its JSON.
    if (wantsJson(argv) && !(error instanceof PartialFailure)) process.stdout.write(`${JSON.stringify(failure)}\n`);
    return exitCode;
  }
}

/** --json or -o json anywhere before a `--`: known even when parsing the command line failed. */
function wantsJson(argv: string[]): boolean {
  const args = argv.slice(2);
  const end = args.indexOf('--');
  const flags = end < 0 ? args : args.slice(0, end);
  return flags.some(
    (arg, i) => arg === '--json' || arg === '--output=json' || arg === '-ojson' || (['-o', '--output'].includes(arg) && flags[i + 1] === 'json'),
  );
}
