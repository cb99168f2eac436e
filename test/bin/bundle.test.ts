/**
 * bin/idp.js runs the bundles in dist/bundle/ (scripts/build-bundle.js, built by
 * `npm test`): `serve` the CommonJS one with its V8 code cache, every other command the ESM one,
 * where what only some commands need stays in chunks loaded on demand.
 * A module hook (given through NODE_OPTIONS) reports every file the child loads; each loaded
 * chunk is then searched for the `// node_modules/<package>/…` comments esbuild writes above
 * the code of each bundled module.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runIdp, startIdp } from '../spawn.js';

const root = join(import.meta.dirname, '..', '..');
const MARK = 'idp-test-loaded ';
// Synchronous hooks run on the loading thread, so each line is on stderr before the next
// module loads, however soon the child exits (hooks given to `register` run on a thread of their
// own, whose lines a quick exit can lose).
const registration = `import { registerHooks } from 'node:module'; registerHooks({ load(url, context, next) { if (url.startsWith('file:')) process._rawDebug(${JSON.stringify(MARK)} + url); return next(url, context); } });`;
const env = { NODE_OPTIONS: `--import=data:text/javascript,${encodeURIComponent(registration)}` };

/** Package-root-relative paths of the files a child loaded, from its stderr. */
function loaded(stderr: string): string[] {
  return stderr
    .split('\n')
    .filter((line) => line.startsWith(MARK))
    .map((line) =>
      relative(root, fileURLToPath(line.slice(MARK.length)))
        .split(sep)
        .join('/'),
    );
}

/**
 * The bundled packages among `files` (dist/bundle files only): esbuild names each module by its
 * real path relative to the project, which is `../…` where node_modules is a link (scripts/test-node.js).
 */
function bundledPackages(files: string[]): Set<string> {
  const packages = new Set<string>();
  for (const file of files.filter((name) => name.startsWith('dist/bundle/'))) {
    for (const [, path] of readFileSync(join(root, file), 'utf8').matchAll(/^\/\/ ((?:node_modules|\.\.)\/\S+)$/gm)) {
      const name = resolve(root, path).match(/.*\/node_modules\/((?:@[^/]+\/)?[^/]+)\//)?.[1];
      if (name !== undefined) packages.add(name);
    }
  }
  return packages;
}

describe('the bundles bin/idp.js runs', () => {
  it('starts `serve` from dist/bundle/serve.cjs with the code cache the build made, and no ES module of the bundle', async () => {
    const idp = await startIdp(['--port', '0', '--db', ':memory:', '--log-level', 'debug'], env);
    try {
      // bin/ and the server's packages (better-sqlite3's JavaScript, which the bundle requires),
      // but nothing of dist/bundle/idp.js or its chunks: serve.cjs is compiled from its cache,
      // which no hook sees.
      const files = loaded(idp.stderr());
      expect(files[0]).toBe('bin/idp.js');
      expect(files.filter((file) => !file.startsWith('bin/') && !file.startsWith('node_modules/better-sqlite3/'))).toEqual([]);
      // The log is written asynchronously: its line may follow the `listening on` line.
      const [line] = await idp.stderrMatch(/^.*server code loaded.*$/m);
      expect(JSON.parse(line)).toMatchObject({ codeCache: 'accepted', msg: 'server code loaded from dist/bundle/serve.cjs' });
      expect((await fetch(`${idp.url}/status`)).status).toBe(200);
    } finally {
      await idp.stop();
    }
  });

  it('serves from dist/bundle/idp.js when serve.cjs has no cache that fits it, and checks passwords there too', async () => {
    // An installed copy whose files got new modification times (npm's packages carry one fixed
    // date) has no cache that fits: bin/ beside a dist/bundle/ holding idp.js alone.
    const copy = mkdtempSync(join(tmpdir(), 'idp-esm-serve-'));
    cpSync(join(root, 'bin'), join(copy, 'bin'), { recursive: true });
    mkdirSync(join(copy, 'dist', 'bundle'), { recursive: true });
    symlinkSync(join(root, 'dist', 'bundle', 'idp.js'), join(copy, 'dist', 'bundle', 'idp.js'));
    const idp = await startIdp(['--port', '0', '--db', ':memory:'], env, 15_000, [process.execPath, join(copy, 'bin', 'idp.js')]);
    try {
      expect(bundledPackages(loaded(idp.stderr()))).toContain('hono');
      const create = (password: string) =>
        fetch(`${idp.url}/management/orgs`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ organization: 'esm', username: 'esm-admin', name: 'Esm Admin', email: 'esm@example.com', password }),
        });
      const common = await create('password1');
      expect(common.status).toBe(400);
      expect(await common.json()).toMatchObject({ error: 'illegal_argument' });
      expect((await create('Correct-horse-battery-9')).status).toBe(200);
    } finally {
      await idp.stop();
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it('runs a CLI command from dist/bundle/idp.js and only the chunks it needs, without the server', async () => {
    const { code, stdout, stderr } = await runIdp(['keys', '--help'], env);
    expect(code).toBe(0);
    expect(stdout).toContain('Usage: idp keys');
    const files = loaded(stderr);
    expect(files[0]).toBe('bin/idp.js');
    expect(files.find((file) => file.startsWith('dist/'))).toBe('dist/bundle/idp.js');
    expect(files.filter((file) => !file.startsWith('dist/bundle/') && !file.startsWith('bin/'))).toEqual([]);
    expect(files.length).toBeLessThan(20);
    const packages = bundledPackages(files);
    for (const lazy of ['hono', 'drizzle-orm', 'nodemailer', 'openid-client', 'undici', 'pg']) expect(packages, lazy).not.toContain(lazy);
  });

  it('shows `idp --help` with commander alone', async () => {
    const { code, stdout, stderr } = await runIdp(['--help'], env);
    expect(code).toBe(0);
    expect(stdout).toContain('Usage: idp');
    expect([...bundledPackages(loaded(stderr))]).toEqual(['commander']);
  });
});
