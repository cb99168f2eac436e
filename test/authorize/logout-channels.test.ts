/**
 * Logout across applications (docs/api.md#logout): a local HTTP server plays the relying party.
 * Signing out at /connect/endsession posts it a logout token (OIDC Back-Channel Logout 1.0) that
 * verifies against the discovery document's keys and names the `sid` of its ID tokens, and the
 * logout page frames its front-channel logout page (OIDC Front-Channel Logout 1.0); an answer of
 * 500 is retried from the queue; deactivating the user tells it too.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import { listLogoutDeliveries } from '../../src/db/logout-store.js';
import { listUserSessions } from '../../src/identity/sessions/sessions.js';
import {
  api,
  authorizeAsUser,
  Browser,
  createClient,
  createFixture,
  decodeEntities,
  exchangeCode,
  redirectOf,
  REDIRECT,
  startIdp,
  type Fixture,
  type RegisteredClient,
} from './support.js';

const EVENT = 'http://schemas.openid.net/event/backchannel-logout';

/** The relying party: records each logout POST and answers with the next queued status (200 when none). */
interface RelyingParty {
  url: string;
  received: { contentType: string | undefined; form: URLSearchParams }[];
  statuses: number[];
  server: Server;
}

async function startRelyingParty(): Promise<RelyingParty> {
  const rp: Omit<RelyingParty, 'url'> & { url?: string } = { received: [], statuses: [], server: undefined as unknown as Server };
  rp.server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      if (request.method === 'POST') rp.received.push({ contentType: request.headers['content-type'], form: new URLSearchParams(body) });
      response.writeHead(request.method === 'POST' ? (rp.statuses.shift() ?? 200) : 200, { 'content-type': 'text/plain' });
      response.end('ok');
    });
  });
  await new Promise<void>((resolve) => rp.server.listen(0, '127.0.0.1', resolve));
  rp.url = `http://127.0.0.1:${(rp.server.address() as AddressInfo).port}`;
  return rp as RelyingParty;
}

