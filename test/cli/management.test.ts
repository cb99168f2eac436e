import { readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_FIXTURES, loginDemo, startCli, type Cli } from './helpers.js';

let cli: Cli;
beforeAll(async () => {
  cli = await startCli();
  await loginDemo(cli);
});
afterAll(() => cli.stop());

describe('login, profiles and config', () => {
  it('saves url, user, default organization and tokens in a 0600 profile file', async () => {
    const path = join(cli.configHome, 'idp', 'profiles.json');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(cli.configHome, 'idp')).mode & 0o777).toBe(0o700);
    const profile = JSON.parse(readFileSync(path, 'utf8')).default;
    expect(profile).toMatchObject({ url: cli.url, username: 'demo', org: 'demo' });
    expect(profile.access_token).toMatch(/^ey/);
  });

  it('prints the token response with --json and the access token with --quiet', async () => {
    const login = await cli.run(['login', '--username', 'demo', '--password-stdin', '--profile', 'other', '--json'], { input: 'demo-password' });
    expect(login.code).toBe(0);
    expect(JSON.parse(login.stdout)).toMatchObject({ token_type: 'Bearer', access_token: expect.any(String) });
    const quiet = await cli.run(['login', '--username', 'demo', '--password-stdin', '--profile', 'other', '--quiet'], { input: 'demo-password' });
    expect(quiet.stdout.trim()).toMatch(/^ey[\w-]+\.[\w-]+\.[\w-]+$/);
  });

  it("refuses a wrong password with the server's words and exit code 3", async () => {
    const result = await cli.run(['login', '--username', 'demo', '--password-stdin', '--profile', 'wrong'], { input: 'not-the-password' });
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/^error: .+/);
    expect(result.stdout).toBe('');
  });

  it('sets, gets, lists and unsets settings, never showing tokens', async () => {
    expect((await cli.run(['config', 'set', 'app', 'sandbox'])).code).toBe(0);
    expect((await cli.run(['config', 'get', 'app'])).stdout.trim()).toBe('sandbox');
    const list = await cli.json(['config', 'list']);
    expect(list.default).toMatchObject({ url: cli.url, org: 'demo', app: 'sandbox', username: 'demo', logged_in: true });
    expect(JSON.stringify(list)).not.toContain('access_token');
    expect((await cli.run(['config', 'set', 'color', 'blue'])).code).toBe(2);
    expect((await cli.run(['config', 'set', 'url', 'not a url'])).code).toBe(2);
    await cli.run(['config', 'unset', 'app', '--profile', 'other']);
  });

  it('logs out: tokens are forgotten, settings stay', async () => {
    await cli.run(['login', '--username', 'demo', '--password-stdin', '--profile', 'bye'], { input: 'demo-password' });
    const out = await cli.run(['logout', '--profile', 'bye']);
    expect(out.code).toBe(0);
    const profile = JSON.parse(readFileSync(join(cli.configHome, 'idp', 'profiles.json'), 'utf8')).bye;
    expect(profile).toEqual({ url: cli.url, username: 'demo', org: 'demo' });
    const again = await cli.run(['org', 'get', '--profile', 'bye']);
    expect(again.code).toBe(3);
    expect(again.stderr).toContain('error: an access token is required');
  });
});

