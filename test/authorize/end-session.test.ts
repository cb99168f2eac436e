/**
 * RP-initiated logout at /connect/endsession: id_token_hint names the client, the
 * post_logout_redirect_uri must be registered for it, state comes back, and the session ends only
 * after the user confirms on a CSRF-protected page.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snapshot } from '../helpers.js';
import { authorizeAsUser, Browser, createClient, createFixture, redirectOf, REDIRECT, startIdp, type Fixture } from './support.js';

let fixture: Fixture;
let client: { client_id: string };

beforeAll(async () => {
  fixture = await createFixture(await startIdp());
  client = await createClient(fixture, { require_consent: false });
});
afterAll(() => fixture.server.close());

/** A signed-in browser and the ID token it got. */
async function signIn(): Promise<{ browser: Browser; idToken: string }> {
  const browser = new Browser(fixture.url);
  const url = `/connect/authorize?${new URLSearchParams({ client_id: client.client_id, redirect_uri: REDIRECT, response_type: 'id_token', scope: 'openid', nonce: 'n' })}`;
  const response = await authorizeAsUser(browser, url);
  return { browser, idToken: redirectOf(response).fragment.get('id_token')! };
}

function silentAuthorize(browser: Browser): Promise<Response> {
  return browser.get(
    `/connect/authorize?${new URLSearchParams({ client_id: client.client_id, redirect_uri: REDIRECT, response_type: 'id_token', scope: 'openid', nonce: 'n', prompt: 'none' })}`,
  );
}

describe('/connect/endsession', () => {
  it('asks for confirmation, ends the session, and returns to the registered address with state', async () => {
    const { browser, idToken } = await signIn();
    const page = await browser.get(
      `/connect/endsession?${new URLSearchParams({ id_token_hint: idToken, post_logout_redirect_uri: 'https://rp.example/bye', state: 'bye-1' })}`,
    );
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("form-action 'self' https://rp.example");
    const html = await page.text();
    expect(html).toContain('Shop asks you to sign out');
    // Still signed in until confirmed.
    expect(redirectOf(await silentAuthorize(browser)).fragment.get('id_token')).toBeTruthy();
    const done = await browser.submit(html, { decision: 'logout' }, '/connect/endsession');
    expect(done.headers.get('location')).toBe('https://rp.example/bye?state=bye-1');
    expect(redirectOf(await silentAuthorize(browser)).fragment.get('error')).toBe('login_required');
  });

  it('"stay signed in" keeps the session', async () => {
    const { browser, idToken } = await signIn();
    const html = await (await browser.get(`/connect/endsession?id_token_hint=${idToken}`)).text();
    const kept = await browser.submit(html, { decision: 'stay' }, '/connect/endsession');
    expect(await kept.text()).toContain('You are still signed in.');
    expect(redirectOf(await silentAuthorize(browser)).fragment.get('id_token')).toBeTruthy();
  });

  it('without a client, signs out and shows a page', async () => {
    const { browser } = await signIn();
    const html = await (await browser.get('/connect/endsession?ui_locales=fr')).text();
    expect(html).toContain('Voulez-vous vous déconnecter ?');
    const done = await browser.submit(html, { decision: 'logout' }, '/connect/endsession');
    expect(await done.text()).toContain('Vous êtes déconnecté.');
    expect(redirectOf(await silentAuthorize(browser)).fragment.get('error')).toBe('login_required');
  });

  it('refuses a post_logout_redirect_uri that is not registered, on the error page', async () => {
    const { browser, idToken } = await signIn();
    const response = await browser.get(
      `/connect/endsession?${new URLSearchParams({ id_token_hint: idToken, post_logout_redirect_uri: 'https://evil.example/' })}`,
    );
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    expect(await response.text()).toContain('data-error="bad_logout_request"');
  });

  it('refuses an id_token_hint this server did not sign', async () => {
    const forged = `${Buffer.from('{"alg":"RS256","kid":"nope"}').toString('base64url')}.${Buffer.from('{"aud":"x"}').toString('base64url')}.c2ln`;
    const response = await new Browser(fixture.url).get(`/connect/endsession?id_token_hint=${forged}&post_logout_redirect_uri=https://rp.example/bye`);
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    expect(await response.text()).toContain('data-error="bad_logout_request"');
  });

  it('a post_logout_redirect_uri without id_token_hint or client_id is refused', async () => {
    const response = await new Browser(fixture.url).get('/connect/endsession?post_logout_redirect_uri=https://rp.example/bye');
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    expect(await response.text()).toContain('data-error="bad_logout_request"');
  });

  it('a parameter sent twice is shown on the error page', async () => {
    const response = await new Browser(fixture.url).get('/connect/endsession?state=a&state=b');
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    const page = await response.text();
    expect(page).toContain('data-error="bad_logout_request"');
    expect(page).toContain('state: was sent more than once');
  });

  it('the confirming POST needs the CSRF token', async () => {
    const { browser, idToken } = await signIn();
    const html = await (await browser.get(`/connect/endsession?id_token_hint=${idToken}`)).text();
    // A page names its error in data-error; the refused sign-out ends no session and writes nothing.
    const before = await snapshot(fixture.server);
    const refused = await browser.submit(html, { decision: 'logout', csrf_token: 'x' }, '/connect/endsession');
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('data-error="csrf"');
    expect(await snapshot(fixture.server)).toBe(before);
    expect(redirectOf(await silentAuthorize(browser)).fragment.get('id_token')).toBeTruthy();
  });
});
