/**
 * Dynamic client registration (RFC 7591) at /connect/register and the management of a registered
 * client (RFC 7592) with its registration access token: who may register (the application's
 * credentials token, a minted initial access token, nobody without one unless the application
 * allows open registration), what metadata is refused and how, and that a registered client works
 * at the token endpoint and stops working once deleted. openid-client 6 registers as a relying
 * party would, then signs a user in with the client it got.
 */
import { afterAll, beforeAll, beforeEach, afterEach, describe, expect, it } from 'vitest';
import * as oidc from 'openid-client';
import { createTestApp, expectRefusal, expectRefusedUnchanged, snapshot, type Clock, type TestApp, type TestResponse } from '../helpers.js';
import { basic, createTenant, token, type Tenant } from './fixtures.js';
import type { RunningServer } from '../../server/serve.js';
import { Browser, authorizeAsUser, createFixture, startIdp, USER, type Fixture } from '../authorize/support.js';

const APP = '/management/orgs/acme/apps/sandbox';
const WEB = { client_name: 'web', redirect_uris: ['https://rp.example/cb'] };

function register(t: TestApp, metadata: unknown, bearer?: string, headers: Record<string, string> = {}): Promise<TestResponse> {
  return t.request('POST', '/connect/register', { json: metadata, token: bearer, headers });
}

async function credentialsToken(t: TestApp, tenant: Tenant): Promise<string> {
  const res = await token(t, { grant_type: 'client_credentials' }, { authorization: basic(tenant.app.client_id, tenant.app.client_secret) });
  expect(res.status, res.text).toBe(200);
  return res.body.access_token;
}

async function mint(t: TestApp, tenant: Tenant, body: unknown = {}): Promise<{ id: string; token: string } & Record<string, unknown>> {
  const res = await t.request('POST', `${APP}/clients/initial-access-tokens`, { json: body, token: tenant.adminToken });
  expect(res.status, res.text).toBe(200);
  return res.body.entities[0];
}

async function setOpenRegistration(t: TestApp, tenant: Tenant, open: boolean): Promise<TestResponse> {
  const res = await t.request('PUT', APP, { json: { openClientRegistration: open }, token: tenant.adminToken });
  expect(res.status, res.text).toBe(200);
  return res;
}

