/**
 * Pushed authorization requests (RFC 9126): openid-client pushes the request and the browser
 * brings only the request_uri through a real sign-in; the request_uri is single-use, expires
 * after 60 s and belongs to the client that pushed it; clients and servers that require PAR
 * refuse anything else; the endpoint refuses what /connect/authorize would, storing nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as oidc from 'openid-client';
import { authorizeAsUser, api, Browser, createClient, createFixture, REDIRECT, redirectOf, startIdp, type Fixture, type RegisteredClient } from './support.js';
import { basic, pkcePair } from '../oauth/fixtures.js';
import { snapshot, type Clock } from '../helpers.js';
import { pruneExpired } from '../../src/operations/housekeeping.js';
import { startTestServer } from '../database.js';

let fixture: Fixture;
let confidential: RegisteredClient;
let publicClient: RegisteredClient;
const clock: Clock = { now: Date.now() };

beforeAll(async () => {
  fixture = await createFixture(await startIdp({ now: () => clock.now }));
  confidential = await createClient(fixture, { require_consent: false });
  publicClient = await createClient(fixture, {
    require_consent: false,
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code'],
    response_types: ['code'],
  });
});
afterAll(() => fixture.server.close());

async function discover(client: RegisteredClient, url = fixture.url): Promise<oidc.Configuration> {
  const auth = client.client_secret === undefined ? oidc.None() : oidc.ClientSecretBasic(client.client_secret);
  return oidc.discovery(new URL(url), client.client_id, undefined, auth, { execute: [oidc.allowInsecureRequests] });
}

/** Pushes a code request of `client` as openid-client does; the URL the browser is sent to, and what the code exchange needs. */
async function pushWithOpenidClient(config: oidc.Configuration) {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const url = await oidc.buildAuthorizationUrlWithPAR(config, {
    redirect_uri: REDIRECT,
    response_type: 'code',
    scope: 'openid profile',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
  });
  return { url, verifier, state, nonce };
}

/** POST /connect/par by hand; `client` authenticates with HTTP Basic, or by client_id when public. */
async function push(client: RegisteredClient, params: Record<string, string>, url = fixture.url): Promise<Response> {
  const form = { ...params, ...(client.client_secret === undefined && { client_id: client.client_id }) };
  return fetch(`${url}/connect/par`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(client.client_secret !== undefined && { authorization: basic(client.client_id, client.client_secret) }),
    },
    body: new URLSearchParams(form).toString(),
  });
}

const CODE_REQUEST = {
  redirect_uri: REDIRECT,
  response_type: 'code',
  scope: 'openid',
  state: 'st',
  code_challenge: pkcePair().challenge,
  code_challenge_method: 'S256',
};

async function pushedUri(client: RegisteredClient, url = fixture.url): Promise<string> {
  const response = await push(client, CODE_REQUEST, url);
  expect(response.status, await response.clone().text()).toBe(201);
  return ((await response.json()) as { request_uri: string }).request_uri;
}

function authorizeUrl(client: RegisteredClient, params: Record<string, string>): string {
  return `/connect/authorize?${new URLSearchParams({ client_id: client.client_id, ...params })}`;
}

async function expectRequestUriRefused(response: Response): Promise<void> {
  expect(response.status).toBe(400);
  expect(response.headers.get('location')).toBeNull();
  expect(await response.text()).toContain('data-error="invalid_request_uri"');
}

