/**
 * `idp token code`: the authorization code flow with PKCE and a loopback redirect
 * (RFC 8252 7.3). Prints the URL to open on stderr and the tokens as JSON on stdout.
 */
import type { Command } from 'commander';
import { ConfigError } from '../src/config.js';

interface TokenCodeFlags {
  url?: string;
  clientId?: string;
  clientSecret?: string;
  scope?: string;
  timeout: string;
}

export function registerTokenCode(program: Command): void {
  const token = program.commands.find((command) => command.name() === 'token') ?? program.command('token').description('get tokens from an idp');
  token
    .command('code')
    .description('sign in with a browser: authorization code + PKCE with a loopback redirect on 127.0.0.1')
    .option('--url <url>', 'the idp to sign in at [IDP_URL] (default http://127.0.0.1:8080)')
    .option('--client-id <id>', 'the client (default admin-cli)')
    .option('--client-secret <secret>', 'for confidential clients [IDP_CLIENT_SECRET]')
    .option('--scope <scopes>', 'space-separated scopes (default "openid profile offline_access api")')
    .option('--timeout <seconds>', 'how long to wait for the browser to come back', '300')
    .addHelpText('after', '\nExample:\n  $ idp token code --url http://127.0.0.1:8080 --scope "openid api"')
    .action(async (flags: TokenCodeFlags, command: Command) => {
      const timeout = Number(flags.timeout);
      if (!Number.isInteger(timeout) || timeout < 1) throw new ConfigError(`--timeout must be a whole number of seconds, not '${flags.timeout}'`);
      const { runAuthorizationCodeFlow } = await import('./auth-code-flow.js');
      const tokens = await runAuthorizationCodeFlow({
        // The program's global --url (which also reads IDP_URL) takes the flag wherever it is written.
        issuer: flags.url ?? command.optsWithGlobals<{ url?: string }>().url ?? process.env.IDP_URL ?? 'http://127.0.0.1:8080',
        clientId: flags.clientId,
        clientSecret: flags.clientSecret ?? process.env.IDP_CLIENT_SECRET,
        scope: flags.scope,
        timeoutMs: timeout * 1000,
      });
      process.stdout.write(`${JSON.stringify(tokens, null, 2)}\n`);
    });
}
