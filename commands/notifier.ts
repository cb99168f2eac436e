import { readFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import { act, examples } from './client/run.js';
import { needText } from './client/prompt.js';
import type { Ctx } from './client/context.js';
import { UsageError } from './client/errors.js';
import { recordOf } from './client/output.js';
import { createArguments, nameHint, splitCreateWords } from './client/data.js';
import { addCollectionVerbs, appPath } from './client/collection.js';

const KEYS = ['uuid', 'name', 'provider', 'environment', 'created', 'modified'];

/** `noop` sends nothing: for development and tests (docs/api.md#push-notifications). */
const PROVIDERS = ['apple', 'google', 'noop'];

interface CreateFlags {
  data?: string;
  provider?: string;
  environment?: string;
  p8?: string;
  keyId?: string;
  teamId?: string;
  topic?: string;
  credentials?: string;
}

function readFileFlag(path: string, flag: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`${flag}: cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
}

/**
 * docs/api.md#push-notifications: an `apple` notifier takes the .p8 key (PEM text), keyId, teamId
 * and topic; a `google` one the service-account JSON. The server checks them and never echoes them.
 */
function credentialsOf(flags: CreateFlags): Record<string, unknown> {
  if (flags.provider === 'apple') {
    return {
      ...(flags.p8 && { p8: readFileFlag(flags.p8, '--p8') }),
      ...(flags.keyId && { keyId: flags.keyId }),
      ...(flags.teamId && { teamId: flags.teamId }),
      ...(flags.topic && { topic: flags.topic }),
    };
  }
  if (flags.provider === 'google' && flags.credentials) {
    const text = readFileFlag(flags.credentials, '--credentials');
    try {
      return { credentials: JSON.parse(text) as unknown };
    } catch {
      throw new UsageError(`--credentials: ${flags.credentials} is not valid JSON`);
    }
  }
  return {};
}

async function create(ctx: Ctx, word: string | undefined, words: string[], flags: CreateFlags) {
  const { name, properties } = splitCreateWords([word, ...words], 'name', flags.data);
  const notifierName = await needText(name, 'notifier name', nameHint('name'));
  const given = (key: string) => (properties[key] === undefined ? undefined : String(properties[key]));
  const provider = await needText(flags.provider ?? given('provider'), `provider (${PROVIDERS.join(', ')})`, 'pass --provider');
  const environment = flags.environment ?? given('environment') ?? 'development';
  const json = { ...properties, name: notifierName, provider, environment, ...credentialsOf({ ...flags, provider }) };
  return recordOf(await ctx.call({ method: 'POST', path: appPath(ctx, 'notifiers'), json }), KEYS);
}

export function register(noun: Command): void {
  const notifier = examples(
    noun.description('push notifiers of an application (--org, --app)'),
    'idp notifier create ios --provider apple --p8 AuthKey.p8 --key-id ABC123 --team-id TEAM42 --topic com.example.app',
  );
  examples(
    createArguments(
      notifier.command('create').description('create a notifier (APNs or FCM credentials are checked by the server)'),
      'name',
      'notifier name; devices keep their token in <name>.notifier.id',
    )
      .addOption(new Option('--provider <provider>', 'apple (APNs), google (FCM), or noop (sends nothing; for development)').choices(PROVIDERS))
      .addOption(new Option('--environment <environment>', 'the APNs host to use (default development)').choices(['development', 'production']))
      .option('--p8 <file>', 'apple: the .p8 signing key file')
      .option('--key-id <id>', 'apple: the key id')
      .option('--team-id <id>', 'apple: the team id')
      .option('--topic <topic>', 'apple: the app bundle id')
      .option('--credentials <file>', 'google: the service-account JSON file')
      .action(act(create)),
    'idp notifier create android --provider google --credentials service-account.json --environment production',
    'idp notifier create dev --provider noop',
  );
  addCollectionVerbs(
    notifier,
    { collection: 'notifiers', what: 'notifier', idHelp: 'name or uuid', columns: ['name', 'provider', 'environment', 'uuid'], keys: KEYS, example: 'ios' },
    ['list', 'get', 'delete'],
  );
}