describe('pushed authorization requests with openid-client', () => {
  it('discovery names the endpoint and whether every client must use it', async () => {
    const metadata = (await discover(confidential)).serverMetadata();
    expect(metadata.pushed_authorization_request_endpoint).toBe(`${fixture.url}/connect/par`);
    expect(metadata.require_pushed_authorization_requests).toBe(false);
  });

  it('a confidential client pushes its request, the user signs in, and the code is exchanged', async () => {
    const config = await discover(confidential);
    const { url, verifier, state, nonce } = await pushWithOpenidClient(config);
    // Only client_id and request_uri travel through the browser.
    expect([...url.searchParams.keys()].sort()).toEqual(['client_id', 'request_uri']);
    expect(url.searchParams.get('request_uri')).toMatch(/^urn:ietf:params:oauth:request_uri:[\w-]{43}$/);
    const response = await authorizeAsUser(new Browser(fixture.url), url.toString());
    const tokens = await oidc.authorizationCodeGrant(config, new URL(response.headers.get('location')!), {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
      idTokenExpected: true,
    });
    expect(tokens.claims()!.preferred_username).toBe('bob');
    expect(tokens.scope).toBe('openid profile');
  });

  it('a public client pushes with its client_id alone', async () => {
    const config = await discover(publicClient);
    const { url, verifier, state, nonce } = await pushWithOpenidClient(config);
    const response = await authorizeAsUser(new Browser(fixture.url), url.toString());
    const tokens = await oidc.authorizationCodeGrant(config, new URL(response.headers.get('location')!), {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
    });
    expect(tokens.access_token).toEqual(expect.any(String));
  });
});

describe('the request_uri at /connect/authorize', () => {
  it('answers 201 with a request_uri that lives 60 seconds, not to be cached', async () => {
    const response = await push(confidential, CODE_REQUEST);
    expect(response.status).toBe(201);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await response.json()).toEqual({ request_uri: expect.stringMatching(/^urn:ietf:params:oauth:request_uri:/), expires_in: 60 });
  });

  it('is used once: the second use is shown the error page', async () => {
    const requestUri = await pushedUri(confidential);
    const first = await new Browser(fixture.url).get(authorizeUrl(confidential, { request_uri: requestUri }));
    expect(first.status).toBe(200);
    expect(await first.text()).toContain('action="/connect/authorize/login"');
    await expectRequestUriRefused(await new Browser(fixture.url).get(authorizeUrl(confidential, { request_uri: requestUri })));
  });

  it('stops working after 60 seconds', async () => {
    const requestUri = await pushedUri(confidential);
    clock.now += 61_000;
    try {
      await expectRequestUriRefused(await new Browser(fixture.url).get(authorizeUrl(confidential, { request_uri: requestUri })));
    } finally {
      clock.now -= 61_000;
    }
  });

  it("is refused with another client's id, and stays usable by its own client", async () => {
    const requestUri = await pushedUri(confidential);
    await expectRequestUriRefused(await new Browser(fixture.url).get(authorizeUrl(publicClient, { request_uri: requestUri })));
    const own = await new Browser(fixture.url).get(authorizeUrl(confidential, { request_uri: requestUri }));
    expect(own.status).toBe(200);
  });

  it('an unknown request_uri and one without client_id are refused on the error page', async () => {
    await expectRequestUriRefused(await new Browser(fixture.url).get(authorizeUrl(confidential, { request_uri: 'urn:ietf:params:oauth:request_uri:nope' })));
    const noClient = await new Browser(fixture.url).get(`/connect/authorize?${new URLSearchParams({ request_uri: await pushedUri(confidential) })}`);
    expect(noClient.status).toBe(400);
    expect(await noClient.text()).toContain('data-error="missing_client_id"');
  });

  it('the pushed parameters win: parameters sent beside request_uri are ignored', async () => {
    const requestUri = await pushedUri(publicClient);
    const response = await authorizeAsUser(
      new Browser(fixture.url),
      authorizeUrl(publicClient, { request_uri: requestUri, redirect_uri: 'https://evil.example/cb', state: 'changed' }),
    );
    const { url, query } = redirectOf(response);
    expect(`${url.origin}${url.pathname}`).toBe(REDIRECT);
    expect(query.get('state')).toBe('st');
    expect(query.get('code')).toEqual(expect.any(String));
  });

  it('housekeeping forgets pushed requests that expired', async () => {
    await pushedUri(confidential);
    clock.now += 61_000;
    try {
      expect((await pruneExpired(fixture.server.deps)).pushed_authorization_requests).toBeGreaterThanOrEqual(1);
      expect((await pruneExpired(fixture.server.deps)).pushed_authorization_requests).toBe(0);
    } finally {
      clock.now -= 61_000;
    }
  });
});

