/**
 * Shell completion as a person meets it: each shell sources the script idp prints and completes
 * commands, flags, profile names and, from the server once signed in, collection names. bash and
 * zsh run in a pseudo-terminal (test/cli/terminal.ts) and are sent Tab; fish answers
 * `complete -C`, its own query of the loaded completions. A shell that is not installed is skipped
 * (`apt-get install zsh fish`).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../spawn.js';
import { loginDemo, startCli, type Cli } from './helpers.js';
import { openTerminal, type Terminal } from './terminal.js';

const work = mkdtempSync(join(tmpdir(), 'idp-completion-'));
const PATH = [join(work, 'bin'), dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(delimiter);
const installed = (shell: string) => spawnSync(shell, ['-c', 'exit 0']).status === 0;

let cli: Cli;
let terminal: Terminal;
let env: Record<string, string>;
beforeAll(async () => {
  cli = await startCli();
  await loginDemo(cli);
  await cli.run(['config', 'set', 'app', 'sandbox']);
  await cli.json(['entity', 'create', 'dogs', 'fido']);
  await cli.json(['entity', 'create', 'ducks', 'donald']);
  // A second profile, never signed in.
  await cli.run(['config', 'set', 'org', 'demo', '--profile', 'stranger']);
  // `idp` on the PATH, as `npm link` puts it there.
  execFileSync('mkdir', ['-p', join(work, 'bin')]);
  symlinkSync(BIN, join(work, 'bin', 'idp'));
  env = { PATH, HOME: work, XDG_CONFIG_HOME: cli.configHome, NO_COLOR: '1' };
  for (const shell of ['bash', 'zsh', 'fish']) {
    writeFileSync(join(work, `idp.${shell}`), execFileSync(join(work, 'bin', 'idp'), ['completion', shell], { env, encoding: 'utf8' }));
  }
  terminal = openTerminal('completion-test');
});
afterAll(async () => {
  terminal.close();
  await cli.stop();
  rmSync(work, { recursive: true, force: true });
});

/**
 * Starts an interactive shell with the completion loaded, types `line` and Tab (twice to list the
 * candidates of an ambiguous word in bash); resolves with the screen once `expected` shows.
 */
async function completeInTerminal(shell: 'bash' | 'zsh', line: string, expected: RegExp, tabs = 1): Promise<string> {
  const command = shell === 'bash' ? 'bash --norc --noprofile' : `env ZDOTDIR=${work} zsh -f`;
  const session = terminal.start(command, { env: { ...env, PS1: '$ ', PROMPT: '$ ' } });
  const load = shell === 'bash' ? `source ${work}/idp.bash` : `autoload -U compinit && compinit -u -d ${work}/zcompdump && source ${work}/idp.zsh`;
  // Typed before the shell shows its prompt, the line is echoed ahead of the prompt and the
  // completed line no longer starts with it: wait for the prompt after the script has loaded.
  terminal.type(session, `${load}; echo loaded-$((6*7))`, 'Enter');
  await terminal.waitFor(session, /^loaded-42\n\$/m);
  terminal.type(session, line, ...Array<string>(tabs).fill('Tab'));
  try {
    return await terminal.waitFor(session, expected);
  } finally {
    terminal.kill(session);
  }
}

/** fish's own answer for the command line `line`: one candidate per line, without descriptions. */
function fishCompletes(line: string): string[] {
  const output = execFileSync('fish', ['--no-config', '-c', `source ${work}/idp.fish; complete -C ${JSON.stringify(line)}`], { env, encoding: 'utf8' });
  return output
    .split('\n')
    .filter(Boolean)
    .map((candidate) => candidate.split('\t')[0]);
}

describe('completion in each shell', () => {
  it('bash completes verbs, flags, profile names and the collections on the server', async () => {
    expect(await completeInTerminal('bash', 'idp entity list d', /devices +dogs +ducks/, 2)).not.toMatch(/users/);
    expect(await completeInTerminal('bash', 'idp app del', /^\$ idp app delete$/m)).toBeTruthy();
    expect(await completeInTerminal('bash', 'idp --profile str', /^\$ idp --profile stranger$/m)).toBeTruthy();
    expect(await completeInTerminal('bash', 'idp entity list --al', /^\$ idp entity list --all$/m)).toBeTruthy();
  });

  it('zsh completes the same', async (context) => {
    context.skip(!installed('zsh'), 'zsh is not installed');
    expect(await completeInTerminal('zsh', 'idp entity get du', /^\$ idp entity get ducks$/m)).toBeTruthy();
    expect(await completeInTerminal('zsh', 'idp --profile str', /^\$ idp --profile stranger$/m)).toBeTruthy();
    expect(await completeInTerminal('zsh', 'idp notif', /notifier +-- push notifiers[^]*notify +-- push notifications/)).toBeTruthy();
  });

  it('fish completes the same', (context) => {
    context.skip(!installed('fish'), 'fish is not installed');
    expect(fishCompletes('idp entity list d')).toEqual(expect.arrayContaining(['devices', 'dogs', 'ducks']));
    expect(fishCompletes('idp entity list d')).not.toContain('users');
    expect(fishCompletes('idp --profile ')).toEqual(['default', 'stranger']);
    expect(fishCompletes('idp ap')).toEqual(['app']);
    expect(fishCompletes('idp entity list dogs --a')).toContain('--all');
  });
});

describe('the candidates the scripts ask idp for', () => {
  const candidates = (args: string[]) => spawnSync(join(work, 'bin', 'idp'), args, { env, encoding: 'utf8', timeout: 10_000 });

  it('names the saved profiles, and the collections of the application on the server', () => {
    expect(candidates(['completion', '--candidates', 'profiles']).stdout).toBe('default\nstranger\n');
    const collections = candidates(['completion', '--candidates', 'collections']).stdout.split('\n');
    expect(collections).toEqual(expect.arrayContaining(['dogs', 'ducks', 'users']));
  });

  it('offers nothing, at once and with exit code 0, without a token, an application or a server', () => {
    for (const args of [
      ['--profile', 'stranger', '--app', 'sandbox'],
      ['--app', ''],
      ['--url', 'http://127.0.0.1:9'],
    ]) {
      const started = Date.now();
      const result = candidates([...args, 'completion', '--candidates', 'collections']);
      expect({ args, code: result.status, stdout: result.stdout, stderr: result.stderr }).toEqual({ args, code: 0, stdout: '', stderr: '' });
      expect(Date.now() - started).toBeLessThan(5_000);
    }
  });

  it('a shell is still required without --candidates', () => {
    const result = candidates(['completion']);
    expect(result.status).toBe(2);
    expect(result.stderr).toBe('error: name a shell: bash, zsh, fish\n');
  });
});
