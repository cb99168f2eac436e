import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { expectRefusedUnchanged, type Clock, type TestApp } from '../helpers.js';
import { ensureSuperuser } from '../../src/management/admin-users.js';
import { openDatabase, schemaOf } from '../../src/db/open.js';
import { createDeps } from '../../src/create-deps.js';
import { createLogger } from '../../src/logger.js';
import { resolveConfig } from '../../src/config.js';
import { main } from '../../commands/index.js';
import { KEY_RECHECK_MS } from '../../src/identity/keys/keys.js';
import { createTestSchema, TEST_DATABASE_URL } from '../database.js';
import { createTenantApp, token, type Tenant } from './fixtures.js';

let t: TestApp;
let clock: Clock;
let tenant: Tenant;
beforeEach(async () => {
  ({ t, tenant, clock } = await createTenantApp());
});
afterEach(() => t.close());

async function jwks() {
  const res = await t.request('GET', '/.well-known/openid-configuration/jwks');
  return res.body as { keys: { kid: string; alg: string; use: string; d?: string }[] };
}

const clientToken = async () =>
  (await token(t, { grant_type: 'client_credentials', client_id: tenant.org.client_id, client_secret: tenant.org.client_secret })).body.access_token as string;
const kidOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[0], 'base64url').toString()).kid as string;

describe('signing keys', () => {
  it('publishes one ES256 access-token key and one RS256 ID-token key, public parts only', async () => {
    const { keys } = await jwks();
    expect(keys.map((key) => key.alg).sort()).toEqual(['ES256', 'RS256']);
    expect(keys.every((key) => key.d === undefined && key.use === 'sig')).toBe(true);
  });

  it('rotates through the sysadmin endpoint; old tokens keep verifying until they expire', async () => {
    const before = await clientToken();
    expect((await jwks()).keys).toHaveLength(2);
    await expectRefusedUnchanged(t, () => t.request('POST', '/management/keys/rotate'), 401, 'unauthorized');
    await expectRefusedUnchanged(t, () => t.request('POST', '/management/keys/rotate', { token: tenant.adminToken }), 403, 'forbidden');
    expect((await t.request('GET', '/management/keys')).status).toBe(401);
    expect((await t.request('GET', '/management/keys', { token: tenant.adminToken })).status).toBe(403);
    await ensureSuperuser(t.deps, 'root', 'root-password');
    const root = await token(t, { grant_type: 'password', client_id: 'admin-cli', username: 'root', password: 'root-password', scope: 'api' });
    const listKeys = async () => {
      const listed = await t.request('GET', '/management/keys', { token: root.body.access_token });
      expect(listed.status, listed.text).toBe(200);
      return listed.body.entities as { kid: string; alg: string; active?: string }[];
    };
    const activeBefore = (await listKeys()).filter((key) => key.active !== undefined);
    expect(activeBefore.map((key) => [key.active, key.alg]).sort()).toEqual([
      ['access_token', 'ES256'],
      ['id_token', 'RS256'],
    ]);
    expect(activeBefore.map((key) => key.kid)).toContain(kidOf(before));
    const rotated = await t.request('POST', '/management/keys/rotate', { token: root.body.access_token });
    expect(rotated.status, rotated.text).toBe(200);
    expect(rotated.body.entities).toHaveLength(2);
    // The new keys are the active ones; the old stay listed, retired, while they are published.
    const listed = await listKeys();
    expect(listed).toHaveLength(4);
    expect(
      listed
        .filter((key) => key.active !== undefined)
        .map((key) => key.kid)
        .sort(),
    ).toEqual(rotated.body.entities.map((key: { kid: string }) => key.kid).sort());
    expect(listed.find((key) => key.kid === kidOf(before))?.active).toBeUndefined();

    const after = await clientToken();
    expect(kidOf(after)).not.toBe(kidOf(before));
    const published = await jwks();
    expect(published.keys).toHaveLength(4);
    for (const jwt of [before, after]) {
      await jwtVerify(jwt, createLocalJWKSet(published), { issuer: 'http://idp.test', currentDate: new Date(clock.now) });
      expect((await t.request('GET', '/management/orgs/acme', { token: jwt })).status).toBe(200);
    }
    clock.now += 3600_000 + KEY_RECHECK_MS + 1000;
    expect((await jwks()).keys.map((key) => key.kid)).not.toContain(kidOf(before));
    expect((await jwks()).keys).toHaveLength(2);
  });

  it('`idp keys rotate` rotates the keys of the database it names: --db FILE, or --database-url in the PostgreSQL run', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'idp-keys-'));
    const file = join(dir, 'idp.db');
    const schema = TEST_DATABASE_URL === undefined ? undefined : createTestSchema();
    const target =
      schema === undefined ? { flags: ['--db', file], open: { path: file } } : { flags: ['--database-url', schema.url], open: { url: schema.url } };
    try {
      const database = await openDatabase(target.open);
      const deps = await createDeps(database.db, resolveConfig({ db: file }, {}), createLogger('silent'));
      const first = await deps.keys.signingKey('access_token');
      await deps.keys.signingKey('id_token');
      await database.close();
      expect(await main(['node', 'idp', 'keys', 'rotate', ...target.flags, '--json'])).toBe(0);
      const reopened = await openDatabase(target.open);
      const rows = await reopened.db.select().from(schemaOf(reopened.db).signingKeys);
      await reopened.close();
      expect(rows).toHaveLength(4);
      expect(rows.find((row) => row.kid === first.kid)?.retiredAt).toEqual(expect.any(Number));
      expect(await main(['node', 'idp', 'keys', 'rotate', '--db', join(dir, 'missing.db')])).toBe(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await schema?.drop();
    }
  });
});

describe('discovery', () => {
  it('describes exactly what the server does', async () => {
    const res = await t.request('GET', '/.well-known/openid-configuration');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      issuer: 'http://idp.test',
      token_endpoint: 'http://idp.test/connect/token',
      jwks_uri: 'http://idp.test/.well-known/openid-configuration/jwks',
      userinfo_endpoint: 'http://idp.test/connect/userinfo',
      introspection_endpoint: 'http://idp.test/connect/introspect',
      revocation_endpoint: 'http://idp.test/connect/revocation',
      scopes_supported: ['openid', 'profile', 'email', 'address', 'phone', 'offline_access', 'api'],
      grant_types_supported: [
        'authorization_code',
        'client_credentials',
        'password',
        'refresh_token',
        'urn:ietf:params:oauth:grant-type:token-exchange',
        'urn:ietf:params:oauth:grant-type:device_code',
        'implicit',
      ],
      claims_parameter_supported: true,
      id_token_signing_alg_values_supported: ['RS256'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'client_secret_jwt', 'private_key_jwt', 'none'],
      token_endpoint_auth_signing_alg_values_supported: expect.arrayContaining(['ES256', 'RS256', 'PS256', 'EdDSA', 'HS256']),
      code_challenge_methods_supported: ['S256', 'plain'],
      subject_types_supported: ['public', 'pairwise'],
    });
    expect(res.body.authorization_endpoint).toBe('http://idp.test/connect/authorize');
    expect(res.body.end_session_endpoint).toBe('http://idp.test/connect/endsession');
  });
});
