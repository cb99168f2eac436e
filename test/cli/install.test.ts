/**
 * `idp` on the PATH from a checkout, the README's way: `npm link` (into a prefix of the test's
 * own, never the machine's global one) and `npx idp`, neither of them building dist/ again; then
 * the README's CLI examples run as written, through that `idp`, in a terminal.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VERSION } from '../../src/version.js';
import { startCli, type Cli } from './helpers.js';
import { openTerminal, type Terminal } from './terminal.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bundle = join(root, 'dist', 'bundle', 'idp.js');
const work = mkdtempSync(join(tmpdir(), 'idp-install-'));
const prefix = join(work, 'prefix');
// The machine's own Node first (it may be older than idp's, which bin/idp.js then moves onto),
// and the test's Node last, for a machine without one.
const PATH = [join(prefix, 'bin'), '/usr/local/bin', '/usr/bin', '/bin', dirname(process.execPath)].join(delimiter);

/** npm with a cache and a global prefix of this test's own, and none of the npm_* variables of the npm running the tests. */
function npm(args: string[]) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_')));
  const npx = args[0] === 'npx';
  const result = spawnSync(npx ? 'npx' : 'npm', npx ? args.slice(1) : args, {
    cwd: root,
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...env, NPM_CONFIG_PREFIX: prefix, npm_config_cache: join(work, 'npm-cache'), npm_config_update_notifier: 'false' },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const builtAt = () => statSync(bundle).mtimeMs;
const versionLine = new RegExp(`^idp ${VERSION.replaceAll('.', '\\.')} \\(node v\\d+\\.\\d+\\.\\d+\\)\\n$`);

let cli: Cli;
let terminal: Terminal;
beforeAll(async () => {
  cli = await startCli();
  terminal = openTerminal('install-test');
});
afterAll(async () => {
  terminal.close();
  await cli.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('idp on the PATH from a checkout', () => {
  it('npm link puts idp in the prefix, which runs from another folder without building again', () => {
    const before = builtAt();
    const linked = npm(['link', '--no-audit', '--no-fund', '--offline']);
    expect(linked.stderr).not.toMatch(/npm error/);
    expect(linked.code).toBe(0);
    expect(existsSync(join(prefix, 'bin', 'idp'))).toBe(true);
    const run = spawnSync(join(prefix, 'bin', 'idp'), ['--version'], { cwd: work, encoding: 'utf8', env: { PATH, HOME: work } });
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(versionLine);
    expect(builtAt()).toBe(before);
  });

  it('npx idp --version prints the version line, also the first time, without building again', () => {
    const before = builtAt();
    const { code, stdout } = npm(['npx', 'idp', '--version']);
    expect(code).toBe(0);
    expect(stdout).toMatch(versionLine);
    expect(builtAt()).toBe(before);
  });

  it("the README's CLI examples run as written", async () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const block = /^## The CLI\n[^]*?```sh\n([^]*?)```/m.exec(readme)![1];
    expect(block).toContain('idp login --url http://127.0.0.1:8080');
    const script = join(work, 'readme-examples.sh');
    writeFileSync(script, `set -eo pipefail\n${block.replaceAll('http://127.0.0.1:8080', cli.url)}`);
    const session = terminal.start(`bash ${script}`, { cwd: root, env: { PATH, HOME: work, XDG_CONFIG_HOME: join(work, 'config'), NO_COLOR: '1' } });
    await terminal.waitFor(session, /password:/);
    terminal.type(session, 'demo-password', 'Enter');
    const screen = await terminal.waitFor(session, /EXIT:\d+/, 60_000);
    expect(screen).toContain('"fido"');
    expect(screen).toContain('stored 2 entities in dogs');
    expect(screen).toMatch(/^created \d+, unchanged \d+, failed 0$/m);
    expect(screen).toContain('EXIT:0');
    terminal.kill(session);
  });
});
