/**
 * `idp token code`: the loopback + PKCE flow of the CLI against a real server, with the sign-in
 * done by the test's cookie-keeping browser: as a function, and as the command, which prints the
 * URL to open and the tokens as JSON.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { decodeJwt } from 'jose';
import { runAuthorizationCodeFlow } from '../../commands/auth-code-flow.js';
import { buildProgram } from '../../commands/index.js';
import { ADMIN, authorizeAsUser, Browser, createFixture, redirectOf, startIdp, USER, type Fixture } from './support.js';

let fixture: Fixture;
const admin = { ...USER, username: ADMIN.username, password: ADMIN.password };

beforeAll(async () => {
  fixture = await createFixture(await startIdp());
});
afterAll(() => fixture.server.close());

/** What the user does with the printed URL: signs in, and the browser follows the redirect home. */
async function signInAt(url: string): Promise<void> {
  const browser = new Browser(fixture.url);
  const back = redirectOf(await authorizeAsUser(browser, url, admin));
  expect(back.url.hostname).toBe('127.0.0.1');
  const landing = await fetch(back.url);
  expect(await landing.text()).toContain('You are signed in');
}

describe('idp token code', () => {
  it('runs the authorization code flow with PKCE over a loopback redirect', async () => {
    let shown = '';
    const tokens = await runAuthorizationCodeFlow({
      issuer: fixture.url,
      open: async (url) => {
        shown = url;
        await signInAt(url);
      },
    });
    const request = new URL(shown).searchParams;
    expect(request.get('client_id')).toBe('admin-cli');
    expect(request.get('code_challenge_method')).toBe('S256');
    expect(request.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(tokens.refresh_token).toBeTruthy();
    expect(decodeJwt(tokens.id_token!).preferred_username).toBe('alice');
    const me = await fetch(`${fixture.url}/connect/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(me.status).toBe(200);
  });

  it('gives up after the timeout when no browser comes back', async () => {
    // A time-out as short as the test likes: nothing can come back in it, so nothing is waited for.
    await expect(runAuthorizationCodeFlow({ issuer: fixture.url, open: () => undefined, timeoutMs: 1 })).rejects.toThrow(/no sign-in came back/);
  });

  it('as a command: prints the URL to open on stderr and the tokens as JSON on stdout', async () => {
    const stderr: string[] = [];
    const stdout: string[] = [];
    let shown!: (url: string) => void;
    const urlShown = new Promise<string>((resolve) => (shown = resolve));
    const errSpy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      stderr.push(String(chunk));
      const url = /(http:\/\/\S+\/connect\/authorize\?\S+)/.exec(stderr.join(''))?.[1];
      if (url) shown(url);
      return true;
    });
    const outSpy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => (stdout.push(String(chunk)), true));
    try {
      const run = buildProgram().parseAsync(['node', 'idp', 'token', 'code', '--url', fixture.url, '--scope', 'openid api']);
      // The URL, or undefined if the command ends first (its error is then the test's).
      const url = await Promise.race([
        urlShown,
        run.then(
          () => undefined,
          () => undefined,
        ),
      ]);
      if (url === undefined) await run;
      expect(url, stderr.join('')).toBeDefined();
      await signInAt(url!);
      await run;
    } finally {
      errSpy.mockRestore();
      outSpy.mockRestore();
    }
    const tokens = JSON.parse(stdout.join(''));
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    expect(tokens.scope).toBe('openid api');
  });
});
