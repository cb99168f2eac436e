import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { buildFullProgram } from '../../commands/index.js';
import { printResult, renderView, styleFor, tableOf } from '../../commands/client/output.js';
import { parseEntityBody, parseProperties } from '../../commands/client/data.js';
import { completionScript } from '../../commands/completion.js';
import { runIdp } from '../spawn.js';
import { loginDemo, startCli, type Cli } from './helpers.js';

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
  it('--json prints the server JSON and nothing else; --quiet the essential value', async () => {
    const json = fakeStream(true);
    await printResult(tableOf(body, ['name', 'uuid']), { format: 'json', quiet: false }, json.stream);
    expect(JSON.parse(json.text())).toEqual(body);
    const quiet = fakeStream(false);
    await printResult(tableOf(body, ['name', 'uuid']), { format: 'table', quiet: true }, quiet.stream);
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
    expect(bash).toMatch(/ {6}entity\)\n {8}case "\$verb" in\n {10}''\) words="create import list get update delete connect disconnect connections /);
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

describe('output keeps what was asked', () => {
  let cli: Cli;
  const app = ['--org', 'demo', '--app', 'sandbox'];
  beforeAll(async () => {
    cli = await startCli();
    await loginDemo(cli);
    await cli.json([
      'entity',
      'create',
      'pets',
      ...app,
      '--data',
      '[{"name":"fido","age":3,"color":"black"},{"name":"rex","age":5,"owner":{"city":"Berlin"}}]',
    ]);
    await cli.json(['user', 'create', 'fred', 'name=Fred Smith', ...app]);
  });
  afterAll(() => cli.stop());

  it('a query that selects properties prints them as the columns', async () => {
    const { code, stdout } = await cli.run(['entity', 'list', 'pets', '--ql', 'select name, age, owner.city where age > 1 order by age asc', ...app]);
    expect(code).toBe(0);
    expect(stdout).toBe('NAME  AGE  OWNER.CITY\nfido  3    \nrex   5    Berlin\n2 shown, no more\n');
  });

  it('--columns chooses the columns of a table and the lines of a record; -o wide shows every property', async () => {
    const columns = await cli.run(['entity', 'list', 'pets', '--ql', 'order by age asc', '--columns', 'name,color', ...app]);
    expect(columns.stdout).toBe('NAME  COLOR\nfido  black\nrex   \n2 shown, no more\n');
    const record = await cli.run(['entity', 'get', 'pets', 'rex', '--columns', 'name,owner.city', ...app]);
    expect(record.stdout).toBe('name        rex\nowner.city  Berlin\n');
    const wide = await cli.run(['entity', 'list', 'pets', '--ql', 'order by age asc', '-o', 'wide', ...app]);
    expect(wide.stdout.split('\n')[0].split(/ +/)).toEqual(['TYPE', 'NAME', 'UUID', 'CREATED', 'MODIFIED', 'AGE', 'COLOR', 'OWNER']);
  });

  it('-o yaml and -o json print the same answer; --json with -o yaml is a usage error', async () => {
    const yaml = await cli.run(['entity', 'list', 'pets', '-o', 'yaml', ...app]);
    expect(yaml.code).toBe(0);
    const json = await cli.run(['entity', 'list', 'pets', '-o', 'json', ...app]);
    const timeless = (answer: Record<string, unknown>) => ({ ...answer, timestamp: 0, duration: 0 });
    expect(timeless(parseYaml(yaml.stdout))).toEqual(timeless(JSON.parse(json.stdout)));
    expect(parseYaml(yaml.stdout).entities.map((pet: { name: string }) => pet.name)).toEqual(['rex', 'fido']);
    const both = await cli.run(['entity', 'list', 'pets', '--json', '-o', 'yaml', ...app]);
    expect(both.code).toBe(2);
    expect(both.stderr).toBe('error: --json and -o yaml ask for two outputs: pass one\n');
    expect((await cli.run(['entity', 'list', 'pets', '-o', 'xml', ...app])).stderr).toMatch(
      /argument 'xml' is invalid. Allowed choices are table, wide, json, yaml/,
    );
  });

  it('user rows show their username, also in lists of any collection and of connections', async () => {
    expect((await cli.run(['user', 'list', ...app])).stdout).toMatch(/^USERNAME +NAME +EMAIL +UUID\nfred +Fred Smith +[0-9a-f-]{36}\n/);
    expect((await cli.run(['entity', 'list', 'users', ...app])).stdout).toMatch(/^TYPE +NAME +UUID +CREATED\nuser +fred +[0-9a-f-]{36} /);
    await cli.json(['entity', 'connect', 'pets', 'rex', 'likes', 'users/fred', ...app]);
    expect((await cli.run(['entity', 'connections', 'pets', 'rex', 'likes', ...app])).stdout).toMatch(/^TYPE +NAME +UUID +CREATED\nuser +fred +/);
  });
});
