/**
 * The `idp` program. Each noun registers itself from its own file; heavy modules (server,
 * HTTP client) are imported only inside the action that needs them, so `idp --help` is fast.
 * One catch at the top turns errors into `error: …` and an exit code (CONTRACT.md section 5).
 */
import { Command, CommanderError } from 'commander';
import { AppError } from '../src/errors.js';
import { ConfigError } from '../src/config.js';
import { VERSION } from '../src/version.js';
import { registerServe } from './serve.js';
import { registerTokenCode } from './token-code.js';
import { registerKeys } from './keys.js';

export function buildProgram(): Command {
  const program = new Command('idp')
    .description('OAuth 2.0 / OpenID Connect provider and Usergrid-style application backend')
    .version(VERSION)
    .exitOverride()
    .showHelpAfterError();
  registerServe(program);
  registerTokenCode(program);
  registerKeys(program);
  return program;
}

export async function main(argv: string[]): Promise<number> {
  try {
    await buildProgram().parseAsync(argv);
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end through here with code 0; usage mistakes are exit code 2.
      return error.exitCode === 0 ? 0 : 2;
    }
    if (error instanceof ConfigError) {
      process.stderr.write(`error: ${error.message}\n`);
      return 2;
    }
    if (error instanceof AppError) {
      process.stderr.write(`error: ${error.message}\n`);
      return 1;
    }
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}
