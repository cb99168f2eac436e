/**
 * acr_values=idp:NAME end to end: a second idp on another port (and host name, so the two keep
 * their own cookies) is the external OpenID provider. The code flow with PKCE and nonce runs
 * against it, and the returning user is created once and then found again by iss + sub.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import type { RunningServer } from '../../server/serve.js';
import { startTestServer } from '../database.js';
import { findAppUserByLogin } from '../../src/identity/sign-in/authenticate.js';
import {
  api,
  authorizeAsUser,
  Browser,
  createAppUser,
  createClient,
  createFixture,
  exchangeCode,
  redirectOf,
  REDIRECT,
  startIdp,
  USER,
  type Fixture,
  type RegisteredClient,
} from './support.js';

const ERIN = { username: 'erin', email: 'erin@partner.example', name: 'Erin External', password: 'erins-password-1' };

let home: Fixture;
let partner: Fixture;
let client: RegisteredClient;

beforeAll(async () => {
  home = await createFixture(await startIdp());
  const external: RunningServer = await startTestServer({ host: 'localhost', port: '0' });
  partner = await createFixture(external);
  await createAppUser(partner, ERIN);
  const rp = await createClient(partner, {
    redirect_uris: [`${home.url}/connect/federation/callback`],
    grant_types: ['authorization_code'],
    response_types: ['code'],
    require_consent: false,
    scope: 'openid profile email',
  });
  await api(home, 'POST', '/management/orgs/acme/apps/shop/identity-providers', {
    name: 'partner',
    issuer: partner.url,
    client_id: rp.client_id,
    client_secret: rp.client_secret,
  });
  client = await createClient(home, { require_pkce: false, require_consent: false, identity_providers: ['partner'] });
});
afterAll(async () => {
  await home.server.close();
  await partner.server.close();
});

function authorizeUrl(extra: Record<string, string> = {}): string {
  return `/connect/authorize?${new URLSearchParams({ client_id: client.client_id, redirect_uri: REDIRECT, response_type: 'code', scope: 'openid profile email', state: 'fed', nonce: 'home-nonce', acr_values: 'idp:partner', ...extra })}`;
}

/** Through the partner's sign-in and back; returns the final answer to the client. */
async function federate(browser: Browser): Promise<Response> {
  const start = await browser.get(authorizeUrl());
  const away = redirectOf(start);
  expect(away.url.origin).toBe(partner.url);
  expect(away.query.get('code_challenge_method')).toBe('S256');
  expect(away.query.get('nonce')).toBeTruthy();
  expect(away.query.get('redirect_uri')).toBe(`${home.url}/connect/federation/callback`);
  const back = await authorizeAsUser(browser, away.url.toString(), ERIN);
  expect(redirectOf(back).url.pathname).toBe('/connect/federation/callback');
  return browser.get(back.headers.get('location')!);
}

async function exchange(code: string): Promise<Record<string, unknown>> {
  return decodeJwt((await exchangeCode(home, client, code)).id_token);
}

describe('federation with an external OpenID provider', () => {
  it('signs in through the provider, creates the user, and finds them again by iss + sub', async () => {
    const first = await federate(new Browser(home.url));
    const { query } = redirectOf(first);
    expect(query.get('state')).toBe('fed');
    const claims = await exchange(query.get('code')!);
    expect(claims).toMatchObject({ preferred_username: 'erin', email: 'erin@partner.example', nonce: 'home-nonce' });
    const user = await findAppUserByLogin(home.server.deps, home.appUuid, 'erin');
    expect(user?.uuid).toBe(claims.sub);
    expect(user?.properties).toMatchObject({ username: 'erin', email: 'erin@partner.example' });

    const second = await federate(new Browser(home.url));
    expect((await exchange(redirectOf(second).query.get('code')!)).sub).toBe(claims.sub);
  });

  it('a federated session signs in silently for idp:partner; a password session does not count', async () => {
    const browser = new Browser(home.url);
    const federated = await exchange(redirectOf(await federate(browser)).query.get('code')!);
    const silent = await exchange(redirectOf(await browser.get(authorizeUrl({ prompt: 'none' }))).query.get('code')!);
    expect(silent).toMatchObject({ sub: federated.sub, preferred_username: 'erin', auth_time: federated.auth_time });

    const passwordBrowser = new Browser(home.url);
    await authorizeAsUser(
      passwordBrowser,
      `/connect/authorize?${new URLSearchParams({ client_id: client.client_id, redirect_uri: REDIRECT, response_type: 'code', scope: 'openid' })}`,
      USER,
    );
    expect(redirectOf(await passwordBrowser.get(authorizeUrl({ prompt: 'none' }))).query.get('error')).toBe('interaction_required');
  });

  it('the sign-in page offers the providers the client may use', async () => {
    const html = await (
      await new Browser(home.url).get(
        `/connect/authorize?${new URLSearchParams({ client_id: client.client_id, redirect_uri: REDIRECT, response_type: 'code', scope: 'openid' })}`,
      )
    ).text();
    expect(html).toContain('Sign in with partner');
    expect(html).toContain('acr_values=idp%3Apartner');
  });

  it('a provider that cannot be reached is temporarily_unavailable for the client', async () => {
    await api(home, 'POST', '/management/orgs/acme/apps/shop/identity-providers', { name: 'gone', issuer: 'http://127.0.0.1:1', client_id: 'x' });
    const gone = await createClient(home, { require_pkce: false, identity_providers: ['gone'] });
    const url = `/connect/authorize?${new URLSearchParams({ client_id: gone.client_id, redirect_uri: REDIRECT, response_type: 'code', scope: 'openid', state: 'g', acr_values: 'idp:gone' })}`;
    const { query } = redirectOf(await new Browser(home.url).get(url));
    expect(query.get('error')).toBe('temporarily_unavailable');
    expect(query.get('state')).toBe('g');
  });

  it('a callback with an unknown state shows the error page', async () => {
    const response = await new Browser(home.url).get('/connect/federation/callback?code=x&state=forged');
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('data-error="federation_failed"');
  });

  it('the provider refusing sends access_denied to the client', async () => {
    const browser = new Browser(home.url);
    const away = redirectOf(await browser.get(authorizeUrl()));
    const response = await browser.get(`/connect/federation/callback?error=access_denied&state=${away.query.get('state')}`);
    const { query } = redirectOf(response);
    expect(query.get('error')).toBe('access_denied');
    expect(query.get('state')).toBe('fed');
  });
});
