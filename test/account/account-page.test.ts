/**
 * The account page as its forms are posted (test/account/browser.test.ts drives it in Chromium):
 * the sign-in round trip through /connect/authorize with the built-in client, forms refused
 * without this browser's CSRF token or session (nothing stored changes), a sign-in older than
 * five minutes sent to sign in again before a factor goes, wrong input shown on the page, and the
 * built-in client good for nothing else.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser, createFixture, formOf, redirectOf, startIdp, USER, type Fixture } from '../authorize/support.js';
import { TOTP } from 'otpauth';
import { snapshot } from '../helpers.js';
import { findOrganization } from '../../src/management/organizations.js';

const clock = { now: Date.now() };
let fixture: Fixture;

beforeAll(async () => {
  fixture = await createFixture(await startIdp({ now: () => clock.now }));
});
afterAll(async () => {
  await fixture?.server.close();
});

/** A browser signed in to the shop's account page; returns it with the page's HTML. */
async function signedIn(): Promise<{ browser: Browser; html: string }> {
  const browser = new Browser(fixture.url);
  const toSignIn = redirectOf(await browser.get('/acme/shop/account'));
  expect(toSignIn.url.pathname).toBe('/connect/authorize');
  expect(toSignIn.query.get('client_id')).toBe(`idp-account:${fixture.appUuid}`);
  expect(toSignIn.query.get('response_type')).toBe('none');
  const signInPage = await (await browser.get(toSignIn.url.toString())).text();
  const back = redirectOf(await browser.submit(signInPage, { login: USER.username, password: USER.password }, '/connect/authorize/login'));
  expect(back.url.pathname).toMatch(new RegExp(`/${fixture.appUuid}/account$`));
  // response_type none: the client gets nothing but the issuer back.
  expect([...back.query.keys()]).toEqual(['iss']);
  const page = await browser.get(back.url.toString());
  expect(page.status).toBe(200);
  return { browser, html: await page.text() };
}

describe('the account page', () => {
  it('refuses a form without the CSRF token of this browser, and sends a browser without a session to sign in, changing nothing', async () => {
    const { browser, html } = await signedIn();
    const action = formOf(html, `/${await orgUuid()}/${fixture.appUuid}/account/password`).action;
    const before = await snapshot(fixture.server, { except: ['browser_sessions'] });
    const forged = await browser.post(action, {
      csrf_token: 'forged',
      current_password: USER.password,
      new_password: 'x-new-password-1',
      new_password2: 'x-new-password-1',
    });
    expect(forged.status).toBe(403);
    expect(await forged.text()).toContain('data-error="csrf"');
    // A browser with a CSRF token of its own (from the sign-in page) but no session: off to sign in.
    const stranger = new Browser(fixture.url);
    const signInPage = await (await stranger.get(redirectOf(await stranger.get('/acme/shop/account')).url.toString())).text();
    const { csrf_token } = formOf(signInPage).fields;
    const signedOut = redirectOf(
      await stranger.post(action, {
        csrf_token: csrf_token!,
        current_password: USER.password,
        new_password: 'x-new-password-1',
        new_password2: 'x-new-password-1',
      }),
    );
    expect(signedOut.url.pathname).toBe('/connect/authorize');
    expect(await snapshot(fixture.server, { except: ['browser_sessions'] })).toBe(before);
  });

  it('shows a wrong current password or a refused new one on the page, changing nothing', async () => {
    const { browser, html } = await signedIn();
    const action = `/${await orgUuid()}/${fixture.appUuid}/account/password`;
    const before = await snapshot(fixture.server, { except: ['browser_sessions', 'login_throttle'] });
    const wrong = await browser.submit(html, { current_password: 'not-it', new_password: 'x-new-password-1', new_password2: 'x-new-password-1' }, action);
    expect(wrong.status).toBe(400);
    expect(await wrong.text()).toContain('role="alert"');
    const short = await browser.submit(html, { current_password: USER.password, new_password: 'x', new_password2: 'x' }, action);
    expect(short.status).toBe(400);
    const mismatch = await browser.submit(
      html,
      { current_password: USER.password, new_password: 'x-new-password-1', new_password2: 'x-new-password-2' },
      action,
    );
    expect(mismatch.status).toBe(400);
    expect(await mismatch.text()).toContain('the two new passwords are not the same');
    expect(await snapshot(fixture.server, { except: ['browser_sessions', 'login_throttle'] })).toBe(before);
  });

  it('asks for a new sign-in (prompt=login) before removing a factor or making recovery codes when the last one is over five minutes old', async () => {
    const { browser, html } = await signedIn();
    const base = `/${await orgUuid()}/${fixture.appUuid}/account`;
    const enrolled = await (await browser.submit(html, { name: 'Phone' }, `${base}/totp`)).text();
    const secret = /<code id="totp-secret">([A-Z2-7]+)<\/code>/.exec(enrolled)![1]!;
    const done = await browser.submit(enrolled, { otp: new TOTP({ secret }).generate({ timestamp: clock.now }) }, `${base}/totp/verify`);
    expect(done.status).toBe(200);
    clock.now += 6 * 60 * 1000;
    const page = await (await browser.get(base)).text();
    const before = await snapshot(fixture.server, { except: ['browser_sessions'] });
    for (const action of [`${base}/factors/remove`, `${base}/recovery-codes`]) {
      const again = redirectOf(await browser.submit(page, {}, action));
      expect(again.url.pathname).toBe('/connect/authorize');
      expect(again.query.get('prompt')).toBe('login');
      expect(again.query.get('state')).toBe('signed_in_again');
    }
    expect(await snapshot(fixture.server, { except: ['browser_sessions'] })).toBe(before);
  });

  it('lets the built-in client do nothing but sign in to the page', async () => {
    const token = await fetch(`${fixture.url}/connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: 'x', client_id: 'idp-account', redirect_uri: `${fixture.url}/management/account` }),
    });
    expect(token.status).toBe(400);
    expect(((await token.json()) as { error: string }).error).toBe('unauthorized_client');
    const code = redirectOf(
      await fetch(
        `${fixture.url}/connect/authorize?${new URLSearchParams({ client_id: 'idp-account', redirect_uri: `${fixture.url}/management/account`, response_type: 'code', scope: 'openid' })}`,
        { redirect: 'manual' },
      ),
    );
    expect(code.query.get('error')).toBe('unauthorized_client');
    const elsewhere = await fetch(
      `${fixture.url}/connect/authorize?${new URLSearchParams({ client_id: 'idp-account', redirect_uri: 'https://evil.example/account', response_type: 'none', scope: 'openid' })}`,
      { redirect: 'manual' },
    );
    expect(elsewhere.status).toBe(400);
    const unknown = await fetch(`${fixture.url}/connect/authorize?client_id=idp-account:00000000-0000-0000-0000-000000000000&redirect_uri=x`, {
      redirect: 'manual',
    });
    expect(await unknown.text()).toContain('data-error="unknown_client"');
  });
});

async function orgUuid(): Promise<string> {
  return (await findOrganization(fixture.server.deps, 'acme')).uuid;
}
