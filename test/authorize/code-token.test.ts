/**
 * The hybrid response type `code token` (OIDC Core 3.3) through a real sign-in, by raw HTTP:
 * the code and an access token in the fragment (or a form_post form), never in the query; the
 * access token works at the data API at once and the code is exchanged for tokens afterwards.
 * Clients register it (management API and /connect/register) only with the implicit grant, and
 * discovery lists it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import { decodeJwt } from 'jose';
import {
  api,
  applicationCredentialsToken,
  authorizeAsUser,
  Browser,
  createClient,
  createFixture,
  exchangeCode,
  formOf,
  redirectOf,
  REDIRECT,
  startIdp,
  type Fixture,
  type RegisteredClient,
} from './support.js';

let fixture: Fixture;
let client: RegisteredClient;

beforeAll(async () => {
  fixture = await createFixture(await startIdp());
  client = await createClient(fixture, { require_consent: false, response_types: ['code', 'code token'] });
});
afterAll(() => fixture.server.close());

function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

function authorizeUrl(parameters: Record<string, string>): string {
  return `/connect/authorize?${new URLSearchParams({ client_id: client.client_id, redirect_uri: REDIRECT, response_type: 'code token', ...parameters })}`;
}

async function usersMe(accessToken: string): Promise<{ status: number; body: { entities?: { uuid: string; username: string }[] } }> {
  const response = await fetch(`${fixture.url}/acme/shop/users/me`, { headers: { authorization: `Bearer ${accessToken}` } });
  return { status: response.status, body: (await response.json()) as { entities?: { uuid: string; username: string }[] } };
}

describe('response_type code token', () => {
  it('is listed in discovery', async () => {
    const metadata = (await (await fetch(`${fixture.url}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(metadata.response_types_supported).toEqual(['code', 'id_token', 'token', 'id_token token', 'code id_token', 'code token', 'code id_token token']);
  });

  it('returns a code and a working access token in the fragment; the code then gives an ID token', async () => {
    const { verifier, challenge } = pkce();
    const response = await authorizeAsUser(
      new Browser(fixture.url),
      authorizeUrl({ scope: 'openid profile api', state: 'st-1', code_challenge: challenge, code_challenge_method: 'S256' }),
    );
    const { url, query, fragment } = redirectOf(response);
    expect(`${url.origin}${url.pathname}`).toBe(REDIRECT);
    expect([...query.keys()]).toEqual([]);
    expect(Object.fromEntries(fragment)).toMatchObject({
      token_type: 'Bearer',
      expires_in: '3600',
      scope: 'openid profile api',
      state: 'st-1',
      iss: fixture.url,
    });
    // No ID token comes through the front channel with this response type (OIDC Core 3.3.2.5).
    expect(fragment.has('id_token')).toBe(false);
    const accessToken = fragment.get('access_token')!;
    expect(decodeJwt(accessToken)).toMatchObject({ sub: fixture.userUuid, client_id: client.client_id, scope: 'openid profile api' });

    const me = await usersMe(accessToken);
    expect(me.status).toBe(200);
    expect(me.body.entities![0]).toMatchObject({ uuid: fixture.userUuid, username: 'bob' });

    const tokens = await exchangeCode(fixture, client, fragment.get('code')!, { code_verifier: verifier });
    expect(decodeJwt(tokens.id_token)).toMatchObject({ sub: fixture.userUuid, aud: client.client_id, preferred_username: 'bob' });
    expect((await usersMe(tokens.access_token)).status).toBe(200);
    // The code is spent: a second exchange is refused.
    await expect(exchangeCode(fixture, client, fragment.get('code')!, { code_verifier: verifier })).rejects.toThrow(/400.*invalid_grant/);
  });

  it('answers by form_post with the code and the access token as form fields', async () => {
    const { challenge } = pkce();
    const response = await authorizeAsUser(
      new Browser(fixture.url),
      authorizeUrl({ scope: 'api', response_mode: 'form_post', code_challenge: challenge, code_challenge_method: 'S256' }),
    );
    expect(response.status).toBe(200);
    const form = formOf(await response.text());
    expect(form.action).toBe(REDIRECT);
    expect(Object.keys(form.fields).sort()).toEqual(['access_token', 'code', 'expires_in', 'iss', 'scope', 'token_type']);
    expect((await usersMe(form.fields.access_token!)).status).toBe(200);
  });

  it('refuses response_mode query (tokens never travel in a query string), in the fragment', async () => {
    const response = await new Browser(fixture.url).get(authorizeUrl({ scope: 'api', response_mode: 'query', state: 'q' }));
    const { query, fragment } = redirectOf(response);
    expect([...query.keys()]).toEqual([]);
    expect(fragment.get('error')).toBe('invalid_request');
    expect(fragment.get('error_description')).toMatch(/query cannot carry tokens/);
    expect(fragment.get('state')).toBe('q');
  });

  it('is unauthorized_client for a client that did not register it', async () => {
    const other = await createClient(fixture, { client_name: 'code only', require_consent: false, response_types: ['code', 'code id_token'] });
    const url = `/connect/authorize?${new URLSearchParams({ client_id: other.client_id, redirect_uri: REDIRECT, response_type: 'token code', scope: 'api' })}`;
    const { fragment } = redirectOf(await new Browser(fixture.url).get(url));
    expect(fragment.get('error')).toBe('unauthorized_client');
    expect(fragment.get('error_description')).toBe('this client may not use response_type code token');
  });
});

describe('registering code token', () => {
  const CLIENTS = '/management/orgs/acme/apps/shop/clients';

  it('is stored in canonical order, and needs the implicit grant', async () => {
    const made = await api(fixture, 'POST', CLIENTS, {
      client_name: 'hybrid',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'implicit'],
      response_types: ['token code'],
    });
    expect(made.entities[0]!.response_types).toEqual(['code token']);

    const before = (await api(fixture, 'GET', CLIENTS)).count;
    const refused = await fetch(`${fixture.url}${CLIENTS}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fixture.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'no implicit', redirect_uris: [REDIRECT], response_types: ['code token'] }),
    });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({
      error: 'invalid_client_metadata',
      error_description: "response type 'code token' needs the implicit grant type",
    });
    expect((await api(fixture, 'GET', CLIENTS)).count).toBe(before);
  });

  it('is accepted by dynamic client registration', async () => {
    const access_token = await applicationCredentialsToken(fixture);
    const registered = await fetch(`${fixture.url}/connect/register`, {
      method: 'POST',
      headers: { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'spa', redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'implicit'], response_types: ['code token'] }),
    });
    expect(registered.status).toBe(201);
    expect(await registered.json()).toMatchObject({ response_types: ['code token'], grant_types: ['authorization_code', 'implicit'] });
  });
});
