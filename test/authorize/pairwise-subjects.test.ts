/**
 * Pairwise subject identifiers (OIDC Core 8.1) with openid-client as the relying party: one user
 * signs in through clients of several sectors; each sector sees its own stable `sub` in the ID
 * token, at userinfo, in the access token and at introspection, and the data API still knows the
 * user from a pairwise access token. The sector identifier document is served by a real HTTP
 * server; registrations it does not vouch for are refused with nothing stored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as oidc from 'openid-client';
import { decodeJwt } from 'jose';
import {
  api,
  applicationCredentialsToken,
  authorizeAsUser,
  Browser,
  createClient,
  createFixture,
  discover,
  signInWithOpenidClient,
  startIdp,
  type Fixture,
  type RegisteredClient,
} from './support.js';
import { basic } from '../oauth/fixtures.js';

const CLIENTS = '/management/orgs/acme/apps/shop/clients';
const A = 'https://a.example/callback';
const A2 = 'https://a.example/other-callback';
const B = 'https://b.example/callback';
const X = 'https://x.example/cb';
const Y = 'https://y.example/cb';

let fixture: Fixture;
let documents: Server;
let sectorBase: string;
/** A port on the loopback address nothing listens on. */
let closedPort: number;

/** What the sector host serves: documents by path, a slow answer and one too large. */
const SERVED: Record<string, string> = {
  '/sector.json': JSON.stringify([X, Y]),
  '/only-x.json': JSON.stringify([X]),
  '/object.json': JSON.stringify({ redirect_uris: [X, Y] }),
  '/large.json': JSON.stringify([X, Y, ...Array.from({ length: 4000 }, (_, i) => `https://filler.example/${'x'.repeat(20)}/${i}`)]),
};

