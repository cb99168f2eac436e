/**
 * Failures as a person and a script meet them: one `error: …` line on stderr that says what to
 * do next, with --json one `{error, error_description, status}` object on stdout, and an exit
 * code per kind (README "Prompts and exit codes").
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginDemo, startCli, type Cli, type CliResult } from './helpers.js';

let cli: Cli;
beforeAll(async () => {
  cli = await startCli();
});
afterAll(() => cli.stop());

/** The one JSON object a failing command prints with --json. */
function failure(result: CliResult): unknown {
  const lines = result.stdout.trim().split('\n');
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]);
}

describe('exit codes and error objects', () => {
  it('a usage mistake is exit code 2, a usage object with no status', async () => {
    const missing = await cli.run(['entity', 'list', '--json']);
    expect(missing.code).toBe(2);
    expect(failure(missing)).toEqual({ error: 'usage', error_description: "missing required argument 'collection'", status: null });
    const unknown = await cli.run(['entity', 'list', 'dogs', '--frobnicate', '--json']);
    expect(unknown.code).toBe(2);
    expect(failure(unknown)).toMatchObject({ error: 'usage', error_description: "unknown option '--frobnicate'" });
    const noOrg = await cli.run(['app', 'list']);
    expect(noOrg.code).toBe(2);
    expect(noOrg.stdout).toBe('');
    expect(noOrg.stderr).toBe('error: no organization given: pass --org NAME, set IDP_ORG, or run `idp config set org NAME`\n');
  });

  it('without a token it is exit code 3 and says to run idp login, also after logout', async () => {
    const never = await cli.run(['app', 'list', '--org', 'demo']);
    expect(never.code).toBe(3);
    expect(never.stderr).toBe('error: an access token is required: run `idp login` (or pass --token)\n');
    await loginDemo(cli, ['--profile', 'brief']);
    expect((await cli.run(['app', 'list', '--org', 'demo', '--profile', 'brief'])).code).toBe(0);
    expect((await cli.run(['logout', '--profile', 'brief'])).code).toBe(0);
    const after = await cli.run(['app', 'list', '--org', 'demo', '--profile', 'brief', '--json']);
    expect(after.code).toBe(3);
    expect(after.stderr).toContain('run `idp login --profile brief`');
    expect(failure(after)).toEqual({
      error: 'unauthorized',
      error_description: 'an access token is required: run `idp login --profile brief` (or pass --token)',
      status: 401,
    });
    const wrong = await cli.run(['login', '--username', 'demo', '--password-stdin', '--json'], { input: 'not-the-password\n' });
    expect(wrong.code).toBe(3);
    expect(failure(wrong)).toMatchObject({ status: 400 });
  });

  it('wherever a token is missing or refused, the message says how to sign in', async () => {
    const app = ['--org', 'demo', '--app', 'sandbox', '--profile', 'gone'];
    await loginDemo(cli, ['--profile', 'gone']);
    await cli.run(['logout', '--profile', 'gone']);
    const login = 'run `idp login --profile gone`';
    for (const args of [
      ['app', 'list'],
      ['org', 'get', 'demo'],
      ['entity', 'list', 'dogs'],
      ['user', 'delete', 'nobody', '--yes'],
      ['client', 'list'],
      ['notify', 'list'],
    ]) {
      const result = await cli.run([...args, ...app]);
      expect({ args, code: result.code, stderr: result.stderr }).toEqual({ args, code: 3, stderr: expect.stringContaining(login) });
    }
    expect((await cli.run(['token', 'refresh', ...app])).stderr).toBe(`error: no refresh token: pass --refresh-token, or ${login} first\n`);

    // A token given on the command line has nothing to refresh.
    const garbage = await cli.run(['app', 'list', '--org', 'demo', '--token', 'garbage']);
    expect(garbage.code).toBe(3);
    expect(garbage.stderr).toMatch(/: pass a valid --token \(or IDP_TOKEN\), or leave it out and run `idp login`\n$/);

    // The profile signed in elsewhere: the login it needs names this URL.
    await loginDemo(cli);
    const elsewhere = cli.url.replace('127.0.0.1', 'localhost');
    const other = await cli.run(['app', 'list', '--org', 'demo'], { url: elsewhere });
    expect(other.stderr).toContain(`run \`idp login --url ${elsewhere}\``);

    // A spent refresh token: only a new sign-in helps.
    const path = join(cli.configHome, 'idp', 'profiles.json');
    const profiles = JSON.parse(readFileSync(path, 'utf8'));
    writeFileSync(path, JSON.stringify({ ...profiles, default: { ...profiles.default, refresh_token: 'spent' } }));
    const spent = await cli.run(['token', 'refresh']);
    expect(spent.code).toBe(3);
    expect(spent.stderr).toMatch(/: run `idp login` again\n$/);
    await loginDemo(cli);

    // Signed in, but not allowed: an app user's token on the management API.
    await cli.run(['user', 'create', 'plain', '--password-stdin', '--org', 'demo', '--app', 'sandbox'], { input: 'plain-password-1\n' });
    const token = await fetch(`${cli.url}/demo/sandbox/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'password', username: 'plain', password: 'plain-password-1' }),
    }).then(async (response) => ((await response.json()) as { access_token: string }).access_token);
    const forbidden = await cli.run(['app', 'list', '--org', 'demo', '--token', token]);
    expect(forbidden.code).toBe(3);
    expect(forbidden.stderr).toMatch(/: run `idp login` as a user who may, or pass --token\n$/);
  });

  it('a missing thing is exit code 4; a refused request exit code 1', async () => {
    await loginDemo(cli);
    const gone = await cli.run(['entity', 'get', 'dogs', 'nobody', '--org', 'demo', '--app', 'sandbox', '--json']);
    expect(gone.code).toBe(4);
    expect(failure(gone)).toMatchObject({ status: 404, error: expect.stringMatching(/not_found/) });
    expect(gone.stderr).toMatch(/^error: .+\n$/);
    expect((await cli.run(['entity', 'create', 'dogs', 'name=fido', '--org', 'demo', '--app', 'sandbox'])).code).toBe(0);
    const bad = await cli.run(['entity', 'list', 'dogs', '--org', 'demo', '--app', 'sandbox', '--ql', 'where ((', '--json']);
    expect(bad.code).toBe(1);
    expect(failure(bad)).toMatchObject({ status: 400, error: 'query_parse' });
  });

  it('an unreachable server or a server error is exit code 5', async () => {
    const closed = await cli.run(['app', 'list', '--org', 'demo', '--json'], { url: 'http://127.0.0.1:9' });
    expect(closed.code).toBe(5);
    expect(failure(closed)).toEqual({
      error: 'network',
      error_description: 'cannot reach http://127.0.0.1:9: connection refused (is `idp serve` running there?)',
      status: null,
    });
    const down: Server = createServer((_req, res) => {
      res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"unavailable","error_description":"down for maintenance"}');
    });
    await new Promise<void>((resolve) => down.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(down.address() as AddressInfo).port}`;
      const answer = await cli.run(['app', 'list', '--org', 'demo', '--token', 'x', '--json'], { url });
      expect(answer.code).toBe(5);
      expect(failure(answer)).toEqual({ error: 'unavailable', error_description: 'down for maintenance', status: 503 });
      expect(answer.stderr).toBe('error: down for maintenance\n');
    } finally {
      down.close();
    }
  });

  it('idp version and idp -v print the version line, as --version does', async () => {
    const line = /^idp \d+\.\d+\.\d+ \(node v24\.\d+\.\d+\)\n$/;
    for (const args of [['version'], ['-v'], ['--version'], ['-V']]) {
      const result = await cli.run(args, { url: null });
      expect(result).toEqual({ code: 0, stdout: expect.stringMatching(line), stderr: '' });
    }
  });
});
