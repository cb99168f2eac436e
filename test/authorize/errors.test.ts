/**
 * RFC 6749 4.1.2.1 and OIDC Core 3.1.2.6: what is wrong with the client or its redirect URI is
 * shown on the error page and never redirected; everything else goes back to the client in the
 * response mode, with error, error_description and state. One row per error path.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectOAuthError, readResponse } from '../helpers.js';
import { Browser, createClient, createFixture, formOf, redirectOf, REDIRECT, startIdp, type Fixture } from './support.js';

let fixture: Fixture;
let client: { client_id: string };
let publicClient: { client_id: string };
let codeOnly: { client_id: string };

const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

beforeAll(async () => {
  fixture = await createFixture(await startIdp());
  client = await createClient(fixture, { require_pkce: false, allow_plain_pkce: true });
  publicClient = await createClient(fixture, { token_endpoint_auth_method: 'none', grant_types: ['authorization_code'], response_types: ['code'] });
  codeOnly = await createClient(fixture, { grant_types: ['authorization_code'], response_types: ['code'], require_pkce: false });
});
afterAll(() => fixture.server.close());

function get(params: Record<string, string | undefined>, raw = ''): Promise<Response> {
  const search = new URLSearchParams(Object.entries(params).filter((entry): entry is [string, string] => entry[1] !== undefined));
  return new Browser(fixture.url).get(`/connect/authorize?${search}${raw}`);
}

const base = () => ({ client_id: client.client_id, redirect_uri: REDIRECT, response_type: 'code', scope: 'openid', state: 'st-1' });

describe('errors shown on the error page, never redirected', () => {
  const cases: { name: string; params: () => Record<string, string | undefined>; reason: string }[] = [
    { name: 'client_id missing', params: () => ({ ...base(), client_id: undefined }), reason: 'missing_client_id' },
    { name: 'unknown client', params: () => ({ ...base(), client_id: 'no-such-client' }), reason: 'unknown_client' },
    { name: 'redirect_uri missing', params: () => ({ ...base(), redirect_uri: undefined }), reason: 'missing_redirect_uri' },
    { name: 'redirect_uri not registered', params: () => ({ ...base(), redirect_uri: 'https://evil.example/callback' }), reason: 'unregistered_redirect_uri' },
    {
      name: 'redirect_uri that only starts like a registered one',
      params: () => ({ ...base(), redirect_uri: `${REDIRECT}/../x` }),
      reason: 'unregistered_redirect_uri',
    },
    { name: 'admin-cli with a non-loopback redirect_uri', params: () => ({ ...base(), client_id: 'admin-cli' }), reason: 'unregistered_redirect_uri' },
  ];
  for (const { name, params, reason } of cases) {
    it(name, async () => {
      const response = await get(params());
      expect(response.status).toBe(400);
      expect(response.headers.get('location')).toBeNull();
      expect(response.headers.get('content-type')).toMatch(/text\/html/);
      expect(await response.text()).toContain(`data-error="${reason}"`);
    });
  }

  it('a redirect_uri sent twice', async () => {
    const response = await get(base(), `&redirect_uri=${encodeURIComponent(REDIRECT)}`);
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    expect(await response.text()).toContain('data-error="unregistered_redirect_uri"');
  });
});

describe('errors sent back to the client', () => {
  const cases: { name: string; params: () => Record<string, string | undefined>; error: string; mode?: 'query' | 'fragment' }[] = [
    { name: 'response_type missing', params: () => ({ ...base(), response_type: undefined }), error: 'invalid_request' },
    { name: 'response_type unknown', params: () => ({ ...base(), response_type: 'magic' }), error: 'unsupported_response_type' },
    {
      name: 'response_type code token token (a word twice)',
      params: () => ({ ...base(), response_type: 'code token token', nonce: 'n' }),
      error: 'unsupported_response_type',
      mode: 'fragment',
    },
    {
      name: 'response_type the client may not use',
      params: () => ({ ...base(), client_id: codeOnly.client_id, response_type: 'id_token', nonce: 'n' }),
      error: 'unauthorized_client',
      mode: 'fragment',
    },
    { name: 'scope missing', params: () => ({ ...base(), scope: undefined }), error: 'invalid_request' },
    { name: 'unknown scope', params: () => ({ ...base(), scope: 'openid root' }), error: 'invalid_scope' },
    {
      name: 'id_token with a resource scope',
      params: () => ({ ...base(), response_type: 'id_token', scope: 'openid api', nonce: 'n' }),
      error: 'invalid_scope',
      mode: 'fragment',
    },
    {
      name: 'id_token without openid',
      params: () => ({ ...base(), response_type: 'id_token', scope: 'profile', nonce: 'n' }),
      error: 'invalid_scope',
      mode: 'fragment',
    },
    {
      name: 'token with an identity scope',
      params: () => ({ ...base(), response_type: 'token', scope: 'openid api' }),
      error: 'invalid_scope',
      mode: 'fragment',
    },
    {
      name: 'offline_access without a code',
      params: () => ({ ...base(), response_type: 'id_token token', scope: 'openid api offline_access', nonce: 'n' }),
      error: 'invalid_scope',
      mode: 'fragment',
    },
    { name: 'id_token without nonce', params: () => ({ ...base(), response_type: 'id_token' }), error: 'invalid_request', mode: 'fragment' },
    { name: 'code id_token without nonce', params: () => ({ ...base(), response_type: 'code id_token' }), error: 'invalid_request', mode: 'fragment' },
    {
      name: 'response_mode query with a token',
      params: () => ({ ...base(), response_type: 'token', scope: 'api', response_mode: 'query' }),
      error: 'invalid_request',
      mode: 'fragment',
    },
    { name: 'response_mode unknown', params: () => ({ ...base(), response_mode: 'carrier_pigeon' }), error: 'invalid_request' },
    { name: 'public client without code_challenge', params: () => ({ ...base(), client_id: publicClient.client_id }), error: 'invalid_request' },
    {
      name: 'plain PKCE where the client does not allow it',
      params: () => ({ ...base(), client_id: publicClient.client_id, code_challenge: CHALLENGE, code_challenge_method: 'plain' }),
      error: 'invalid_request',
    },
    {
      name: 'code_challenge without method defaults to plain, refused',
      params: () => ({ ...base(), client_id: publicClient.client_id, code_challenge: CHALLENGE }),
      error: 'invalid_request',
    },
    {
      name: 'unknown code_challenge_method',
      params: () => ({ ...base(), code_challenge: CHALLENGE, code_challenge_method: 'S512' }),
      error: 'invalid_request',
    },
    { name: 'code_challenge too short', params: () => ({ ...base(), code_challenge: 'short', code_challenge_method: 'S256' }), error: 'invalid_request' },
    { name: 'code_challenge_method without code_challenge', params: () => ({ ...base(), code_challenge_method: 'S256' }), error: 'invalid_request' },
    { name: 'unknown prompt', params: () => ({ ...base(), prompt: 'dance' }), error: 'invalid_request' },
    {
      name: 'an unsigned request object the client did not register',
      params: () => ({ ...base(), request: 'eyJhbGciOiJub25lIn0.e30.' }),
      error: 'invalid_request_object',
    },
    { name: 'request_uri', params: () => ({ ...base(), request_uri: 'https://rp.example/request.jwt' }), error: 'request_uri_not_supported' },
    { name: 'idp not allowed for the client', params: () => ({ ...base(), acr_values: 'idp:google' }), error: 'invalid_request' },
    {
      name: 'tenant that does not exist at an admin client',
      params: () => ({
        ...base(),
        client_id: 'admin-cli',
        redirect_uri: 'http://127.0.0.1:9/cb',
        code_challenge: CHALLENGE,
        code_challenge_method: 'S256',
        acr_values: 'tenant:nowhere',
      }),
      error: 'invalid_request',
    },
  ];
  for (const { name, params, error, mode = 'query' } of cases) {
    it(name, async () => {
      const response = await get(params());
      const redirect = redirectOf(response);
      expect(`${redirect.url.origin}${redirect.url.pathname}`).toBe(params().redirect_uri);
      const values = mode === 'query' ? redirect.query : redirect.fragment;
      expect(values.get('error')).toBe(error);
      expect(values.get('error_description')).toBeTruthy();
      expect(values.get('state')).toBe('st-1');
      expect(values.get('iss')).toBe(fixture.url);
      if (mode === 'fragment') expect(redirect.query.get('error')).toBeNull();
    });
  }

  it('a parameter sent twice', async () => {
    const { query } = redirectOf(await get(base(), '&scope=profile'));
    expect(query.get('error')).toBe('invalid_request');
    expect(query.get('error_description')).toContain('scope');
  });

  it('errors in response_mode form_post come as a form', async () => {
    const response = await get({ ...base(), response_mode: 'form_post', scope: 'openid root' });
    expect(response.status).toBe(200);
    const form = formOf(await response.text());
    expect(form.action).toBe(REDIRECT);
    expect(form.fields).toMatchObject({ error: 'invalid_scope', state: 'st-1' });
  });

  it('POST /connect/authorize with a form works like GET, and other bodies are refused', async () => {
    const browser = new Browser(fixture.url);
    const posted = await browser.post('/connect/authorize', { ...base(), scope: 'openid root' });
    expect(redirectOf(posted).query.get('error')).toBe('invalid_scope');
    const json = await browser.request('/connect/authorize', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(base()) });
    expectOAuthError(await readResponse(json), 415, 'unsupported_media_type');
  });
});
