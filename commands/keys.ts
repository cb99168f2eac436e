import type { Command } from 'commander';
import { existsSync } from 'node:fs';
import { ConfigError, resolveConfig, type ServeFlags } from '../src/config.js';

type KeysFlags = Pick<ServeFlags, 'db' | 'databaseUrl' | 'accessTokenTtl' | 'idTokenTtl' | 'accessTokenAlg' | 'idTokenAlg'>;

/**
 * `idp keys rotate --db FILE` (or `--database-url URL`): works on the database directly (a running server signs its
 * next token with the new keys). Returns what it did so tests can call it.
 */
export async function rotateKeysCommand(flags: KeysFlags): Promise<{ kids: string[]; retiredUntil: Record<string, number> }> {
  const config = resolveConfig({ ...flags, logLevel: 'silent' }, process.env);
  if (!config.databaseUrl && !existsSync(config.db)) throw new ConfigError(`database ${config.db} does not exist; pass the file idp serve uses with --db`);
  const [{ openDatabase }, { createDeps }, { createLogger }, { rotateSigningKeys }] = await Promise.all([
    import('../src/db/open.js'),
    import('../src/create-deps.js'),
    import('../src/logger.js'),
    import('../src/identity/keys/rotate-keys.js'),
  ]);
  const database = await openDatabase(config.databaseUrl ? { url: config.databaseUrl } : { path: config.db });
  try {
    return await rotateSigningKeys(await createDeps(database.db, config, createLogger('silent')));
  } finally {
    await database.close();
  }
}

export function registerKeys(program: Command): void {
  const keys = program.command('keys').description('token signing keys').addHelpText('after', '\nExample:\n  $ idp keys rotate --db ./idp.db');
  keys
    .command('rotate')
    .description('add new active signing keys; old public keys stay published until their tokens expire')
    .option('--db <path>', 'SQLite database file [IDP_DB] (default ./idp.db)')
    .option('--database-url <url>', 'PostgreSQL instead of the SQLite file [IDP_DATABASE_URL]')
    .option('--access-token-ttl <seconds>', 'access-token lifetime the server uses [IDP_ACCESS_TOKEN_TTL] (default 3600)')
    .option('--id-token-ttl <seconds>', 'ID-token lifetime the server uses [IDP_ID_TOKEN_TTL] (default 300)')
    .option('--access-token-alg <alg>', 'algorithm of the new access-token key [IDP_ACCESS_TOKEN_ALG] (default ES256)')
    .option('--id-token-alg <alg>', 'algorithm of the new ID-token key [IDP_ID_TOKEN_ALG] (default RS256)')
    .option('--json', 'print the result as JSON')
    .addHelpText('after', '\nExample:\n  $ idp keys rotate --db ./idp.db')
    .action(async (flags: KeysFlags & { json?: boolean }) => {
      const result = await rotateKeysCommand(flags);
      if (flags.json) {
        process.stdout.write(`${JSON.stringify(result)}\n`);
        return;
      }
      process.stdout.write(`new signing keys: ${result.kids.join(', ')}\n`);
      for (const [use, until] of Object.entries(result.retiredUntil)) {
        process.stdout.write(`previous ${use} key published until ${new Date(until).toISOString()}\n`);
      }
    });
}
