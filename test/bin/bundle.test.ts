/**
 * Issue 2: bin/idp.js runs the ESM bundle in dist/bundle/ (scripts/build-bundle.js, built by
 * `npm test`), and what only some commands or requests need stays in chunks loaded on demand.
 * A module hook (given through NODE_OPTIONS) reports every file the child loads; each loaded
 * chunk is then searched for the `// node_modules/<package>/…` comments esbuild writes above
 * the code of each bundled module.
 */
import { readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runIdp, startIdp } from '../spawn.js';

const root = join(import.meta.dirname, '..', '..');
const MARK = 'idp-test-loaded ';
// Runs in the hooks' own thread; _rawDebug writes to stderr at once, from any thread.
const hooks = `export async function load(url, context, next) { if (url.startsWith('file:')) process._rawDebug(${JSON.stringify(MARK)} + url); return next(url, context); }`;
const registration = `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)});`;
const env = { NODE_OPTIONS: `--import=data:text/javascript,${encodeURIComponent(registration)}` };

/** Package-root-relative paths of the files a child loaded, from its stderr. */
function loaded(stderr: string): string[] {
  return stderr
    .split('\n')
    .filter((line) => line.startsWith(MARK))
    .map((line) => relative(root, fileURLToPath(line.slice(MARK.length))).split(sep).join('/'));
}

/** The bundled packages among `files` (dist/bundle files only). */
function bundledPackages(files: string[]): Set<string> {
  const packages = new Set<string>();
  for (const file of files.filter((name) => name.startsWith('dist/bundle/'))) {
    for (const match of readFileSync(join(root, file), 'utf8').matchAll(/^\/\/ node_modules\/((?:@[^/\n]+\/)?[^/\n]+)\//gm)) packages.add(match[1]);
  }
  return packages;
}

describe('the bundle bin/idp.js runs', () => {
  it('starts `serve` from a few bundle files, without the mailer, the relying-party client or the CLI client', async () => {
    const idp = await startIdp(['--port', '0', '--db', ':memory:', '--log-level', 'warn'], env);
    try {
      const files = loaded(idp.stderr());
      expect(files.slice(0, 2)).toEqual(['bin/idp.js', 'dist/bundle/idp.js']);
      // Nothing of tsc's output; better-sqlite3 (native) is the one package left to node_modules.
      expect(files.filter((file) => !file.startsWith('dist/bundle/') && file !== 'bin/idp.js')).toEqual(['node_modules/better-sqlite3/lib/index.js']);
      expect(files.length).toBeLessThan(40);
      const packages = bundledPackages(files);
      expect(packages).toContain('hono');
      expect(packages).toContain('drizzle-orm');
      for (const lazy of ['nodemailer', 'openid-client', 'oauth4webapi', 'undici', '@inquirer/core', 'pg']) expect(packages, lazy).not.toContain(lazy);
    } finally {
      await idp.stop();
    }
  });

  it('shows `idp --help` with commander alone', async () => {
    const { code, stdout, stderr } = await runIdp(['--help'], env);
    expect(code).toBe(0);
    expect(stdout).toContain('Usage: idp');
    expect([...bundledPackages(loaded(stderr))]).toEqual(['commander']);
  });
});
