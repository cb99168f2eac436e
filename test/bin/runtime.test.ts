/**
 * idp runs on the Node.js it ships (bin/runtime.cjs): `idp --version` names it, and bin/idp.js
 * started by an older Node (the machine's, through `node bin/idp.js`, `npx idp` or `npm link`)
 * runs itself again on it, with the same standard input and output, exit code and signals.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, startIdp } from '../spawn.js';

const require = createRequire(import.meta.url);
const root = join(import.meta.dirname, '..', '..');
const pkg = require('../../package.json') as { version: string; engines: { node: string }; optionalDependencies: Record<string, string> };
const { SHIPPED_MAJOR, runtimePackageName, shippedRuntime } = require('../../bin/runtime.cjs') as {
  SHIPPED_MAJOR: number;
  runtimePackageName(platform?: string, arch?: string): string;
  shippedRuntime(): { node: string; version: string } | undefined;
};
const runtime = shippedRuntime();
const major = (version: string) => Number(version.replace(/^v/, '').split('.')[0]);

/** A Node older than the shipped one (the machine's, or IDP_TEST_OLDER_NODE), if there is one. */
function olderNode(): string | undefined {
  for (const candidate of [process.env.IDP_TEST_OLDER_NODE, '/usr/bin/node', '/usr/local/bin/node']) {
    if (!candidate || !existsSync(candidate)) continue;
    const version = spawnSync(candidate, ['--version'], { encoding: 'utf8' }).stdout.trim();
    if (version && major(version) < SHIPPED_MAJOR) return candidate;
  }
  return undefined;
}
const older = olderNode();

const run = (node: string, args: string[], input?: string) =>
  spawnSync(node, [BIN, ...args], { cwd: root, encoding: 'utf8', input, env: { PATH: process.env.PATH, HOME: process.env.HOME } });

const temporary: string[] = [];
afterAll(() => {
  for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
});

describe('the shipped runtime', () => {
  it('is the Node.js of package.json for every platform it names', () => {
    const platforms = Object.entries(pkg.optionalDependencies).filter(([name]) => /^node-/.test(name));
    expect(platforms.map(([name]) => name).sort()).toEqual([runtimePackageName('linux', 'arm64'), runtimePackageName('linux', 'x64')]);
    for (const [, version] of platforms) expect(major(version)).toBe(SHIPPED_MAJOR);
    // Node 22 (the oldest line still maintained), at the release the dependencies' engines ask for.
    expect(pkg.engines.node).toMatch(/^>=22\.\d+\.\d+$/);
  });

  it('--version names idp and the Node.js it runs on', () => {
    const result = run(process.execPath, ['--version']);
    expect({ status: result.status, stdout: result.stdout }).toEqual({ status: 0, stdout: `idp ${pkg.version} (node ${process.version})\n` });
    expect(run(process.execPath, ['-V']).stdout).toBe(result.stdout);
  });
});

describe.skipIf(older === undefined || runtime === undefined)('bin/idp.js started by an older Node.js', () => {
  it('runs on the shipped runtime', () => {
    const result = run(older!, ['--version']);
    expect({ status: result.status, stdout: result.stdout, stderr: result.stderr }).toEqual({
      status: 0,
      stdout: `idp ${pkg.version} (node v${runtime!.version})\n`,
      stderr: '',
    });
  });

  it('keeps the exit code and standard error of a usage mistake', () => {
    const result = run(older!, ['frobnicate']);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("unknown command 'frobnicate'");
    expect(result.stdout).toBe('');
  });

  it('reads standard input and writes standard output as they are', () => {
    const dir = mkdtempSync(join(tmpdir(), 'idp-runtime-'));
    temporary.push(dir);
    expect(run(older!, ['db', 'migrate', '--db', join(dir, 'a.db')]).status).toBe(0);
    const exported = run(older!, ['db', 'export', '--db', join(dir, 'a.db'), '-']);
    expect(exported.status).toBe(0);
    expect(exported.stdout.split('\n').length).toBeGreaterThan(1);
    const imported = run(older!, ['db', 'import', '--db', join(dir, 'b.db'), '-'], exported.stdout);
    expect({ status: imported.status, stderr: imported.stderr }).toEqual({ status: 0, stderr: '' });
    expect(imported.stdout).toMatch(/^imported .* from stdin/);
    const undated = (dump: string) => dump.replace(/"created":"[^"]*"/, '');
    expect(undated(run(older!, ['db', 'export', '--db', join(dir, 'b.db'), '-']).stdout)).toBe(undated(exported.stdout));
  });

  it('stops the server gently on a SIGTERM sent to the process it started with', async () => {
    const idp = await startIdp(['--port', '0', '--db', ':memory:'], {}, 20_000, [older!, BIN]);
    const status = await fetch(`${idp.url}/status`);
    expect(status.status).toBe(200);
    expect(await idp.stop('SIGTERM')).toBe(0);
    expect(idp.stderr()).toMatch(/shutting down/);
  });
});
