/** `idp entity upload` and `idp entity download` against a running server (docs/api.md#assets). */
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginDemo, startCli, type Cli } from './helpers.js';

let cli: Cli;
let folder: string;
beforeAll(async () => {
  cli = await startCli();
  await loginDemo(cli);
  await cli.run(['config', 'set', 'app', 'sandbox']);
  folder = mkdtempSync(join(tmpdir(), 'idp-cli-assets-'));
});
afterAll(async () => {
  await cli.stop();
  rmSync(folder, { recursive: true, force: true });
});

describe('entity upload and download', () => {
  it('round-trips a binary file larger than one chunk, byte for byte', async () => {
    const bytes = Buffer.concat([Buffer.from([...Array(256).keys()]), randomBytes(600 * 1024)]);
    const source = join(folder, 'photo.bin');
    writeFileSync(source, bytes);
    const uploaded = await cli.json(['entity', 'upload', 'pictures', 'clouds', source]);
    expect(uploaded.entities[0]).toMatchObject({ name: 'clouds', 'file-metadata': { 'content-length': bytes.length } });
    const target = join(folder, 'copy.bin');
    const saved = await cli.run(['entity', 'download', 'pictures', 'clouds', target]);
    expect(saved.code, saved.stderr).toBe(0);
    expect(saved.stdout).toContain(target);
    expect(readFileSync(target).equals(bytes)).toBe(true);
    expect(existsSync(`${target}.part`)).toBe(false);
  });

  it('downloads to stdout; a missing entity or asset exits 4, a missing file 2', async () => {
    const note = join(folder, 'note.txt');
    writeFileSync(note, 'hello, asset\n');
    expect((await cli.run(['entity', 'upload', 'notes', 'hello', note])).code).toBe(0);
    const out = await cli.run(['entity', 'download', 'notes', 'hello']);
    expect(out).toMatchObject({ code: 0, stdout: 'hello, asset\n' });

    const missing = await cli.run(['entity', 'download', 'notes', 'nobody', join(folder, 'never')]);
    expect(missing.code).toBe(4);
    expect(missing.stderr).toMatch(/^error: /);
    expect(existsSync(join(folder, 'never'))).toBe(false);
    await cli.run(['entity', 'create', 'notes', 'name=empty']);
    expect((await cli.run(['entity', 'download', 'notes', 'empty'])).code).toBe(4);
    const noFile = await cli.run(['entity', 'upload', 'notes', 'hello', join(folder, 'no-such-file')]);
    expect(noFile.code).toBe(2);
    expect(noFile.stderr).toContain('cannot read');
  });

  it('fixtures attach a file named relative to the fixtures file, once; a missing file stops the whole file', async () => {
    const dir = mkdtempSync(join(folder, 'fixtures-'));
    // A whole PNG (header and end), so file-type recognizes it.
    const logo = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000049454e44ae426082', 'hex');
    writeFileSync(join(dir, 'logo.png'), logo);
    const fixtures = (asset: string) => ({
      admins: [{ username: 'pics', name: 'Pics Admin', email: 'pics@example.com', password: 'pics-password' }],
      organizations: [
        { name: 'pics', owner: 'pics', applications: [{ name: 'gallery', collections: { pictures: [{ name: 'logo', title: 'Logo', asset }] } }] },
      ],
    });
    const file = join(dir, 'gallery.json');
    writeFileSync(file, JSON.stringify(fixtures('logo.png')));
    const first = await cli.json(['fixtures', 'apply', file]);
    expect(first).toMatchObject({ created: 4, failed: 0 });
    await cli.run(['login', '--username', 'pics', '--password-stdin', '--profile', 'pics'], { input: 'pics-password' });
    const target = join(dir, 'copy.png');
    const as = ['--profile', 'pics', '--org', 'pics', '--app', 'gallery'];
    expect((await cli.run(['entity', 'download', 'pictures', 'logo', target, ...as])).code).toBe(0);
    expect(readFileSync(target).equals(logo)).toBe(true);
    const picture = await cli.json(['entity', 'get', 'pictures', 'logo', ...as]);
    expect(picture.entities[0]).toMatchObject({ title: 'Logo', 'file-metadata': { 'content-type': 'image/png' } });
    expect(picture.entities[0].asset).toBeUndefined();
    expect(await cli.json(['fixtures', 'apply', file])).toMatchObject({ created: 0, unchanged: 4 });

    writeFileSync(file, JSON.stringify(fixtures('gone.png')));
    const missing = await cli.run(['fixtures', 'apply', file]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('gone.png');
  });
});
