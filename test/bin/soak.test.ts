/**
 * `npm run soak` (bench/soak.js) for a few seconds against the built `idp serve`: it prepares the
 * application, drives every kind of request without an error, prints its lines and summary, and
 * refuses arguments it does not know.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SOAK = fileURLToPath(new URL('../../bench/soak.js', import.meta.url));

function soak(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [SOAK, ...args], { timeout: 25_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: unknown }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('npm run soak', () => {
  it('runs a short soak without errors and reports memory', async () => {
    const run = await soak('--seconds', '4', '--interval', '2', '--rate', '20');
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^prepared: 20 users, 20 devices, 100 items; RSS \d+\.\d MB/m);
    // One line each interval: elapsed, RSS median and max, anonymous memory, /status p99, requests, req/s, errors (none).
    expect(run.stdout).toMatch(/^\s+2 s(\s+\d+\.\d){4}\s+\d+\s+\d+\s+0$/m);
    expect(run.stdout).toMatch(/^\d+ s, \d+ requests \(\d+\/s\), 0 errors/m);
    expect(run.stdout).toMatch(/^RSS first \d+\.\d MB, last \d+\.\d MB, max \d+\.\d MB/m);
  }, 30_000);

  it('refuses an argument it does not know, with its usage', async () => {
    const run = await soak('--hours', '1');
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('unknown argument --hours');
    expect(run.stderr).toContain('usage: npm run soak');
  });
});
