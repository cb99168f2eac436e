/** /management/orgs/{org}/apps/{app}/identity-providers: CRUD, validation, the secret never shown. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectRefusal, expectRefusedUnchanged, readResponse } from '../helpers.js';
import { api, createFixture, startIdp, type Fixture } from './support.js';

let fixture: Fixture;
const PATH = '/management/orgs/acme/apps/shop/identity-providers';

beforeAll(async () => {
  fixture = await createFixture(await startIdp());
});
afterAll(() => fixture.server.close());

async function raw(method: string, path: string, body?: unknown, token: string | null = fixture.adminToken) {
  const response = await fetch(`${fixture.url}${path}`, {
    method,
    headers: { ...(token && { authorization: `Bearer ${token}` }), 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return readResponse(response);
}

describe('identity providers of an application', () => {
  it('creates, reads, lists, replaces and deletes; the client secret is never returned', async () => {
    const created = await api(fixture, 'POST', PATH, { name: 'corp', issuer: 'https://login.corp.example/', client_id: 'idp-client', client_secret: 's3cret' });
    const provider = created.entities[0];
    expect(provider).toMatchObject({
      name: 'corp',
      issuer: 'https://login.corp.example',
      client_id: 'idp-client',
      scope: 'openid profile email',
      has_client_secret: true,
    });
    expect(provider.redirect_uri).toBe(`${fixture.url}/connect/federation/callback`);
    expect(JSON.stringify(created)).not.toContain('s3cret');
    const orgUuid = String((await api(fixture, 'GET', '/management/orgs/acme')).entities[0].uuid);
    const providerPath = `/management/orgs/${orgUuid}/apps/${fixture.appUuid}/identity-providers/${provider.uuid}`;
    expect(provider.metadata).toEqual({ path: providerPath });
    expect((await api(fixture, 'GET', `${PATH}/corp`)).entities[0]).toMatchObject({ uuid: provider.uuid, metadata: { path: providerPath } });
    // The path is an address of the provider itself.
    expect((await api(fixture, 'GET', providerPath)).entities[0].name).toBe('corp');
    const listed = await api(fixture, 'GET', PATH);
    expect(listed.count).toBe(1);
    expect(listed.entities.map((entity) => entity.metadata)).toEqual([{ path: providerPath }]);
    expect(JSON.stringify(listed)).not.toContain('s3cret');
    const replaced = await api(fixture, 'PUT', `${PATH}/corp`, {
      name: 'corp',
      issuer: 'https://login.corp.example',
      client_id: 'other',
      scope: 'openid email',
    });
    expect(replaced.entities[0]).toMatchObject({ client_id: 'other', scope: 'openid email', has_client_secret: true, metadata: { path: providerPath } });
    await api(fixture, 'DELETE', `${PATH}/corp`);
    expectRefusal(await raw('GET', `${PATH}/corp`), 404, 'entity_not_found');
  });

  it('refuses bad input with the fields named', async () => {
    const cases: [unknown, string, string][] = [
      [{ issuer: 'https://x.example', client_id: 'c' }, 'illegal_argument', 'name'],
      [{ name: 'x', issuer: 'http://x.example', client_id: 'c' }, 'illegal_argument', 'issuer'],
      [{ name: 'x', issuer: 'https://x.example?a=1', client_id: 'c' }, 'illegal_argument', 'issuer'],
      [{ name: 'x', issuer: 'https://x.example' }, 'illegal_argument', 'client_id'],
      [{ name: 'x', issuer: 'https://x.example', client_id: 'c', scope: 'profile' }, 'illegal_argument', 'scope'],
    ];
    for (const [body, error, field] of cases) {
      const response = await expectRefusedUnchanged(fixture.server, () => raw('POST', PATH, body), 400, error);
      expect(Object.keys(response.body.fields)).toContain(field);
    }
  });

  it('a duplicate name is duplicate_unique_property_exists', async () => {
    await api(fixture, 'POST', PATH, { name: 'dup', issuer: 'http://127.0.0.1:1', client_id: 'c' });
    await expectRefusedUnchanged(
      fixture.server,
      () => raw('POST', PATH, { name: 'DUP', issuer: 'http://127.0.0.1:1', client_id: 'c' }),
      400,
      'duplicate_unique_property_exists',
    );
  });

  it('needs an administrator of the organization', async () => {
    expectRefusal(await raw('GET', PATH, undefined, null), 401, 'unauthorized');
    await expectRefusedUnchanged(
      fixture.server,
      () => raw('POST', PATH, { name: 'guest', issuer: 'https://x.example', client_id: 'c' }, null),
      401,
      'unauthorized',
    );
  });
});
