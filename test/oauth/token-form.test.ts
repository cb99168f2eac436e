/**
 * The token endpoint's parameters come from the grants themselves: /openapi.json documents
 * exactly grant_type, client authentication, `resource` (RFC 8707, every grant's, as often as
 * sent) and what each grant declares, its grant types are
 * the ones discovery lists, and a grant sees only the parameters it declares.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers.js';
import { grants } from '../../src/identity/grants/index.js';
import { ORG } from '../helpers.js';
import { createTenant, token } from './fixtures.js';

let t: TestApp;
beforeEach(async () => {
  t = await createTestApp();
});
afterEach(() => t.close());

describe('the token endpoint documents what the grants read', () => {
  it('names grant_type, the client credentials and every declared parameter, and nothing else', async () => {
    const doc = (await t.request('GET', '/openapi.json')).body;
    const form = doc.components.schemas.TokenRequest;
    const declared = new Set([...grants.values()].flatMap((grant) => grant.parameters));
    expect(new Set(Object.keys(form.properties))).toEqual(
      new Set(['grant_type', 'client_id', 'client_secret', 'client_assertion_type', 'client_assertion', 'resource', ...declared]),
    );
    expect(form.required).toEqual(['grant_type']);
    // The token exchange reads these three; a hand-written form once left them out.
    for (const name of ['audience', 'actor_token', 'requested_token_type']) expect(declared.has(name), name).toBe(true);
  });

  it('offers as grant_type exactly the grant types discovery lists, but implicit (the authorize endpoint’s)', async () => {
    const doc = (await t.request('GET', '/openapi.json')).body;
    const discovery = (await t.request('GET', '/.well-known/openid-configuration')).body;
    const tokenGrants = discovery.grant_types_supported.filter((grant: string) => grant !== 'implicit');
    expect(discovery.grant_types_supported).toContain('implicit');
    expect([...doc.components.schemas.TokenRequest.properties.grant_type.enum].sort()).toEqual(tokenGrants.sort());
  });

  it('hands a grant only the parameters it declares: an undeclared one is ignored (RFC 6749 3.2)', async () => {
    const tenant = await createTenant(t);
    // `username` means nothing to client_credentials; sent anyway, it changes nothing.
    const res = await token(t, {
      grant_type: 'client_credentials',
      client_id: tenant.app.client_id,
      client_secret: tenant.app.client_secret,
      username: ORG.username,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.scope).toBe('api');
  });
});