beforeAll(async () => {
  documents = createServer((request, response) => {
    const body = SERVED[request.url ?? ''];
    // An answer that starts and never ends.
    if (request.url === '/slow') response.writeHead(200, { 'content-type': 'application/json' }).write('[');
    else if (body === undefined) response.writeHead(404).end();
    else response.writeHead(200, { 'content-type': 'application/json' }).end(body);
  });
  await new Promise<void>((resolve) => documents.listen(0, '127.0.0.1', resolve));
  sectorBase = `http://127.0.0.1:${(documents.address() as AddressInfo).port}`;
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  closedPort = (closed.address() as AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
  fixture = await createFixture(await startIdp());
});
afterAll(async () => {
  await fixture.server.close();
  documents.closeAllConnections();
  await new Promise((resolve) => documents.close(resolve));
});

async function pairwiseClient(redirectUris: string[], sectorIdentifierUri?: string): Promise<RegisteredClient> {
  return createClient(fixture, {
    redirect_uris: redirectUris,
    response_types: ['code', 'code token', 'code id_token token'],
    require_consent: false,
    subject_type: 'pairwise',
    sector_identifier_uri: sectorIdentifierUri,
  });
}

interface SignIn {
  idToken: Record<string, unknown>;
  accessToken: string;
  refreshToken?: string;
  config: oidc.Configuration;
}

/** The code flow through openid-client for `client`, coming back to `redirectUri`. */
async function signIn(client: RegisteredClient, redirectUri: string, scope = 'openid profile api offline_access'): Promise<SignIn> {
  const config = await discover(fixture, client);
  const tokens = await signInWithOpenidClient(fixture, config, { scope, redirect_uri: redirectUri });
  return { idToken: tokens.claims()!, accessToken: tokens.access_token, refreshToken: tokens.refresh_token, config };
}

async function usersMe(accessToken: string): Promise<Response> {
  return fetch(`${fixture.url}/acme/shop/users/me`, { headers: { authorization: `Bearer ${accessToken}` } });
}

async function introspect(client: RegisteredClient, token: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${fixture.url}/connect/introspect`, {
    method: 'POST',
    headers: { authorization: basic(client.client_id, client.client_secret!), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token }).toString(),
  });
  return (await response.json()) as Record<string, unknown>;
}

async function createRefused(metadata: Record<string, unknown>): Promise<{ status: number; body: Record<string, unknown> }> {
  const before = (await api(fixture, 'GET', CLIENTS)).count;
  const response = await fetch(`${fixture.url}${CLIENTS}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${fixture.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'refused', grant_types: ['authorization_code'], ...metadata }),
  });
  expect((await api(fixture, 'GET', CLIENTS)).count).toBe(before);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('pairwise subject identifiers', () => {
  it('are announced in discovery', async () => {
    const metadata = (await (await fetch(`${fixture.url}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(metadata.subject_types_supported).toEqual(['public', 'pairwise']);
  });

  it('give each sector its own stable sub, the same one in the ID token, userinfo, the access token and introspection', async () => {
    const a = await pairwiseClient([A]);
    const sameSector = await pairwiseClient([A2]);
    const b = await pairwiseClient([B]);
    const publicClient = await createClient(fixture, { require_consent: false });

    const first = await signIn(a, A);
    const sub = first.idToken.sub as string;
    expect(sub).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(sub).not.toBe(fixture.userUuid);
    expect((await signIn(a, A)).idToken.sub).toBe(sub);
    expect((await signIn(sameSector, A2)).idToken.sub).toBe(sub);
    const other = (await signIn(b, B)).idToken.sub as string;
    expect(other).not.toBe(sub);
    expect(other).not.toBe(fixture.userUuid);
    expect((await signIn(publicClient, 'https://rp.example/callback')).idToken.sub).toBe(fixture.userUuid);

    // openid-client checks that userinfo's sub is the ID token's.
    const info = await oidc.fetchUserInfo(first.config, first.accessToken, sub);
    expect(info).toMatchObject({ sub, preferred_username: 'bob' });

    // The access token says the same sub, and nothing the client could read gives the user's own id away.
    const payload = decodeJwt(first.accessToken);
    expect(payload.sub).toBe(sub);
    expect(JSON.stringify(payload)).not.toContain(fixture.userUuid);
    expect(await introspect(a, first.accessToken)).toMatchObject({ active: true, sub, client_id: a.client_id });
    expect(await introspect(a, first.refreshToken!)).toMatchObject({ active: true, token_type: 'refresh_token', sub });
    const refreshed = await oidc.refreshTokenGrant(first.config, first.refreshToken!);
    expect(refreshed.claims()!.sub).toBe(sub);
    expect(decodeJwt(refreshed.access_token).sub).toBe(sub);
  });

  it('leave the data API working: a pairwise access token still acts as its user', async () => {
    const a = await pairwiseClient([A]);
    const { accessToken } = await signIn(a, A, 'openid api');
    const me = await usersMe(accessToken);
    expect(me.status).toBe(200);
    expect(((await me.json()) as { entities: { uuid: string; username: string }[] }).entities[0]).toMatchObject({ uuid: fixture.userUuid, username: 'bob' });
    const written = await fetch(`${fixture.url}/acme/shop/users/me`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ nickname: 'bobby' }),
    });
    expect(written.status).toBe(200);
    const read = (await api(fixture, 'GET', `/acme/shop/users/${fixture.userUuid}`)).entities[0]!;
    expect(read.nickname).toBe('bobby');
  });

  it('apply to the front channel too: code token and code id_token token give the pairwise sub', async () => {
    const a = await pairwiseClient([A]);
    const sub = (await signIn(a, A, 'openid')).idToken.sub;
    for (const responseType of ['code token', 'code id_token token']) {
      const query = new URLSearchParams({ client_id: a.client_id, redirect_uri: A, response_type: responseType, scope: 'openid api', nonce: 'n-1' });
      const response = await authorizeAsUser(new Browser(fixture.url), `/connect/authorize?${query}`);
      const fragment = new URLSearchParams(new URL(response.headers.get('location')!).hash.slice(1));
      expect(decodeJwt(fragment.get('access_token')!).sub, responseType).toBe(sub);
      expect(fragment.has('id_token')).toBe(responseType.includes('id_token'));
      if (fragment.has('id_token')) expect(decodeJwt(fragment.get('id_token')!).sub).toBe(sub);
      expect((await usersMe(fragment.get('access_token')!)).status).toBe(200);
    }
  });

  it('take the sector from a sector_identifier_uri that lists every redirect URI, whatever their hosts', async () => {
    const x = await pairwiseClient([X, Y], `${sectorBase}/sector.json`);
    const onlyX = await pairwiseClient([X], `${sectorBase}/only-x.json`);
    const plainX = await pairwiseClient([X]);
    const sub = (await signIn(x, Y)).idToken.sub;
    // Both name the same sector host (127.0.0.1), so the same sub; x.example alone is another sector.
    expect((await signIn(onlyX, X)).idToken.sub).toBe(sub);
    expect((await signIn(plainX, X)).idToken.sub).not.toBe(sub);
    const stored = (await api(fixture, 'GET', `${CLIENTS}/${x.client_id}`)).entities[0]!;
    expect(stored).toMatchObject({ subject_type: 'pairwise', sector_identifier_uri: `${sectorBase}/sector.json` });
  });

  it('refuse a client whose sector cannot be told or is not vouched for, storing nothing', { timeout: 20_000 }, async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ subject_type: 'pairwise', redirect_uris: [A, B] }, /needs a sector_identifier_uri unless the redirect_uris all share one host/],
      [{ subject_type: 'pairwise', redirect_uris: ['com.example.app:/cb'] }, /needs a sector_identifier_uri/],
      [
        { subject_type: 'pairwise', redirect_uris: [X, Y], sector_identifier_uri: `${sectorBase}/only-x.json` },
        /does not list the redirect URI 'https:\/\/y\.example\/cb'/,
      ],
      [{ subject_type: 'pairwise', redirect_uris: [X], sector_identifier_uri: `${sectorBase}/object.json` }, /must be a JSON array of redirect URIs/],
      [{ subject_type: 'pairwise', redirect_uris: [X], sector_identifier_uri: `${sectorBase}/missing.json` }, /could not be fetched: the answer was HTTP 404/],
      [
        { subject_type: 'pairwise', redirect_uris: [X], sector_identifier_uri: `${sectorBase}/large.json` },
        /could not be fetched: the document is larger than 65536 bytes/,
      ],
      [
        { subject_type: 'pairwise', redirect_uris: [X], sector_identifier_uri: `http://127.0.0.1:${closedPort}/s.json` },
        /could not be fetched: it could not be reached \(ECONNREFUSED\)/,
      ],
      [{ subject_type: 'pairwise', redirect_uris: [X], sector_identifier_uri: `${sectorBase}/slow` }, /could not be fetched: no answer within 5 seconds/],
      [{ subject_type: 'pairwise', redirect_uris: [X], sector_identifier_uri: 'http://sector.example/s.json' }, /sector_identifier_uri must be an https URL/],
      [{ subject_type: 'anonymous', redirect_uris: [X] }, /subject_type must be one of public, pairwise/],
    ];
    for (const [metadata, message] of cases) {
      const { status, body } = await createRefused(metadata);
      expect(status, JSON.stringify(body)).toBe(400);
      expect(body.error).toMatch(/^invalid_(client_metadata|redirect_uri)$|^illegal_argument$/);
      expect(body.error_description).toMatch(message);
    }
  });

  it('are refused at /connect/register for a sector_identifier_uri that is not https', async () => {
    const access_token = await applicationCredentialsToken(fixture);
    const register = (metadata: Record<string, unknown>) =>
      fetch(`${fixture.url}/connect/register`, {
        method: 'POST',
        headers: { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'dyn', redirect_uris: [X], subject_type: 'pairwise', ...metadata }),
      });
    const refused = await register({ sector_identifier_uri: `${sectorBase}/sector.json` });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: 'invalid_client_metadata', error_description: expect.stringMatching(/https URL/) });
    const registered = await register({});
    expect(registered.status).toBe(201);
    expect(await registered.json()).toMatchObject({ subject_type: 'pairwise' });
  });
});
