/**
 * `idp entity import COLLECTION FILE` against a real `idp serve` (docs/api.md#bulk-import): the
 * file streamed as NDJSON, a JSON array file and stdin too, and a refusal that says where to go
 * on, which --from-line does.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginDemo, startCli, DEMO_FIXTURES, type Cli } from './helpers.js';

let cli: Cli;
let dir: string;
beforeAll(async () => {
  // Batches of 500, so that a refusal leaves earlier batches stored.
  cli = await startCli(['--fixtures', DEMO_FIXTURES], { IDP_IMPORT_BATCH: '500' });
  await loginDemo(cli);
  await cli.run(['config', 'set', 'app', 'sandbox']);
  dir = mkdtempSync(join(tmpdir(), 'idp-import-'));
});
afterAll(async () => {
  await cli.stop();
  rmSync(dir, { recursive: true, force: true });
});

const dog = (i: number) => ({ name: `dog-${i}`, age: i % 7, about: `barks at mail ${i}` });
const ndjson = (items: readonly unknown[]) => `${items.map((item) => JSON.stringify(item)).join('\n')}\n`;

async function count(collection: string, ql = 'select *'): Promise<number> {
  const listed = await cli.json(['entity', 'list', collection, '--ql', ql, '--all']);
  return listed.entities.length;
}

describe('idp entity import', () => {
  it('streams an NDJSON file and says how many it stored', async () => {
    const file = join(dir, 'dogs.ndjson');
    writeFileSync(file, ndjson(Array.from({ length: 1200 }, (_, i) => dog(i))));
    const human = await cli.run(['entity', 'import', 'dogs', file]);
    expect(human.stderr).toBe('');
    expect(human.code).toBe(0);
    expect(human.stdout.trim()).toBe('stored 1200 entities in dogs');
    expect(await count('dogs', 'where age = 3')).toBe(Array.from({ length: 1200 }, (_, i) => i).filter((i) => i % 7 === 3).length);
    expect(await count('dogs', "where about contains 'mail'")).toBe(1200);
  });

  it('reads a JSON array file, and stdin', async () => {
    const file = join(dir, 'cats.json');
    writeFileSync(file, JSON.stringify([{ name: 'tom' }, { name: 'felix' }]));
    const fromFile = await cli.json(['entity', 'import', 'cats', file]);
    expect(fromFile).toMatchObject({ action: 'post', count: 2, path: '/cats' });
    const fromStdin = await cli.json(['entity', 'import', 'cats', '-'], { input: ndjson([{ name: 'garfield' }, { name: 'salem' }, { name: 'luna' }]) });
    expect(fromStdin.count).toBe(3);
    expect(await count('cats')).toBe(5);
  });

  it('stops at a refused line, exits 1 with the line and the --from-line to go on, which stores the rest', async () => {
    const lines: unknown[] = Array.from({ length: 1300 }, (_, i) => ({ name: `bird-${i}` }));
    lines[1099] = { name: 'bird-5' };
    const file = join(dir, 'birds.ndjson');
    writeFileSync(file, ndjson(lines));
    const refused = await cli.run(['entity', 'import', 'birds', file]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain('line 1100');
    expect(refused.stderr).toContain('1000 entities stored');
    expect(refused.stderr).toContain(`correct or remove line 1100, then go on with: idp entity import birds ${file} --from-line 1001`);
    expect(await count('birds')).toBe(1000);

    lines[1099] = { name: 'bird-1099' };
    writeFileSync(file, ndjson(lines));
    const rest = await cli.json(['entity', 'import', 'birds', file, '--from-line', '1001']);
    expect(rest.count).toBe(300);
    expect(await count('birds')).toBe(1300);
  });

  it('refuses what it cannot send as a usage error', async () => {
    expect((await cli.run(['entity', 'import', 'dogs', join(dir, 'missing.ndjson')])).code).toBe(2);
    const file = join(dir, 'bad.json');
    writeFileSync(file, '[{"name": ');
    expect((await cli.run(['entity', 'import', 'dogs', file])).code).toBe(2);
    expect((await cli.run(['entity', 'import', 'dogs', file, '--from-line', 'x'])).code).toBe(2);
  });
});
