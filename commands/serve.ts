import type { Command } from 'commander';
import { resolveConfig, type ServeFlags } from '../src/config.js';

export function register(noun: Command): void {
  noun
    .description('run the identity provider and application backend')
    .option('--host <host>', 'interface to listen on [IDP_HOST] (default 127.0.0.1)')
    .option('--port <port>', 'port to listen on, 0 = any free port [IDP_PORT] (default 8080)')
    .option('--db <path>', 'SQLite database file or :memory: [IDP_DB] (default ./idp.db)')
    .option('--database-url <url>', 'postgres:// URL instead of SQLite [IDP_DATABASE_URL]')
    .option('--issuer <url>', 'OpenID issuer URL [IDP_ISSUER] (default http://HOST:PORT)')
    .option('--fixtures <file>', 'apply a fixtures file at start, idempotently [IDP_FIXTURES]')
    .option('--signup <mode>', 'open|closed: whether POST /management/orgs needs no token [IDP_SIGNUP] (default open)')
    .option('--superuser <user:password>', 'create or update a sysadmin [IDP_SUPERUSER]')
    .option('--log-level <level>', 'fatal|error|warn|info|debug|trace|silent [IDP_LOG_LEVEL] (default info)')
    .option('--smtp-url <url>', 'outgoing mail server [IDP_SMTP_URL]')
    .addHelpText('after', '\nExample:\n  $ idp serve --port 0 --db :memory: --fixtures fixtures/demo.json')
    .action(async (flags: ServeFlags) => {
      const config = resolveConfig(flags, process.env);
      const { startServer } = await import('../server/serve.js');
      const server = await startServer(config);
      // Install the handlers before announcing the address: a supervisor may signal at once.
      const stopped = new Promise<void>((resolve) => {
        const stop = (signal: NodeJS.Signals) => {
          server.deps.logger.info({ signal }, 'shutting down');
          server.close().then(resolve, resolve);
        };
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      const issuer = server.deps.config.issuer;
      process.stdout.write(`idp ${issuer === server.url ? '' : `(issuer ${issuer}) `}listening on ${server.url}\n`);
      await stopped;
    });
}
