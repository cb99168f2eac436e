/**
 * CLI tests run the real executable against a real `idp serve --port 0 --db :memory:` child, one
 * server per test file, with XDG_CONFIG_HOME in a fresh temporary directory so profiles never
 * touch the developer's own. stdin is not a terminal here; test/cli/tty.test.ts drives the
 * prompts through tmux.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runIdp, startIdp, type RunningIdp } from '../spawn.js';

export const DEMO_FIXTURES = fileURLToPath(new URL('../../fixtures/demo.json', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface Cli {
  server: RunningIdp;
  url: string;
  configHome: string;
  /** Runs `idp --url URL ARGS` with this file's config home (and `input` piped to stdin). */
  run(args: string[], options?: { env?: NodeJS.ProcessEnv; input?: string; url?: string | null }): Promise<CliResult>;
  /** Runs with --json and parses stdout; fails the test on a non-zero exit. */
  json<T = any>(args: string[], options?: { env?: NodeJS.ProcessEnv; input?: string }): Promise<T>;
  stop(): Promise<void>;
}

export async function startCli(serveArgs: string[] = ['--fixtures', DEMO_FIXTURES], serveEnv: NodeJS.ProcessEnv = {}): Promise<Cli> {
  const server = await startIdp(['--port', '0', '--db', ':memory:', '--log-level', 'warn', ...serveArgs], serveEnv);
  const configHome = mkdtempSync(join(tmpdir(), 'idp-cli-'));
  const run: Cli['run'] = (args, options = {}) => {
    const url = options.url === undefined ? server.url : options.url;
    return runIdp([...(url === null ? [] : ['--url', url]), ...args], { XDG_CONFIG_HOME: configHome, NO_COLOR: '1', ...options.env }, 15_000, options.input);
  };
  return {
    server,
    url: server.url,
    configHome,
    run,
    async json(args, options) {
      const result = await run([...args, '--json'], options);
      if (result.code !== 0) throw new Error(`idp ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
      return JSON.parse(result.stdout);
    },
    async stop() {
      await server.stop();
      rmSync(configHome, { recursive: true, force: true });
    },
  };
}

/** Signs the default profile in as the demo admin of fixtures/demo.json. */
export async function loginDemo(cli: Cli, extra: string[] = []): Promise<CliResult> {
  const result = await cli.run(['login', '--username', 'demo', '--password-stdin', ...extra], { input: 'demo-password\n' });
  if (result.code !== 0) throw new Error(`login failed: ${result.stderr}`);
  return result;
}
