/**
 * bin/code-cache.cjs, which runs dist/bundle/serve.cjs with a V8 code cache. Each case
 * runs a small CommonJS file in a child Node (the cache is written as that process exits) and
 * reads what the file computed and what became of the cache.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const LOADER = join(import.meta.dirname, '..', '..', 'bin', 'code-cache.cjs');

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'idp-code-cache-'));
  file = join(dir, 'program.cjs');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A program whose export depends on `word`; same length for every 5-letter word. */
function writeProgram(word: string): void {
  writeFileSync(
    file,
    `const path = require('node:path');\nfunction greet(name) { return '${word}, ' + name + ' from ' + path.basename(__filename); }\nexports.greeting = greet('idp');\n`,
  );
}

/** What hasCodeCache says of the program, asked in a new process like bin/idp.js asks it. */
function hasCache(): boolean {
  const result = spawnSync(process.execPath, ['-e', `process.stdout.write(String(require(${JSON.stringify(LOADER)}).hasCodeCache(${JSON.stringify(file)})))`], {
    encoding: 'utf8',
  });
  return result.stdout === 'true';
}

/** Loads the program in a new process: its greeting and the cache's status. */
function load(writeCache = false): { greeting: string; cache: string } {
  const script = `const { exports, cache } = require(${JSON.stringify(LOADER)}).loadWithCodeCache(${JSON.stringify(file)}, { writeCache: ${writeCache} }); process.stdout.write(JSON.stringify({ greeting: exports.greeting, cache }));`;
  const result = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  return JSON.parse(result.stdout);
}

describe('bin/code-cache.cjs', () => {
  it('runs the file without a cache, writes one on exit when asked, and the next run takes it', () => {
    writeProgram('hello');
    expect(load()).toEqual({ greeting: 'hello, idp from program.cjs', cache: 'absent' });
    expect(existsSync(`${file}.cache`)).toBe(false);
    expect(hasCache()).toBe(false);

    expect(load(true)).toEqual({ greeting: 'hello, idp from program.cjs', cache: 'absent' });
    expect(statSync(`${file}.cache`).size).toBeGreaterThan(16);
    expect(hasCache()).toBe(true);
    expect(load()).toEqual({ greeting: 'hello, idp from program.cjs', cache: 'accepted' });
  });

  it('ignores a cache made from another version of the file, even one of the same length', () => {
    writeProgram('hello');
    load(true);
    writeProgram('howdy');
    // A different modification time, whatever the file system's clock resolution.
    const { mtime } = statSync(file);
    utimesSync(file, mtime, new Date(mtime.getTime() + 5_000));
    expect(hasCache()).toBe(false);
    expect(load()).toEqual({ greeting: 'howdy, idp from program.cjs', cache: 'stale' });
  });

  it('runs the file when V8 refuses the cache, and says so', () => {
    writeProgram('hello');
    load(true);
    const cache = readFileSync(`${file}.cache`);
    // The header (the file's mtime and size) still matches; V8's own data is damaged.
    cache.fill(0x5a, 16, 48);
    writeFileSync(`${file}.cache`, cache);
    expect(load()).toEqual({ greeting: 'hello, idp from program.cjs', cache: 'rejected' });
  });
});
