/**
 * The README and the program cannot disagree: every `--flag` the README names for a command is
 * in that command's own `--help`, every flag of `idp serve --help` is in the README's serve
 * table, and docs/cli.md (which the README links) is every command's `--help` verbatim, so every
 * flag of every command is documented. After changing a command, `npx vitest run
 * test/cli/readme.test.ts -u` writes docs/cli.md again.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildFullProgram } from '../../commands/index.js';
import { runIdp } from '../spawn.js';

const README = readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');
const CLI_DOC = fileURLToPath(new URL('../../docs/cli.md', import.meta.url));

/** Every command's path below `idp`: `[]` for the program, `['entity']`, `['entity', 'list']`, … */
function commandPaths(command: Command, path: string[] = []): string[][] {
  return [path, ...command.commands.flatMap((sub) => commandPaths(sub, [...path, sub.name()]))];
}

/** The long flags of a help text's Options section. */
function helpFlags(help: string): Set<string> {
  const options = help.split(/^Options:$/m)[1]?.split(/^\S/m)[0] ?? '';
  return new Set([...options.matchAll(/^ {2}(?:-\w, )?(--[a-z][a-z0-9-]*)/gm)].map((match) => match[1]));
}

/** The long flags a piece of markdown names. */
function namedFlags(text: string): string[] {
  return [...text.matchAll(/(?<![\w-])--[a-z][a-z0-9-]*/g)].map((match) => match[0]);
}

/** The text of a README section, from its heading to the next heading of the same level or above. */
function section(heading: string): string {
  const start = README.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`README has no ${heading}`);
  const level = heading.split(' ')[0];
  const rest = README.slice(start + heading.length + 2);
  const end = rest.search(new RegExp(`^#{1,${level.length}} `, 'm'));
  return end < 0 ? rest : rest.slice(0, end);
}

async function mapLimited<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index]);
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
  return results;
}

/** `idp PATH --help` of the real binary, for every command of the program. */
const helps = new Map<string, string>();
const flagsOf = (path: string) => {
  const help = helps.get(path);
  if (help === undefined) throw new Error(`no command idp ${path}`);
  return helpFlags(help);
};

beforeAll(async () => {
  const paths = commandPaths(await buildFullProgram());
  const texts = await mapLimited(paths, 4, async (path) => {
    const { code, stdout, stderr } = await runIdp([...path, '--help']);
    if (code !== 0 || stderr !== '') throw new Error(`idp ${path.join(' ')} --help exited ${code}: ${stderr}`);
    return stdout;
  });
  paths.forEach((path, index) => helps.set(path.join(' '), texts[index]));
}, 60_000);

/** The longest command path that `words` (after `idp`) start with. */
function resolveCommand(words: string[]): string {
  let path = '';
  for (const word of words) {
    const longer = path === '' ? word : `${path} ${word}`;
    if (!helps.has(longer)) break;
    path = longer;
  }
  return path;
}

describe('the README and --help', () => {
  it('the serve table names exactly the flags of `idp serve --help`', () => {
    const table = section('## `idp serve`')
      .split('\n')
      .filter((line) => line.startsWith('| `--'))
      .map((line) => namedFlags(line.split('|')[1])[0]);
    const help = [...flagsOf('serve')].filter((flag) => flag !== '--help');
    expect(table.sort()).toEqual(help.sort());
  });

  it("every flag of the CLI section's table is a flag of that noun, one of its verbs, or global", () => {
    const globals = flagsOf('');
    const rows = section('## The CLI')
      .split('\n')
      .filter((line) => line.startsWith('| `idp '));
    expect(rows.length).toBeGreaterThan(20);
    for (const row of rows) {
      const noun = /^\| `idp ([a-z-]+)/.exec(row)![1];
      const allowed = new Set([
        ...globals,
        ...[...helps.keys()].filter((path) => path === noun || path.startsWith(`${noun} `)).flatMap((path) => [...flagsOf(path)]),
      ]);
      for (const flag of namedFlags(row)) expect(allowed, `${flag} in the README's row of idp ${noun}`).toContain(flag);
    }
  });

  it('the global flags the README lists are the flags of `idp --help`', () => {
    const paragraph = /\*\*Global flags\*\*[^]*?\n\n/.exec(section('## The CLI'))![0];
    const named = new Set(namedFlags(paragraph).filter((flag) => flag !== '--help'));
    expect([...named].sort()).toEqual([...flagsOf('')].filter((flag) => flag !== '--help').sort());
  });

  it("every `idp …` line of the README's examples uses flags of its command", () => {
    const lines = [...README.matchAll(/```sh\n([^]*?)```/g)].flatMap((block) => block[1].split('\n'));
    const invocations = lines
      .map((line) => /(?:^|\s)(?:idp|npx idp|node bin\/idp\.js|\S*idp-linux-x64)\s+(.*)$/.exec(line.replace(/\s+#.*$/, '')))
      .filter((match) => match !== null);
    expect(invocations.length).toBeGreaterThan(10);
    for (const [line, rest] of invocations) {
      const path = resolveCommand(rest.split(/\s+/).filter((word) => !word.startsWith('-')));
      const allowed = new Set([...flagsOf(''), ...flagsOf(path)]);
      for (const flag of namedFlags(rest)) expect(allowed, `${flag} in the README's \`${line.trim()}\``).toContain(flag);
    }
  });

  it('docs/cli.md, which the README links, is the --help of every command', async () => {
    expect(README).toContain('(docs/cli.md)');
    const reference = [
      '# The idp command line',
      '',
      "Every command's `--help`, as `idp` prints it. The [README](../README.md#the-cli) introduces the CLI;",
      'this file is written from the program (`npx vitest run test/cli/readme.test.ts -u`), so it is never out of date.',
      '',
      ...[...helps].flatMap(([path, help]) => [`## idp ${path}`.trimEnd(), '', '```', help.trimEnd(), '```', '']),
    ].join('\n');
    await expect(reference).toMatchFileSnapshot(CLI_DOC);
  });
});