/** Waits until the RP has received `count` logout POSTs; fails after `ms`. */
async function received(rp: RelyingParty, count: number, ms = 8000): Promise<RelyingParty['received']> {
  const until = Date.now() + ms;
  while (rp.received.length < count) {
    if (Date.now() > until) throw new Error(`the relying party received ${rp.received.length} logout tokens, not ${count}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return rp.received;
}

let fixture: Fixture;
let rp: RelyingParty;
let client: RegisteredClient;
let jwks: ReturnType<typeof createRemoteJWKSet>;

beforeAll(async () => {
  fixture = await createFixture(await startIdp());
  rp = await startRelyingParty();
  client = await createClient(fixture, {
    require_consent: false,
    require_pkce: false,
    scope: 'openid profile offline_access',
    backchannel_logout_uri: `${rp.url}/backchannel?tenant=a`,
    backchannel_logout_session_required: true,
    frontchannel_logout_uri: `${rp.url}/frontchannel`,
    frontchannel_logout_session_required: true,
  });
  jwks = createRemoteJWKSet(new URL(`${fixture.url}/.well-known/openid-configuration/jwks`));
});
afterAll(async () => {
  await fixture.server.close();
  await new Promise((resolve) => rp.server.close(resolve));
});

/** Signs bob in with the code flow; the browser keeps the session, the RP the tokens. */
async function signIn(): Promise<{ browser: Browser; idToken: string; refreshToken: string }> {
  const browser = new Browser(fixture.url);
  const query = new URLSearchParams({
    client_id: client.client_id,
    redirect_uri: REDIRECT,
    response_type: 'code',
    scope: 'openid offline_access',
    nonce: 'n-1',
  });
  const code = redirectOf(await authorizeAsUser(browser, `/connect/authorize?${query}`)).query.get('code')!;
  const tokens = await exchangeCode(fixture, client, code);
  return { browser, idToken: tokens.id_token, refreshToken: tokens.refresh_token! };
}

async function verifyLogoutToken(token: string): Promise<JWTPayload> {
  expect(decodeProtectedHeader(token).typ).toBe('logout+jwt');
  const { payload } = await jwtVerify(token, jwks, { issuer: fixture.url, audience: client.client_id, typ: 'logout+jwt', maxTokenAge: 300 });
  return payload;
}

describe('back-channel and front-channel logout', () => {
  it('announces both in discovery', async () => {
    const discovery = (await (await fetch(`${fixture.url}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(discovery).toMatchObject({
      backchannel_logout_supported: true,
      backchannel_logout_session_supported: true,
      frontchannel_logout_supported: true,
      frontchannel_logout_session_supported: true,
    });
  });

  it('ID tokens carry the session id, the same after a refresh and different in another browser', async () => {
    const first = await signIn();
    const sid = decodeJwt(first.idToken).sid;
    expect(sid).toMatch(/^[\w-]{43}$/);
    const refreshed = await fetch(`${fixture.url}/connect/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`,
      },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: first.refreshToken }).toString(),
    });
    expect(decodeJwt(((await refreshed.json()) as { id_token: string }).id_token).sid).toBe(sid);
    expect(decodeJwt((await signIn()).idToken).sid).not.toBe(sid);
  });

  it('signing out frames the front-channel page, then posts a logout token to the back channel', async () => {
    rp.received.length = 0;
    const { browser, idToken } = await signIn();
    const sid = decodeJwt(idToken).sid as string;
    const query = new URLSearchParams({ id_token_hint: idToken, post_logout_redirect_uri: 'https://rp.example/bye', state: 's-1' });
    const confirm = await (await browser.get(`/connect/endsession?${query}`)).text();
    const page = await browser.submit(confirm, { decision: 'logout' }, '/connect/endsession');
    expect(page.status).toBe(200);
    const html = decodeEntities(await page.text());
    const frame = new URL(/<iframe src="([^"]+)"/.exec(html)![1]!);
    expect(`${frame.origin}${frame.pathname}`).toBe(`${rp.url}/frontchannel`);
    expect(Object.fromEntries(frame.searchParams)).toEqual({ iss: fixture.url, sid });
    expect(html).toContain('href="https://rp.example/bye?state=s-1"');
    expect(page.headers.get('content-security-policy')).toContain(`frame-src ${rp.url}/frontchannel`);

    const [delivery] = await received(rp, 1);
    expect(delivery!.contentType).toBe('application/x-www-form-urlencoded');
    const claims = await verifyLogoutToken(delivery!.form.get('logout_token')!);
    expect(claims).toMatchObject({ sub: fixture.userUuid, sid, events: { [EVENT]: {} } });
    expect(claims.jti).toEqual(expect.any(String));
    expect(claims).not.toHaveProperty('nonce');
    // The session is over: a silent sign-in needs a login again.
    const silent = new URLSearchParams({ client_id: client.client_id, redirect_uri: REDIRECT, response_type: 'code', scope: 'openid', prompt: 'none' });
    expect(redirectOf(await browser.get(`/connect/authorize?${silent}`)).query.get('error')).toBe('login_required');
  });

  it('retries a delivery the relying party answered with 500', async () => {
    rp.received.length = 0;
    rp.statuses.push(500);
    const { browser, idToken } = await signIn();
    const confirm = await (await browser.get(`/connect/endsession?id_token_hint=${idToken}`)).text();
    await browser.submit(confirm, { decision: 'logout' }, '/connect/endsession');
    const [first, second] = await received(rp, 2);
    expect((await verifyLogoutToken(second!.form.get('logout_token')!)).sid).toBe(decodeJwt(idToken).sid);
    // A fresh token each attempt.
    expect(decodeJwt(first!.form.get('logout_token')!).jti).not.toBe(decodeJwt(second!.form.get('logout_token')!).jti);
    const deliveries = await listLogoutDeliveries(fixture.server.deps.db, client.client_id);
    expect(deliveries.at(-1)).toMatchObject({ state: 'sent', attempts: 2, error: 'HTTP 500' });
  });

  it('deactivating the user tells the relying party of each of their sessions', async () => {
    rp.received.length = 0;
    const { idToken } = await signIn();
    const sessions = await listUserSessions(fixture.server.deps, fixture.appUuid, fixture.userUuid);
    expect(sessions.length).toBeGreaterThan(1);
    await api(fixture, 'PUT', `/acme/shop/users/${fixture.userUuid}/deactivate`);
    const deliveries = await received(rp, sessions.length);
    const claims = await Promise.all(deliveries.map((delivery) => verifyLogoutToken(delivery.form.get('logout_token')!)));
    expect(claims.every((claim) => claim.sub === fixture.userUuid)).toBe(true);
    expect(new Set(claims.map((claim) => claim.sid)).size).toBe(sessions.length);
    expect(claims.map((claim) => claim.sid)).toContain(decodeJwt(idToken).sid);
    await api(fixture, 'PUT', `/acme/shop/users/${fixture.userUuid}/activate`);
  });

  it('refuses logout URIs that are not http(s), and keeps the client unchanged', async () => {
    for (const [field, value, error] of [
      ['backchannel_logout_uri', 'javascript:alert(1)', 'invalid_client_metadata'],
      ['frontchannel_logout_uri', 'https://rp.example/logout#frag', 'invalid_client_metadata'],
      ['backchannel_logout_uri', 'https://user:pw@rp.example/logout', 'invalid_client_metadata'],
      ['backchannel_logout_session_required', 'yes', 'illegal_argument'],
    ] as const) {
      const response = await fetch(`${fixture.url}/management/orgs/acme/apps/shop/clients/${client.client_id}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${fixture.adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'Shop', redirect_uris: [REDIRECT], [field]: value }),
      });
      expect(response.status).toBe(400);
      const body = (await response.json()) as { error: string; fields: Record<string, string> };
      expect(body.error).toBe(error);
      expect(Object.keys(body.fields)).toContain(field);
    }
    const stored = (await api(fixture, 'GET', `/management/orgs/acme/apps/shop/clients/${client.client_id}`)).entities[0]!;
    expect(stored).toMatchObject({ backchannel_logout_uri: `${rp.url}/backchannel?tenant=a`, backchannel_logout_session_required: true });
  });
});
