/**
 * Resource indicators (RFC 8707) at the token endpoint, grant by grant: `resource`, sent once or
 * more, becomes the access token's `aud`; a bad one is `invalid_target` and issues nothing; a
 * refresh narrows, never widens. docs/api.md#resource-indicators.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers.js';
import { claimsOf, createAppUser, createTenantApp, registerClient, type Tenant } from './fixtures.js';

const ORDERS = 'https://orders.example/api';
const BILLING = 'urn:example:billing';

let t: TestApp;
let tenant: Tenant;
beforeEach(async () => {
  ({ t, tenant } = await createTenantApp());
});
afterEach(() => t.close());

/** POST /connect/token with `form` and each of `resources` as a `resource` parameter of its own. */
function tokenFor(form: Record<string, string>, resources: string[]) {
  const body = new URLSearchParams(form);
  for (const resource of resources) body.append('resource', resource);
  return t.request('POST', '/connect/token', { body: body.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
}

const appCredentials = () => ({ grant_type: 'client_credentials', client_id: tenant.app.client_id, client_secret: tenant.app.client_secret });

describe('resource indicators at the token endpoint', () => {
  it('client_credentials: one resource is the aud, several the aud list; none leaves it this server', async () => {
    const one = await tokenFor(appCredentials(), [ORDERS]);
    expect(one.status, one.text).toBe(200);
    expect(claimsOf(one.body.access_token)).toMatchObject({ aud: ORDERS, client_id: tenant.app.client_id, jti: expect.any(String) });
    const two = await tokenFor(appCredentials(), [ORDERS, BILLING, ORDERS]);
    expect(claimsOf(two.body.access_token).aud).toEqual([ORDERS, BILLING]);
    const none = await tokenFor(appCredentials(), []);
    expect(claimsOf(none.body.access_token).aud).toBe(claimsOf(none.body.access_token).iss);
  });

  it('a token for another resource opens nothing here; one that names this server too does', async () => {
    const foreign = (await tokenFor(appCredentials(), [ORDERS])).body.access_token;
    const refused = await t.request('GET', '/acme/sandbox/users', { token: foreign });
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ error: 'unauthorized', error_description: expect.stringMatching(/another resource/) });
    expect(refused.headers.get('www-authenticate')).toMatch(/invalid_token/);
    const issuer = String(claimsOf(foreign).iss);
    const both = (await tokenFor(appCredentials(), [ORDERS, issuer])).body.access_token;
    expect((await t.request('GET', '/acme/sandbox/users', { token: both })).status).toBe(200);
  });

  for (const [name, resources] of [
    ['a relative reference', ['orders/api']],
    ['a fragment', [`${ORDERS}#x`]],
    ['an empty value', ['']],
    ['more than ten', Array.from({ length: 11 }, (_, index) => `https://r${index}.example`)],
  ] as const) {
    it(`refuses ${name} with invalid_target`, async () => {
      const res = await tokenFor(appCredentials(), [...resources]);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: 'invalid_target', error_description: expect.any(String) });
      expect(res.body.access_token).toBeUndefined();
    });
  }

  it('password and refresh: the family’s resources narrow on refresh, never widen, and a refused refresh spends nothing', async () => {
    await createAppUser(t, tenant.appUuid, 'fred', 'fred-password');
    const client = await registerClient(t, tenant, {
      grant_types: ['password', 'refresh_token'],
      token_endpoint_auth_method: 'client_secret_post',
      redirect_uris: [],
    });
    const secret = { client_id: client.client_id, client_secret: client.client_secret! };
    const signIn = await tokenFor({ grant_type: 'password', username: 'fred', password: 'fred-password', scope: 'api offline_access', ...secret }, [
      ORDERS,
      BILLING,
    ]);
    expect(signIn.status, signIn.text).toBe(200);
    expect(claimsOf(signIn.body.access_token).aud).toEqual([ORDERS, BILLING]);
    const refresh = (refresh_token: string, resources: string[]) => tokenFor({ grant_type: 'refresh_token', refresh_token, ...secret }, resources);

    const wider = await refresh(signIn.body.refresh_token, [ORDERS, 'https://elsewhere.example']);
    expect(wider.status).toBe(400);
    expect(wider.body.error).toBe('invalid_target');
    const narrowed = await refresh(signIn.body.refresh_token, [BILLING]);
    expect(narrowed.status, narrowed.text).toBe(200);
    expect(claimsOf(narrowed.body.access_token).aud).toBe(BILLING);
    // Narrowing one token does not narrow the grant: the next refresh may have both again.
    const again = await refresh(narrowed.body.refresh_token, []);
    expect(claimsOf(again.body.access_token).aud).toEqual([ORDERS, BILLING]);
  });

  it('token exchange: resource may only name this server', async () => {
    const subject = (await tokenFor(appCredentials(), [])).body.access_token;
    const issuer = String(claimsOf(subject).iss);
    const form = {
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      subject_token: subject,
      subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      client_id: tenant.app.client_id,
      client_secret: tenant.app.client_secret,
    };
    expect((await tokenFor(form, [ORDERS])).body.error).toBe('invalid_target');
    expect((await tokenFor(form, [issuer])).status).toBe(200);
  });
});