describe('organizations', () => {
  it('creates an organization with its owner, from flags and a piped password', async () => {
    const body = await cli.json(['org', 'create', 'acme', '--username', 'alice', '--name', 'Alice Admin', '--email', 'alice@example.com', '--password-stdin'], {
      input: 'correct-horse',
    });
    expect(body.action).toBe('new organization');
    expect(body.entities[0]).toMatchObject({ orgname: 'acme', username: 'alice' });
  });

  it('gets the organization from --org, the argument, or the profile', async () => {
    expect((await cli.json(['org', 'get'])).entities[0].orgname).toBe('demo');
    const human = await cli.run(['org', 'get', 'demo']);
    expect(human.stdout).toMatch(/^uuid +[0-9a-f-]{36}$/m);
    expect(human.stdout).toMatch(/^orgname +demo$/m);
    expect((await cli.run(['org', 'get', '--quiet'])).stdout.trim()).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('shows and regenerates credentials; regenerating needs --yes without a terminal', async () => {
    const before = await cli.json(['org', 'credentials']);
    expect(before.credentials.client_id).toBeTruthy();
    const refused = await cli.run(['org', 'credentials', '--regenerate']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--yes');
    const after = await cli.json(['org', 'credentials', '--regenerate', '--yes']);
    expect(after.credentials.client_secret).not.toBe(before.credentials.client_secret);
    const [id, secret] = (await cli.run(['org', 'credentials', '--quiet'])).stdout.trim().split(' ');
    expect({ id, secret }).toEqual({ id: after.credentials.client_id, secret: after.credentials.client_secret });
  });

  it('reads the feed', async () => {
    const feed = await cli.json(['org', 'feed', '--limit', '3']);
    expect(feed.entities).toHaveLength(3);
    expect((await cli.run(['org', 'feed'])).stdout).toMatch(/^UUID +PUBLISHED +CATEGORY +VERB +TITLE/);
  });

  it('lists every organization for a sysadmin, by name, following cursors with --all; refuses an admin', async () => {
    const refused = await cli.run(['org', 'list']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('error: only a sysadmin may do this');
    const root = await startCli(['--fixtures', DEMO_FIXTURES, '--superuser', 'root:root-password-1']);
    try {
      expect((await root.run(['login', '--username', 'root', '--password-stdin'], { input: 'root-password-1\n' })).code).toBe(0);
      for (const name of ['beta', 'alpha']) {
        await root.json(['org', 'create', name, '--username', `${name}-owner`, '--name', 'Owner', '--email', `${name}@example.com`, '--password-stdin'], {
          input: 'owners-password-1\n',
        });
      }
      const first = await root.json(['org', 'list', '--limit', '2']);
      expect(first.entities.map((org: { name: string }) => org.name)).toEqual(['alpha', 'beta']);
      const all = await root.json(['org', 'list', '--all']);
      expect(all.entities.map((org: { name: string }) => org.name)).toEqual(['alpha', 'beta', 'demo']);
      expect((await root.run(['org', 'list'])).stdout).toMatch(/^NAME +UUID +ACTIVATED +CREATED\nalpha /);
    } finally {
      await root.stop();
    }
  });
});

describe('applications', () => {
  it('creates, lists and deletes an application', async () => {
    expect((await cli.json(['app', 'create', 'scratch'])).entities[0].applicationName).toBe('scratch');
    const list = await cli.json(['app', 'list']);
    expect(list.entities.map((app: { applicationName: string }) => app.applicationName).sort()).toEqual(['sandbox', 'scratch']);
    expect((await cli.run(['app', 'list'])).stdout).toMatch(/^NAME +UUID +CREATED\nsandbox /);
    const deleted = await cli.json(['app', 'delete', 'scratch', '--yes']);
    expect(deleted.action).toBe('delete application');
  });

  it('without a terminal, a missing name or confirmation is a usage error (exit 2) and nothing is deleted', async () => {
    const noName = await cli.run(['app', 'delete']);
    expect(noName.code).toBe(2);
    expect(noName.stderr).toContain('application is required');
    const noYes = await cli.run(['app', 'delete', 'sandbox']);
    expect(noYes.code).toBe(2);
    expect((await cli.json(['app', 'list'])).count).toBe(1);
    expect((await cli.run(['app', 'create'])).code).toBe(2);
  });

  it("sets the password policy of the application's users, which the server applies to passwords given to the CLI", async () => {
    const set = await cli.json(['app', 'update', 'sandbox', '--password-min-length', '12', '--password-require', 'digit']);
    expect(set.entities[0].passwordPolicy).toEqual({ minLength: 12, require: ['digit'] });
    expect((await cli.run(['app', 'get', 'sandbox'])).stdout).toMatch(/passwordPolicy/);
    const short = await cli.run(['user', 'create', 'dino', '--app', 'sandbox', '--password-stdin'], { input: 'kx7-qpz-w' });
    expect(short.code).toBe(1);
    expect(short.stderr.trim()).toBe('error: password must be at least 12 characters');
    const common = await cli.run(['admin', 'create', 'dino', '--password-stdin'], { input: 'password123' });
    expect(common.stderr.trim()).toBe('error: password is too common');
    const bad = await cli.run(['app', 'update', 'sandbox', '--password-min-length', 'twelve']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^error: passwordPolicy\.minLength: must be a whole number from 1 to 1024/);
    expect((await cli.run(['app', 'update', 'sandbox'])).code).toBe(2);
    const removed = await cli.json(['app', 'update', 'sandbox', '--server-password-policy']);
    expect(removed.entities[0]).not.toHaveProperty('passwordPolicy');
  });

  it("shows application credentials, and a 404 is the server's words with exit code 4", async () => {
    expect((await cli.json(['app', 'credentials', 'sandbox'])).credentials.client_id).toBeTruthy();
    const missing = await cli.run(['app', 'credentials', 'nope']);
    expect(missing.code).toBe(4);
    expect(missing.stderr).toMatch(/^error: .*nope.*not found/);
  });
});

describe('admin users', () => {
  it('creates an admin in the organization, gets, lists, removes and changes a password', async () => {
    const created = await cli.json(['admin', 'create', 'bob', '--email', 'bob@example.com', '--name', 'Bob', '--password-stdin'], { input: 'bob-password' });
    expect(created.entities[0]).toMatchObject({ username: 'bob', organizations: { demo: expect.any(String) } });
    expect((await cli.json(['admin', 'get', 'bob'])).entities[0].email).toBe('bob@example.com');
    expect((await cli.json(['admin', 'list'])).entities.map((u: { username: string }) => u.username).sort()).toEqual(['bob', 'demo']);
    const bob = ['--profile', 'bob'];
    await cli.run(['login', '--username', 'bob', '--password-stdin', ...bob], { input: 'bob-password' });
    const wrong = await cli.run(['admin', 'password', '--password', 'not-bobs-password', '--new-password', 'bob-password-2', ...bob]);
    expect([wrong.code, wrong.stderr], 'a wrong current password is an authentication failure').toEqual([3, expect.stringMatching(/^error: .*password/)]);
    expect((await cli.run(['admin', 'password', '--password', 'bob-password', '--new-password', 'bob-password-2', ...bob])).code).toBe(0);
    expect((await cli.run(['login', '--username', 'bob', '--password-stdin', ...bob], { input: 'bob-password-2' })).code).toBe(0);
    expect((await cli.run(['admin', 'password', 'bob', ...bob])).code).toBe(2);
    expect((await cli.json(['admin', 'remove', 'bob', '--yes'])).action).toBe('remove user from organization');
    expect((await cli.json(['admin', 'add', 'bob'])).action).toBe('add user to organization');
  });

  it('deactivates an admin, who can no longer sign in, and activates them again', async () => {
    await cli.json(['admin', 'create', 'betty', '--password-stdin'], { input: 'betty-password' });
    const betty = ['--username', 'betty', '--password-stdin', '--profile', 'betty'];
    expect((await cli.run(['login', ...betty], { input: 'betty-password' })).code).toBe(0);
    const deactivated = await cli.run(['admin', 'deactivate', 'betty']);
    expect(deactivated.code, deactivated.stderr).toBe(0);
    expect(deactivated.stdout).toMatch(/^disabled +true$/m);
    const refused = await cli.run(['org', 'get', '--profile', 'betty']);
    expect([refused.code, refused.stderr], 'her saved token stopped at once').toEqual([3, expect.stringMatching(/^error: /)]);
    const login = await cli.run(['login', ...betty], { input: 'betty-password' });
    expect([login.code, login.stderr]).toEqual([3, expect.stringMatching(/^error: .*disabled/)]);
    expect((await cli.json(['admin', 'activate', 'betty'])).entities[0].disabled).toBe(false);
    expect((await cli.run(['login', ...betty], { input: 'betty-password' })).code).toBe(0);
    const self = await cli.run(['admin', 'deactivate', 'betty', '--profile', 'betty']);
    expect([self.code, self.stderr]).toEqual([3, expect.stringMatching(/^error: you may not deactivate or activate your own account/)]);
  });
});

describe('tokens', () => {
  it('client-credentials with organization credentials, password grant, and usage errors', async () => {
    const { credentials } = await cli.json(['org', 'credentials']);
    const token = await cli.json(['token', 'client-credentials', '--client-id', credentials.client_id], {
      env: { IDP_CLIENT_SECRET: credentials.client_secret },
    });
    expect(token).toMatchObject({ token_type: 'Bearer', access_token: expect.any(String) });
    const quiet = await cli.run(['token', 'password', '--username', 'demo', '--password-stdin', '--quiet'], { input: 'demo-password' });
    expect(quiet.stdout.trim()).toMatch(/^ey/);
    const viaToken = await cli.json(['org', 'get', 'demo', '--token', quiet.stdout.trim(), '--profile', 'nobody']);
    expect(viaToken.entities[0].orgname).toBe('demo');
    expect((await cli.run(['token', 'client-credentials'])).code).toBe(2);
    const bad = await cli.run(['token', 'client-credentials', '--client-id', 'nope', '--client-secret', 'nope']);
    expect(bad.code).toBe(3);
    expect(bad.stderr).toMatch(/^error: /);
  });
});

describe('errors and help', () => {
  it('says clearly when the server is down, and when --url is not an idp server', async () => {
    const down = await cli.run(['org', 'get'], { url: 'http://127.0.0.1:9' });
    expect(down).toMatchObject({ code: 5, stdout: '' });
    expect(down.stderr).toBe('error: cannot reach http://127.0.0.1:9: connection refused (is `idp serve` running there?)\n');
    const other = createServer((_req, res) => res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not Found</h1>'));
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
    const wrong = await cli.run(['org', 'get'], { url });
    other.close();
    expect(wrong.code).toBe(5);
    expect(wrong.stderr).toBe(`error: GET ${url}/management/orgs/demo answered 404 with text/html; is ${url} an idp server?\n`);
    expect((await cli.run(['org', 'get'], { url: 'ftp://x' })).code).toBe(2);
  });

  it('unknown commands and options are usage errors (exit 2)', async () => {
    expect((await cli.run(['org', 'frobnicate'])).code).toBe(2);
    expect((await cli.run(['org', 'get', '--frob'])).code).toBe(2);
    expect((await cli.run(['nonsense'])).code).toBe(2);
  });

  it("every command's --help, the program's and each noun's too, ends with an example", async () => {
    const { buildFullProgram } = await import('../../commands/index.js');
    const program = await buildFullProgram();
    const all = [program, ...program.commands.flatMap((noun) => [noun, ...noun.commands])];
    expect(all.length).toBeGreaterThan(90);
    const missing = all.filter((command) => {
      let text = '';
      command.configureOutput({ writeOut: (chunk) => (text += chunk) });
      command.outputHelp();
      return !/\nExamples?:\n( {2}\$ [^\n]*\bidp \S[^\n]*\n?)+$/.test(text.trimEnd());
    });
    expect(missing.map((command) => `${command.parent?.name() ?? ''} ${command.name()}`.trim())).toEqual([]);
    const real = await cli.run(['entity', 'list', '--help'], { url: null });
    expect(real.code).toBe(0);
    expect(real.stdout).toContain('$ idp entity list dogs');
  });
});
