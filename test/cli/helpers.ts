/**
 * CLI tests run the real executable against a real `idp serve --port 0 --db :memory:` child, one
 * server per test file (or a server in the test's process where its clock must move), with
 * XDG_CONFIG_HOME in a fresh temporary directory so profiles never touch the developer's own.
 * stdin is not a terminal here; test/cli/tty.test.ts drives the prompts through tmux.
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

/** The CLI with a config home of its own, against one server. */
export interface CliClient {
  url: string;
  configHome: string;
  /** Runs `idp --url URL ARGS` with this file's config home (and `input` piped to stdin). */
  run(args: string[], options?: { env?: NodeJS.ProcessEnv; input?: string; url?: string | null }): Promise<CliResult>;
  /** Runs with --json and parses stdout; fails the test on a non-zero exit. */
  json<T = any>(args: string[], options?: { env?: NodeJS.ProcessEnv; input?: string }): Promise<T>;
  /** Stops the server and removes the config home. */
  stop(): Promise<void>;
}

/** The CLI against an `idp serve` child of its own. */
export interface Cli extends CliClient {
  server: RunningIdp;
}

export async function startCli(serveArgs: string[] = ['--fixtures', DEMO_FIXTURES], serveEnv: NodeJS.ProcessEnv = {}): Promise<Cli> {
  const server = await startIdp(['--port', '0', '--db', ':memory:', '--log-level', 'warn', ...serveArgs], serveEnv);
  return { server, ...cliAgainst(server.url, () => server.stop()) };
}

/** The CLI against a server already listening at `serverUrl`; `stopServer` stops it. */
export function cliAgainst(serverUrl: string, stopServer: () => Promise<unknown>): CliClient {
  const configHome = mkdtempSync(join(tmpdir(), 'idp-cli-'));
  const run: CliClient['run'] = (args, options = {}) => {
    const url = options.url === undefined ? serverUrl : options.url;
    return runIdp([...(url === null ? [] : ['--url', url]), ...args], { XDG_CONFIG_HOME: configHome, NO_COLOR: '1', ...options.env }, 15_000, options.input);
  };
  return {
    url: serverUrl,
    configHome,
    run,
    async json(args, options) {
      const result = await run([...args, '--json'], options);
      if (result.code !== 0) throw new Error(`idp ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
      return JSON.parse(result.stdout);
    },
    async stop() {
      await stopServer();
      rmSync(configHome, { recursive: true, force: true });
    },
  };
}

/** Signs the default profile in as the demo admin of fixtures/demo.json. */
export async function loginDemo(cli: CliClient, extra: string[] = []): Promise<CliResult> {
  const result = await cli.run(['login', '--username', 'demo', '--password-stdin', ...extra], { input: 'demo-password\n' });
  if (result.code !== 0) throw new Error(`login failed: ${result.stderr}`);
  return result;
}