/** An RFC 6750 refusal of the Bearer token: 401 invalid_token naming the scheme, never cached. */
function expectInvalidToken(res: TestResponse): void {
  expectRefusal(res, 401, 'invalid_token');
  expect(res.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
  expect(res.headers.get('cache-control')).toBe('no-store');
}

describe('POST /connect/register', () => {
  let t: TestApp;
  let tenant: Tenant;
  let clock: Clock;
  beforeEach(async () => {
    clock = { now: Date.now() };
    t = await createTestApp({}, { now: () => clock.now });
    tenant = await createTenant(t);
  });
  afterEach(() => t.close());

  it('is in the discovery document', async () => {
    const res = await t.request('GET', '/.well-known/openid-configuration');
    expect(res.body.registration_endpoint).toBe('http://idp.test/connect/register');
  });

  it("registers a confidential client with the application's credentials token, and the client gets tokens", async () => {
    const res = await register(t, { ...WEB, grant_types: ['authorization_code', 'client_credentials'] }, await credentialsToken(t, tenant));
    expect(res.status, res.text).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toMatchObject({
      client_name: 'web',
      redirect_uris: ['https://rp.example/cb'],
      grant_types: ['authorization_code', 'client_credentials'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
      client_secret_expires_at: 0,
      registration_client_uri: `http://idp.test/connect/register/${res.body.client_id}`,
    });
    expect(res.body.client_id_issued_at).toBe(Math.floor(clock.now / 1000));
    expect(res.body.client_secret).toEqual(expect.any(String));
    expect(res.body.registration_access_token).toEqual(expect.any(String));
    // The new client is one of the application's clients, as if its administrators had made it.
    const listed = await t.request('GET', `${APP}/clients/${res.body.client_id}`, { token: tenant.adminToken });
    expect(listed.body.entities[0]).toMatchObject({ client_name: 'web', redirect_uris: ['https://rp.example/cb'] });
    const granted = await token(t, { grant_type: 'client_credentials' }, { authorization: basic(res.body.client_id, res.body.client_secret) });
    expect(granted.status, granted.text).toBe(200);
    const dogs = await t.request('POST', '/acme/sandbox/dogs', { json: { name: 'rex' }, token: granted.body.access_token });
    expect(dogs.status, dogs.text).toBe(200);
  });

  it('registers a public client: no secret, PKCE required', async () => {
    const res = await register(t, { token_endpoint_auth_method: 'none', redirect_uris: ['http://127.0.0.1:8123/cb'] }, await credentialsToken(t, tenant));
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ token_endpoint_auth_method: 'none', require_pkce: true });
    expect(res.body).not.toHaveProperty('client_secret');
    expect(res.body).not.toHaveProperty('client_secret_expires_at');
  });

  it('registers the logout channels (OIDC Back-Channel and Front-Channel Logout), https only but on the loopback address', async () => {
    const logout = {
      backchannel_logout_uri: 'https://rp.example/backchannel',
      backchannel_logout_session_required: true,
      frontchannel_logout_uri: 'http://127.0.0.1:8123/frontchannel',
    };
    const res = await register(t, { ...WEB, ...logout }, await credentialsToken(t, tenant));
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ ...logout, frontchannel_logout_session_required: false });
    const bearer = await credentialsToken(t, tenant);
    const plain = await expectRefusedUnchanged(
      t,
      () => register(t, { ...WEB, backchannel_logout_uri: 'http://intranet.example/logout' }, bearer),
      400,
      'invalid_client_metadata',
    );
    expect(plain.body.fields).toHaveProperty('backchannel_logout_uri');
  });

  it('takes a minted initial access token once: a second use is refused and stores nothing', async () => {
    const minted = await mint(t, tenant);
    expect(minted).toMatchObject({ type: 'initial_access_token', count: 1, remainingCount: 1, expiration: 86_400 });
    const first = await register(t, WEB, minted.token);
    expect(first.status, first.text).toBe(201);
    expectInvalidToken(await expectRefusedUnchanged(t, () => register(t, WEB, minted.token), 401, 'invalid_token'));
    // Spent, it is gone from the list; the secret token is never shown again.
    const list = await t.request('GET', `${APP}/clients/initial-access-tokens`, { token: tenant.adminToken });
    expect(list.body.count).toBe(0);
  });

  it('counts the uses of a token minted for several, shows them, and lets an administrator revoke it', async () => {
    const minted = await mint(t, tenant, { count: 3, expiration: 600 });
    expect((await register(t, WEB, minted.token)).status).toBe(201);
    const list = await t.request('GET', `${APP}/clients/initial-access-tokens`, { token: tenant.adminToken });
    expect(list.body.entities).toEqual([expect.objectContaining({ id: minted.id, count: 3, remainingCount: 2, expiration: 600 })]);
    expect(list.body.entities[0]).not.toHaveProperty('token');
    expect(list.text).not.toContain(minted.token);
    const revoked = await t.request('DELETE', `${APP}/clients/initial-access-tokens/${minted.id}`, { token: tenant.adminToken });
    expect(revoked.status, revoked.text).toBe(200);
    expectInvalidToken(await expectRefusedUnchanged(t, () => register(t, WEB, minted.token), 401, 'invalid_token'));
  });

  it('refuses a minted token once it has expired', async () => {
    const minted = await mint(t, tenant, { expiration: 60 });
    clock.now += 61_000;
    expectInvalidToken(await expectRefusedUnchanged(t, () => register(t, WEB, minted.token), 401, 'invalid_token'));
  });

  it.each([
    ['an expiration of 0', { expiration: 0 }, 'expiration'],
    ['an expiration past 30 days', { expiration: 2_592_001 }, 'expiration'],
    ['a count of 0', { count: 0 }, 'count'],
    ['a fractional count', { count: 1.5 }, 'count'],
    ['an unknown member', { uses: 2 }, 'body'],
  ])('refuses to mint a token with %s', async (_name, body, field) => {
    const res = await expectRefusedUnchanged(
      t,
      () => t.request('POST', `${APP}/clients/initial-access-tokens`, { json: body, token: tenant.adminToken }),
      400,
      'illegal_argument',
    );
    expect(Object.keys(res.body.fields).join()).toContain(field === 'body' ? '' : field);
  });

  it.each([
    ['no token', undefined],
    ['a token that is no token of this server', 'not-a-token'],
    ["an admin's token", 'admin'],
    ["an OAuth client's client_credentials token", 'oauth-client'],
    ["an app user's token", 'app-user'],
  ])('refuses %s with 401 invalid_token, storing nothing', async (_name, kind) => {
    let bearer = kind;
    if (kind === 'admin') bearer = tenant.adminToken;
    if (kind === 'oauth-client') {
      const made = await register(t, { grant_types: ['client_credentials'] }, await credentialsToken(t, tenant));
      bearer = (await token(t, { grant_type: 'client_credentials' }, { authorization: basic(made.body.client_id, made.body.client_secret) })).body.access_token;
    }
    if (kind === 'app-user') {
      await t.request('POST', '/acme/sandbox/users', { json: { username: 'fred', password: 'fred-password-1' } });
      bearer = (await t.request('POST', '/acme/sandbox/token', { json: { grant_type: 'password', username: 'fred', password: 'fred-password-1' } })).body
        .access_token;
    }
    expectInvalidToken(await expectRefusedUnchanged(t, () => register(t, { ...WEB, application: 'acme/sandbox' }, bearer), 401, 'invalid_token'));
  });

  it('refuses bad metadata without a valid token with 401, not by telling what is wrong with it', async () => {
    expectInvalidToken(await expectRefusedUnchanged(t, () => register(t, { redirect_uris: 'nope' }), 401, 'invalid_token'));
  });

  describe('metadata', () => {
    let bearer: string;
    beforeEach(async () => {
      bearer = await credentialsToken(t, tenant);
    });

    it.each(
      [
        ['a redirect URI with a fragment', { redirect_uris: ['https://rp.example/cb#x'] }, 'invalid_redirect_uri', 'redirect_uris'],
        ['a plain-http redirect URI off the loopback address', { redirect_uris: ['http://rp.example/cb'] }, 'invalid_redirect_uri', 'redirect_uris'],
        ['a javascript: redirect URI', { redirect_uris: ['javascript:alert(1)'] }, 'invalid_redirect_uri', 'redirect_uris'],
        ['a code flow without redirect URIs', { grant_types: ['authorization_code'] }, 'invalid_redirect_uri', 'redirect_uris'],
        ['redirect_uris that is no list', { redirect_uris: 'https://rp.example/cb' }, 'invalid_redirect_uri', 'redirect_uris'],
        [
          'a post-logout URI over plain http',
          { ...WEB, post_logout_redirect_uris: ['http://rp.example/bye'] },
          'invalid_redirect_uri',
          'post_logout_redirect_uris',
        ],
        ['response type token without the implicit grant', { ...WEB, response_types: ['token'] }, 'invalid_client_metadata', 'response_types'],
        ['response type code without its grant', { ...WEB, grant_types: ['implicit'], response_types: ['code'] }, 'invalid_client_metadata', 'response_types'],
        ['an unknown grant type', { ...WEB, grant_types: ['magic'] }, 'invalid_client_metadata', 'grant_types'],
        [
          'a public client with client_credentials',
          { grant_types: ['client_credentials'], token_endpoint_auth_method: 'none' },
          'invalid_client_metadata',
          'grant_types',
        ],
        ['an unsupported auth method', { ...WEB, token_endpoint_auth_method: 'tls_client_auth' }, 'invalid_client_metadata', 'token_endpoint_auth_method'],
        ['private_key_jwt without keys', { ...WEB, token_endpoint_auth_method: 'private_key_jwt' }, 'invalid_client_metadata', 'jwks'],
        ['jwks and jwks_uri together', { ...WEB, jwks: { keys: [] }, jwks_uri: 'https://rp.example/jwks' }, 'invalid_client_metadata', 'jwks'],
        ['a jwks_uri over plain http', { ...WEB, jwks_uri: 'http://rp.example/jwks' }, 'invalid_client_metadata', 'jwks_uri'],
        ['a jwks_uri on the loopback address', { ...WEB, jwks_uri: 'http://127.0.0.1:9/jwks' }, 'invalid_client_metadata', 'jwks_uri'],
        ['a client_name that is no string', { ...WEB, client_name: 42 }, 'invalid_client_metadata', 'client_name'],
        ['an unknown scope', { ...WEB, scope: 'openid admin' }, 'invalid_client_metadata', 'scope'],
        ['a client_id of its own', { ...WEB, client_id: 'mine' }, 'invalid_client_metadata', 'client_id'],
        ['a client_secret of its own', { ...WEB, client_secret: 'mine' }, 'invalid_client_metadata', 'client_secret'],
        ['another application than the token’s', { ...WEB, application: 'acme/elsewhere' }, 'invalid_client_metadata', 'application'],
      ].map(([name, metadata, error, field]) => ({ name, metadata, error: error as string, field: field as string })),
    )('refuses $name: 400 $error naming $field, storing nothing', async ({ metadata, error, field }) => {
      const res = await expectRefusedUnchanged(t, () => register(t, metadata, bearer), 400, error);
      expect(Object.keys(res.body.fields)[0]).toMatch(new RegExp(`^${field}`));
      expect(res.headers.get('cache-control')).toBe('no-store');
    });

    it('takes JSON only', async () => {
      const res = await expectRefusedUnchanged(
        t,
        () => t.request('POST', '/connect/register', { form: { client_name: 'web' }, token: bearer }),
        415,
        'unsupported_media_type',
      );
      expect(res.body.error_description).toContain('application/json');
    });

    it('answers other methods with 405', async () => {
      const res = await t.request('GET', '/connect/register', { token: bearer });
      expectRefusal(res, 405, 'method_not_allowed');
      expect(res.headers.get('allow')).toBe('POST');
    });
  });

  describe('open registration', () => {
    it('is off by default: without a token, 401 even naming the application', async () => {
      expectInvalidToken(await expectRefusedUnchanged(t, () => register(t, { ...WEB, application: 'acme/sandbox' }), 401, 'invalid_token'));
    });

    it('when on, registers without a token a client of the named application, which must ask for consent', async () => {
      const settings = await setOpenRegistration(t, tenant, true);
      expect(settings.body.entities[0].openClientRegistration).toBe(true);
      const res = await register(t, { ...WEB, application: 'acme/sandbox' });
      expect(res.status, res.text).toBe(201);
      expect(res.body).toMatchObject({ require_consent: true, registration_access_token: expect.any(String) });
      expect((await t.request('GET', `${APP}/clients/${res.body.client_id}`, { token: tenant.adminToken })).status).toBe(200);
      expectInvalidToken(await expectRefusedUnchanged(t, () => register(t, WEB), 401, 'invalid_token'));
      expectInvalidToken(await expectRefusedUnchanged(t, () => register(t, { ...WEB, application: 'acme/nowhere' }), 401, 'invalid_token'));
    });

    it.each([
      ['client_credentials, which would act as the application', { grant_types: ['client_credentials'] }, 'grant_types'],
      ['sign-ins without consent', { ...WEB, require_consent: false }, 'require_consent'],
    ])('when on, still refuses %s', async (_name, metadata, field) => {
      await setOpenRegistration(t, tenant, true);
      const res = await expectRefusedUnchanged(t, () => register(t, { ...metadata, application: 'acme/sandbox' }), 400, 'invalid_client_metadata');
      expect(res.body.fields).toHaveProperty(field);
    });

    it('turned off again, refuses once more', async () => {
      await setOpenRegistration(t, tenant, true);
      const settings = await setOpenRegistration(t, tenant, false);
      expect(settings.body.entities[0]).not.toHaveProperty('openClientRegistration');
      expectInvalidToken(await expectRefusedUnchanged(t, () => register(t, { ...WEB, application: 'acme/sandbox' }), 401, 'invalid_token'));
    });
  });
});

