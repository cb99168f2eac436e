/**
 * Commands on the OAuth endpoints: `/connect/token` (refresh, exchange, expiry), `/connect/
 * revocation`, `/connect/authorize` (login --code) and the OAuth clients of an application.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { cliAgainst, loginDemo, startCli, DEMO_FIXTURES, type Cli } from './helpers.js';
import type { Clock } from '../helpers.js';
import { startTestServer } from '../database.js';
import { BIN, matchOutput } from '../spawn.js';
import { authorizeAsUser, Browser, redirectOf } from '../authorize/support.js';

describe('OAuth commands', () => {
  let cli: Cli;
  const profilePath = () => join(cli.configHome, 'idp', 'profiles.json');
  const readProfile = (name = 'default') => JSON.parse(readFileSync(profilePath(), 'utf8'))[name];

  beforeAll(async () => {
    cli = await startCli();
    await loginDemo(cli);
    await cli.run(['config', 'set', 'app', 'sandbox']);
  });
  afterAll(() => cli.stop());

  it('login keeps a refresh token; token refresh rotates it and saves the new pair', async () => {
    const before = readProfile();
    expect(before.refresh_token).toEqual(expect.any(String));
    const refreshed = await cli.json(['token', 'refresh']);
    expect(refreshed.refresh_token).not.toBe(before.refresh_token);
    expect(readProfile().refresh_token).toBe(refreshed.refresh_token);
  });

  it('an expired access token is refreshed once, then the user is asked to log in again', async () => {
    // A server on a test clock, so its access tokens expire without waiting for them to.
    const clock: Clock = { now: Date.now() };
    const server = await startTestServer({ port: '0', fixtures: DEMO_FIXTURES }, { now: () => clock.now });
    const short = cliAgainst(server.url, () => server.close());
    const lifetime = server.deps.config.accessTokenTtl * 1000;
    try {
      await loginDemo(short);
      const path = join(short.configHome, 'idp', 'profiles.json');
      const edit = (change: (profile: Record<string, unknown>) => void) => {
        const all = JSON.parse(readFileSync(path, 'utf8'));
        change(all.default);
        // Far-future expiry in the profile: the server, not the CLI's own reckoning, must say the token expired.
        all.default.expires_at = Date.now() + 3_600_000;
        writeFileSync(path, JSON.stringify(all));
      };
      edit(() => {});
      const before = JSON.parse(readFileSync(path, 'utf8')).default.access_token;
      clock.now += lifetime;
      expect((await short.json(['org', 'get'])).entities[0].orgname).toBe('demo');
      expect(JSON.parse(readFileSync(path, 'utf8')).default.access_token).not.toBe(before);
      edit((profile) => (profile.refresh_token = 'spent'));
      clock.now += lifetime;
      const result = await short.run(['org', 'get']);
      expect(result.code).toBe(3);
      expect(result.stderr).toMatch(/^error: .*run `idp login` again\n$/);
    } finally {
      await short.stop();
    }
  });

  it('manages the OAuth clients of an application', async () => {
    const created = await cli.json([
      'client',
      'create',
      'web',
      '--redirect-uri',
      'https://app.example.com/cb',
      '--grant-type',
      'authorization_code',
      '--grant-type',
      'refresh_token',
      '--scope',
      'openid profile api',
    ]);
    const client = created.entities?.[0] ?? created;
    expect(client).toMatchObject({ client_name: 'web', redirect_uris: ['https://app.example.com/cb'], client_secret: expect.any(String) });
    const id = client.client_id;
    expect((await cli.json(['client', 'list'])).entities.map((c: { client_id: string }) => c.client_id)).toContain(id);
    expect((await cli.run(['client', 'get', id, '--quiet'])).stdout.trim()).toBe(id);
    const updated = await cli.json(['client', 'update', id, '--name', 'web2', '--no-require-consent']);
    expect(updated.entities?.[0] ?? updated).toMatchObject({ client_name: 'web2', require_consent: false, redirect_uris: ['https://app.example.com/cb'] });
    expect((await cli.run(['client', 'delete', id])).code).toBe(2);
    expect((await cli.run(['client', 'delete', id, '--yes'])).code).toBe(0);
    expect((await cli.run(['client', 'get', id])).code).toBe(4);
  });

  it('creates a pairwise client with code token; a second redirect host without a sector_identifier_uri is refused', async () => {
    const created = await cli.json([
      'client',
      'create',
      'hybrid',
      '--redirect-uri',
      'https://app.example.com/cb',
      '--grant-type',
      'authorization_code',
      '--grant-type',
      'implicit',
      '--response-type',
      'code token',
      '--subject-type',
      'pairwise',
    ]);
    const client = created.entities?.[0] ?? created;
    expect(client).toMatchObject({ response_types: ['code token'], subject_type: 'pairwise' });
    const refused = await cli.run([
      'client',
      'update',
      client.client_id,
      '--redirect-uri',
      'https://app.example.com/cb',
      '--redirect-uri',
      'https://other.example/cb',
    ]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/needs a sector_identifier_uri/);
  });

  it('registers a private_key_jwt client with its jwks_uri', async () => {
    const created = await cli.json([
      'client',
      'create',
      'key-signer',
      '--grant-type',
      'client_credentials',
      '--auth-method',
      'private_key_jwt',
      '--jwks-uri',
      'https://rp.example/jwks',
    ]);
    const client = created.entities?.[0] ?? created;
    expect(client).toMatchObject({ token_endpoint_auth_method: 'private_key_jwt', jwks_uri: 'https://rp.example/jwks' });
    expect(client.client_secret).toBeUndefined();
    const refused = await cli.run(['client', 'create', 'keyless', '--grant-type', 'client_credentials', '--auth-method', 'private_key_jwt']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/jwks or jwks_uri/);
  });

  it('client-credentials, an app user password grant and a token exchange (RFC 8693)', async () => {
    const [appId, appSecret] = (await cli.run(['app', 'credentials', 'sandbox', '--quiet'])).stdout.trim().split(' ');
    expect((await cli.json(['token', 'client-credentials', '--client-id', appId, '--client-secret', appSecret])).token_type).toBe('Bearer');
    await cli.run(['user', 'create', 'wilma', '--password-stdin'], { input: 'wilma-password' });
    const userToken = (
      await cli.run(['token', 'password', '--username', 'wilma', '--password-stdin', '--client-id', appId, '--client-secret', appSecret, '--quiet'], {
        input: 'wilma-password',
      })
    ).stdout.trim();
    expect(userToken).toMatch(/^ey/);
    const exchanged = await cli.json(['token', 'exchange', '--client-id', appId, '--client-secret', appSecret, '--subject-token', userToken, '--scope', 'api']);
    expect(exchanged).toMatchObject({ token_type: 'Bearer', scope: 'api', issued_token_type: 'urn:ietf:params:oauth:token-type:access_token' });
  });

  it('logout revokes the refresh token', async () => {
    await loginDemo(cli, ['--profile', 'leaving']);
    const refreshToken = readProfile('leaving').refresh_token;
    expect((await cli.run(['logout', '--profile', 'leaving'])).stdout).toContain('refresh token revoked');
    const reuse = await cli.run(['token', 'refresh', '--refresh-token', refreshToken]);
    expect(reuse.code).toBe(3);
  });

  it('login --code signs in through the browser flow and saves the profile', async () => {
    const child = spawn(process.execPath, [BIN, '--url', cli.url, 'login', '--code', '--profile', 'browser'], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, XDG_CONFIG_HOME: cli.configHome, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const [, url] = await matchOutput(child.stderr, stderr, /(http:\/\/\S+\/connect\/authorize\?\S+)/);
    // What the user does with the printed URL: signs in, and the browser follows the redirect home.
    const back = redirectOf(
      await authorizeAsUser(new Browser(cli.url), url, { username: 'demo', email: 'demo@example.com', name: 'Demo Admin', password: 'demo-password' }),
    );
    expect(back.url.hostname).toBe('127.0.0.1');
    await (await fetch(back.url)).text();
    expect(await exited).toBe(0);
    expect(stdout).toBe(`logged in to ${cli.url} as demo (profile browser); organization demo\n`);
    expect(readProfile('browser')).toMatchObject({ url: cli.url, username: 'demo', org: 'demo', refresh_token: expect.any(String) });
    expect((await cli.json(['org', 'get', '--profile', 'browser'])).entities[0].orgname).toBe('demo');
  });

  /** `idp login --device` as a person runs it: the address and code on stderr, the outcome on stdout and in the exit code. */
  function loginWithDevice(profile: string) {
    const child = spawn(process.execPath, [BIN, '--url', cli.url, 'login', '--device', '--profile', profile], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, XDG_CONFIG_HOME: cli.configHome, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output = { stdout: '', stderr: '' };
    child.stdout.on('data', (chunk) => (output.stdout += chunk));
    child.stderr.on('data', (chunk) => (output.stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const shown = matchOutput(child.stderr, '', /open (http:\/\/\S+\/device) in a browser and enter the code\n\n {2}([A-Z]{4}-[A-Z]{4})\n/);
    return { output, exited, shown };
  }

  /** What the user does on another device: enters the code, signs in, and decides. */
  async function decideOnDevice(url: string, code: string, decision: 'allow' | 'deny'): Promise<string> {
    const browser = new Browser(cli.url);
    const entry = await browser.get(url);
    const signIn = await browser.submit(await entry.text(), { user_code: code.toLowerCase() }, '/device');
    const consent = await browser.submit(await signIn.text(), { login: 'demo', password: 'demo-password' }, '/connect/authorize/login');
    return (await browser.submit(await consent.text(), { decision }, '/connect/authorize/consent')).text();
  }

  it('login --device prints an address and a code, polls while the user allows it elsewhere, and saves the profile', async () => {
    const { output, exited, shown } = loginWithDevice('device');
    const [, url, code] = await shown;
    expect(url).toBe(`${cli.url}/device`);
    expect(output.stderr).toContain(`or open ${cli.url}/device?user_code=${code}`);
    expect(await decideOnDevice(url!, code!, 'allow')).toContain('You may return to your device');
    expect(await exited).toBe(0);
    expect(output.stdout).toBe(`logged in to ${cli.url} as demo (profile device); organization demo\n`);
    expect(readProfile('device')).toMatchObject({ url: cli.url, username: 'demo', org: 'demo', refresh_token: expect.any(String) });
    expect((await cli.json(['org', 'get', '--profile', 'device'])).entities[0].orgname).toBe('demo');
  });

  it('login --device refused on the other device: exit code 3 and the reason', async () => {
    const { output, exited, shown } = loginWithDevice('denied');
    const [, url, code] = await shown;
    expect(await decideOnDevice(url!, code!, 'deny')).toContain('The device was not given access');
    expect(await exited).toBe(3);
    expect(output.stderr).toMatch(/error: the user denied this device\n$/);
    expect(readProfile('denied')).toBeUndefined();
  });

  it('login refuses --device with --code or a password', async () => {
    expect((await cli.run(['login', '--device', '--code'])).code).toBe(2);
    const withPassword = await cli.run(['login', '--device', '--password-stdin']);
    expect(withPassword.code).toBe(2);
    expect(withPassword.stderr).toContain('--device signs in with a browser; leave out the password');
  });

  it('fixtures with OAuth clients apply twice', async () => {
    const file = join(cli.configHome, 'clients.json');
    writeFileSync(
      file,
      JSON.stringify({
        admins: [{ username: 'demo', email: 'demo@example.com', name: 'Demo Admin', password: 'demo-password' }],
        organizations: [
          {
            name: 'demo',
            owner: 'demo',
            applications: [
              {
                name: 'sandbox',
                clients: [
                  { client_name: 'spa', redirect_uris: ['http://127.0.0.1:5173/cb'], grant_types: ['authorization_code'], token_endpoint_auth_method: 'none' },
                  {
                    client_name: 'signer',
                    grant_types: ['client_credentials'],
                    token_endpoint_auth_method: 'private_key_jwt',
                    jwks_uri: 'https://rp.example/jwks',
                  },
                ],
              },
            ],
          },
        ],
      }),
    );
    expect((await cli.run(['fixtures', 'apply', file])).stdout).toBe('created 2, unchanged 2, failed 0\n');
    expect((await cli.run(['fixtures', 'apply', file])).stdout).toBe('nothing to change: created 0, unchanged 4, failed 0\n');
  });
});
