import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildFullProgram } from '../../commands/index.js';
import { printResult, renderView, styleFor, tableOf } from '../../commands/client/output.js';
import { parseEntityBody, parseProperties } from '../../commands/client/data.js';
import { completionScript } from '../../commands/completion.js';
import { runIdp } from '../spawn.js';

/** A stand-in for process.stdout that records what is written. */
function fakeStream(isTTY: boolean) {
  let text = '';
  const stream = { isTTY, columns: 80, write: (chunk: string) => ((text += chunk), true) } as unknown as NodeJS.WriteStream;
  return { stream, text: () => text };
}

const body = {
  action: 'get',
  entities: [
    { name: 'fido', uuid: 'u-1', age: 3 },
    { name: 'rex', uuid: 'u-2', tags: ['a'] },
  ],
  count: 2,
};

describe('the printer', () => {
  it('--json prints the server JSON and nothing else; --quiet the essential value', () => {
    const json = fakeStream(true);
    printResult(tableOf(body, ['name', 'uuid']), { json: true, quiet: false }, json.stream);
    expect(JSON.parse(json.text())).toEqual(body);
    const quiet = fakeStream(false);
    printResult(tableOf(body, ['name', 'uuid']), { json: false, quiet: true }, quiet.stream);
    expect(quiet.text()).toBe('fido\nrex\n');
  });

  it('prints tables, bold headers only on a terminal and never with NO_COLOR', () => {
    const view = tableOf(body, ['name', 'tags']).view;
    expect(renderView(view, styleFor(fakeStream(false).stream, {}))).toBe('NAME  TAGS\nfido  \nrex   ["a"]');
    expect(renderView(view, styleFor(fakeStream(true).stream, {}))).toContain('\u001b[1mNAME  TAGS\u001b[22m');
    expect(renderView(view, styleFor(fakeStream(true).stream, { NO_COLOR: '1' }))).not.toContain('\u001b[');
    expect(renderView({ kind: 'table', columns: [{ key: 'name' }], rows: [], empty: 'no dogs' }, styleFor(fakeStream(false).stream, {}))).toBe('no dogs');
  });
});

describe('properties from the command line', () => {
  it('parses NAME=VALUE as JSON when it parses, dotted names as nested objects, merged over --data', () => {
    expect(
      parseProperties(['name=fido', 'age=3', 'good=true', 'tags=["a"]', 'loc.lat=52.5', 'note=hello world', 'id=007x'], '{"color":"black","loc":{"lon":13.4}}'),
    ).toEqual({
      color: 'black',
      loc: { lat: 52.5, lon: 13.4 },
      name: 'fido',
      age: 3,
      good: true,
      tags: ['a'],
      note: 'hello world',
      id: '007x',
    });
    expect(() => parseProperties(['novalue'])).toThrow(/NAME=VALUE/);
    expect(() => parseProperties([], '[1]')).toThrow(/JSON object/);
    expect(parseEntityBody([], '[{"name":"a"},{"name":"b"}]')).toHaveLength(2);
    const dir = mkdtempSync(join(tmpdir(), 'idp-data-'));
    writeFileSync(join(dir, 'dog.json'), '{"name":"file-dog"}');
    expect(parseProperties([], `@${join(dir, 'dog.json')}`)).toEqual({ name: 'file-dog' });
  });
});

describe('shell completion', () => {
  it('generates scripts for bash, zsh and fish from the command tree; bash parses them', async () => {
    const program = await buildFullProgram();
    const bash = completionScript(program, 'bash');
    expect(bash).toContain('complete -F _idp idp');
    expect(bash).toMatch(/ {4}entity\)\n {6}case "\$verb" in\n {8}''\) words="create list get update delete connect disconnect connections /);
    const dir = mkdtempSync(join(tmpdir(), 'idp-completion-'));
    writeFileSync(join(dir, 'idp.bash'), bash);
    execFileSync('bash', ['-n', join(dir, 'idp.bash')]);
    // Completing `idp app d` offers delete.
    const offered = execFileSync(
      'bash',
      ['-c', `source ${join(dir, 'idp.bash')}; COMP_WORDS=(idp --org demo app d); COMP_CWORD=4; _idp; echo "\${COMPREPLY[@]}"`],
      { encoding: 'utf8' },
    );
    expect(offered.trim()).toBe('delete');
    expect(completionScript(program, 'zsh')).toMatch(/^#compdef idp\n/);
    expect(completionScript(program, 'fish')).toContain("complete -c idp -n '__fish_use_subcommand' -a fixtures -d 'fixtures files against a running server'");
  });

  it('`idp completion bash` prints the script of the whole program, every noun loaded first', async () => {
    const { code, stdout, stderr } = await runIdp(['completion', 'bash']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout.trimEnd()).toBe(completionScript(await buildFullProgram(), 'bash').trimEnd());
  });
});