describe('/connect/register/{client_id} (RFC 7592)', () => {
  let t: TestApp;
  let tenant: Tenant;
  let client: Record<string, any>;
  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t);
  });
  afterAll(() => t.close());
  beforeEach(async () => {
    const res = await register(t, { ...WEB, grant_types: ['authorization_code', 'client_credentials'] }, await credentialsToken(t, tenant));
    expect(res.status, res.text).toBe(201);
    client = res.body;
  });

  const at = () => `/connect/register/${client.client_id}`;

  it('reads the client with its registration access token, without the secret', async () => {
    const res = await t.request('GET', at(), { token: client.registration_access_token });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const { client_secret: _secret, ...expected } = client;
    expect(res.body).toEqual(expected);
    expect(res.text).not.toContain(client.client_secret);
  });

  it("refuses another client's registration access token, a made-up one, none, and an unknown client alike", async () => {
    const other = await register(t, WEB, await credentialsToken(t, tenant));
    for (const [path, bearer] of [
      [at(), other.body.registration_access_token],
      [at(), 'made-up'],
      [at(), undefined],
      ['/connect/register/nobody', client.registration_access_token],
    ]) {
      expectInvalidToken(await t.request('GET', path, { token: bearer }));
      expectInvalidToken(
        await expectRefusedUnchanged(t, () => t.request('PUT', path, { json: { ...WEB, client_id: client.client_id }, token: bearer }), 401, 'invalid_token'),
      );
      expectInvalidToken(await expectRefusedUnchanged(t, () => t.request('DELETE', path, { token: bearer }), 401, 'invalid_token'));
    }
    // Bad metadata with a wrong token says nothing about the metadata.
    expectInvalidToken(await t.request('PUT', at(), { json: { redirect_uris: 7 }, token: 'made-up' }));
  });

  it("does not manage a client made by the application's administrators", async () => {
    const made = await t.request('POST', `${APP}/clients`, { json: WEB, token: tenant.adminToken });
    expectInvalidToken(await t.request('GET', `/connect/register/${made.body.entities[0].client_id}`, { token: client.registration_access_token }));
  });

  it('replaces the metadata with PUT: the whole of it, omitted fields back to their defaults, the secret kept', async () => {
    const res = await t.request('PUT', at(), {
      json: { client_id: client.client_id, client_secret: client.client_secret, client_name: 'renamed', redirect_uris: ['https://rp.example/new'] },
      token: client.registration_access_token,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      client_id: client.client_id,
      client_name: 'renamed',
      redirect_uris: ['https://rp.example/new'],
      grant_types: ['authorization_code'],
      registration_access_token: client.registration_access_token,
      registration_client_uri: client.registration_client_uri,
      client_secret_expires_at: 0,
    });
    expect(res.body).not.toHaveProperty('client_secret');
    const read = await t.request('GET', at(), { token: client.registration_access_token });
    expect(read.body.client_name).toBe('renamed');
    // The secret still works, for what the client may still do.
    const granted = await token(t, { grant_type: 'client_credentials' }, { authorization: basic(client.client_id, client.client_secret) });
    expectRefusal(granted, 400, 'unauthorized_client');
  });

  it.each([
    ['without client_id', { ...WEB }, 'client_id'],
    ['with another client_id', { ...WEB, client_id: 'someone-else' }, 'client_id'],
    ['with a wrong client_secret', { ...WEB, client_secret: 'guessed' }, 'client_secret'],
    ['with a fragment in a redirect URI', { client_name: 'x', redirect_uris: ['https://rp.example/cb#frag'] }, 'redirect_uris'],
  ])('refuses a PUT %s, changing nothing', async (_name, body, field) => {
    const json = field === 'client_id' ? body : { client_id: client.client_id, ...body };
    const res = await expectRefusedUnchanged(
      t,
      () => t.request('PUT', at(), { json, token: client.registration_access_token }),
      400,
      field === 'redirect_uris' ? 'invalid_redirect_uri' : 'invalid_client_metadata',
    );
    expect(res.body.fields).toHaveProperty(field);
  });

  it("deletes the client with 204: its tokens stop working, and so does the registration's", async () => {
    const granted = await token(t, { grant_type: 'client_credentials' }, { authorization: basic(client.client_id, client.client_secret) });
    expect((await t.request('GET', '/acme/sandbox/roles', { token: granted.body.access_token })).status).toBe(200);
    const before = await snapshot(t);
    const res = await t.request('DELETE', at(), { token: client.registration_access_token });
    expect(res.status, res.text).toBe(204);
    expect(res.text).toBe('');
    expect(await snapshot(t)).not.toBe(before);
    expectRefusal(await t.request('GET', '/acme/sandbox/roles', { token: granted.body.access_token }), 401, 'unauthorized');
    expectRefusal(
      await token(t, { grant_type: 'client_credentials' }, { authorization: basic(client.client_id, client.client_secret) }),
      401,
      'invalid_client',
    );
    expectInvalidToken(await t.request('GET', at(), { token: client.registration_access_token }));
    expectRefusal(await t.request('GET', `${APP}/clients/${client.client_id}`, { token: tenant.adminToken }), 404, 'not_found');
  });

  it('answers other methods with 405', async () => {
    const res = await t.request('POST', at(), { json: WEB, token: client.registration_access_token });
    expectRefusal(res, 405, 'method_not_allowed');
    expect(res.headers.get('allow')).toBe('GET, PUT, DELETE');
  });
});