describe('/connect/par refuses what /connect/authorize would, and stores nothing', () => {
  const cases: [name: string, client: () => RegisteredClient, params: Record<string, string>, status: number, error: string][] = [
    ['an unregistered redirect_uri', () => confidential, { ...CODE_REQUEST, redirect_uri: 'https://evil.example/cb' }, 400, 'invalid_request'],
    ['no redirect_uri', () => confidential, { response_type: 'code', scope: 'openid' }, 400, 'invalid_request'],
    ['an unsupported response_type', () => confidential, { ...CODE_REQUEST, response_type: 'code tea' }, 400, 'unsupported_response_type'],
    ['an unknown scope', () => confidential, { ...CODE_REQUEST, scope: 'openid admin' }, 400, 'invalid_scope'],
    ['a public client without PKCE', () => publicClient, { redirect_uri: REDIRECT, response_type: 'code', scope: 'openid' }, 400, 'invalid_request'],
    [
      'a request_uri inside the pushed request',
      () => confidential,
      { ...CODE_REQUEST, request_uri: 'urn:ietf:params:oauth:request_uri:x' },
      400,
      'invalid_request',
    ],
    ['a wrong client secret', () => ({ ...confidential, client_secret: 'wrong' }), CODE_REQUEST, 401, 'invalid_client'],
    ['a confidential client without its secret', () => ({ client_id: confidential.client_id }), CODE_REQUEST, 401, 'invalid_client'],
  ];
  it.each(cases)('%s', async (_name, client, params, status, error) => {
    const before = await snapshot(fixture.server);
    const response = await push(client(), params);
    expect(response.status).toBe(status);
    expect(await response.json()).toMatchObject({ error, error_description: expect.any(String) });
    expect(await snapshot(fixture.server)).toBe(before);
  });

  it('takes only POST', async () => {
    const response = await fetch(`${fixture.url}/connect/par`);
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  });
});

describe('requiring pushed requests', () => {
  it('a client whose metadata requires PAR is answered invalid_request at its redirect URI without it', async () => {
    const strict = await createClient(fixture, { require_consent: false, require_pushed_authorization_requests: true });
    const read = await api(fixture, 'GET', `/management/orgs/acme/apps/shop/clients/${strict.client_id}`);
    expect(read.entities[0]!.require_pushed_authorization_requests).toBe(true);
    const direct = await new Browser(fixture.url).get(authorizeUrl(strict, CODE_REQUEST));
    const { query } = redirectOf(direct);
    expect(query.get('error')).toBe('invalid_request');
    expect(query.get('error_description')).toContain('/connect/par');
    expect(query.get('state')).toBe('st');
    const pushed = await new Browser(fixture.url).get(authorizeUrl(strict, { request_uri: await pushedUri(strict) }));
    expect(pushed.status).toBe(200);
    expect(await pushed.text()).toContain('action="/connect/authorize/login"');
  });

  it('idp serve --require-par requires it of every client, and discovery says so', async () => {
    const server = await startTestServer({ host: '127.0.0.1', port: '0', requirePar: true });
    try {
      const other = await createFixture(server);
      const client = await createClient(other, { require_consent: false });
      expect((await discover(client, other.url)).serverMetadata().require_pushed_authorization_requests).toBe(true);
      const direct = await new Browser(other.url).get(authorizeUrl(client, CODE_REQUEST));
      expect(redirectOf(direct).query.get('error')).toBe('invalid_request');
      const pushed = await new Browser(other.url).get(authorizeUrl(client, { request_uri: await pushedUri(client, other.url) }));
      expect(pushed.status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