describe('openid-client 6 as the relying party', () => {
  let server: RunningServer;
  let fixture: Fixture;
  beforeAll(async () => {
    server = await startIdp();
    fixture = await createFixture(server);
  });
  afterAll(() => server.close());

  const insecure = { execute: [oidc.allowInsecureRequests] };

  it("registers with dynamicClientRegistration and the application's credentials token, then signs a user in through it", async () => {
    const credentials = (
      await (await fetch(`${fixture.url}/management/orgs/acme/apps/shop/credentials`, { headers: { authorization: `Bearer ${fixture.adminToken}` } })).json()
    ).credentials as { client_id: string; client_secret: string };
    const application = await oidc.discovery(new URL(fixture.url), credentials.client_id, credentials.client_secret, undefined, insecure);
    const { access_token: initialAccessToken } = await oidc.clientCredentialsGrant(application);
    const redirect = 'https://rp.example/callback';
    const config = await oidc.dynamicClientRegistration(
      new URL(fixture.url),
      { client_name: 'registered RP', redirect_uris: [redirect], grant_types: ['authorization_code', 'refresh_token'] },
      // RFC 7591 2: the default method is client_secret_basic; openid-client's own default is client_secret_post.
      oidc.ClientSecretBasic(),
      { initialAccessToken, ...insecure },
    );
    const metadata = config.clientMetadata();
    expect(metadata.client_id).toEqual(expect.any(String));
    expect(metadata.client_secret).toEqual(expect.any(String));
    expect(metadata.registration_access_token).toEqual(expect.any(String));

    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: redirect,
      scope: 'openid profile',
      state,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    const response = await authorizeAsUser(new Browser(fixture.url), url.toString(), USER);
    const tokens = await oidc.authorizationCodeGrant(config, new URL(response.headers.get('location')!), { pkceCodeVerifier: verifier, expectedState: state });
    expect(tokens.claims()!.preferred_username).toBe(USER.username);
  });

  it('refuses dynamicClientRegistration without an initial access token', async () => {
    await expect(
      oidc.dynamicClientRegistration(new URL(fixture.url), { redirect_uris: ['https://rp.example/callback'] }, undefined, insecure),
    ).rejects.toMatchObject({
      status: 401,
      cause: [{ scheme: 'bearer', parameters: { error: 'invalid_token' } }],
    });
  });
});
