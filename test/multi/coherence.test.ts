/**
 * Two `idp serve` processes on one PostgreSQL schema: a change made through one instance holds on
 * the other by the very next request — a disabled user, a removed permission, a deleted client, a
 * rotated signing key (docs/operations.md, "Several instances"). Skipped with a message where no
 * PostgreSQL server answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeProtectedHeader } from 'jose';
import type { RunningIdp } from '../spawn.js';
import { expectOAuthError } from '../helpers.js';
import { call, closeAgents, createSchema, must, postgresProblem, logInstancesOnFailure, startInstance, stopAll, type Schema } from './cluster.js';

const postgres = await postgresProblem();
if (postgres !== undefined) console.warn(`test/multi/coherence skipped: ${postgres}`);

const ADMIN = { organization: 'acme', username: 'alice', name: 'Alice', email: 'alice@example.com', password: 'correct-horse' };
const ROOT = { username: 'root', password: 'root-password-1' };
const BOB = { username: 'bob', email: 'bob@example.com', name: 'Bob', password: 'bobs-password-1' };

describe.skipIf(postgres !== undefined)(
  postgres === undefined
    ? 'a change through one instance holds on the other at once'
    : `a change through one instance holds on the other (skipped: ${postgres})`,
  () => {
    let schema: Schema;
    let a: RunningIdp;
    let b: RunningIdp;
    let admin: string;

    const bobSignsIn = (url: string) =>
      call(url, 'POST', '/acme/shop/token', { json: { grant_type: 'password', username: BOB.username, password: BOB.password } });

    beforeAll(async () => {
      schema = await createSchema();
      const args = ['--superuser', `${ROOT.username}:${ROOT.password}`];
      [a, b] = await Promise.all([startInstance(schema, { args }), startInstance(schema, { args })]);
      await must(a.url, 'POST', '/management/orgs', { json: ADMIN });
      admin = (await must(b.url, 'POST', '/management/token', { json: { grant_type: 'password', username: ADMIN.username, password: ADMIN.password } }))
        .access_token;
      await must(a.url, 'POST', '/management/orgs/acme/apps', { json: { name: 'shop' }, token: admin });
      await must(b.url, 'POST', '/acme/shop/users', { token: admin, json: BOB });
    }, 90_000);

    logInstancesOnFailure(() => ({ A: a, B: b }));

    afterAll(async () => {
      await stopAll([a, b]);
      await closeAgents();
      await schema?.drop();
    }, 30_000);

    it('a user disabled through B can no longer use a token, refresh it or sign in at A', async () => {
      const signedIn = await bobSignsIn(a.url);
      expect(signedIn.status).toBe(200);
      const { access_token: token, refresh_token: refresh } = signedIn.body;
      expect((await call(a.url, 'GET', '/acme/shop/users/me', { token })).status).toBe(200);

      expect((await call(b.url, 'PUT', '/acme/shop/users/bob/deactivate', { token: admin })).status).toBe(200);
      expect((await call(a.url, 'GET', '/acme/shop/users/me', { token })).status).toBe(401);
      const refreshed = await call(a.url, 'POST', '/acme/shop/token', { json: { grant_type: 'refresh_token', refresh_token: refresh } });
      expect(refreshed.status).toBeGreaterThanOrEqual(400);
      expect(refreshed.body.access_token).toBeUndefined();
      const again = await bobSignsIn(a.url);
      expect(again.status).toBeGreaterThanOrEqual(400);
      expect(again.body.access_token).toBeUndefined();

      expect((await call(a.url, 'PUT', '/acme/shop/users/bob/activate', { token: admin })).status).toBe(200);
      expect((await bobSignsIn(b.url)).status).toBe(200);
    });

    it('a user moved to another collection or deleted with plain SQL, as a tool would, loses access at A at once', async () => {
      const signIn = async (username: string) =>
        (await must(a.url, 'POST', '/acme/shop/token', { json: { grant_type: 'password', username, password: 'carols-password-1' } })).access_token as string;
      for (const [username, change] of [
        ['carol', `update entities set collection = 'former_users' where collection = 'users' and name_key = $1`],
        ['cleo', `delete from entities where collection = 'users' and name_key = $1`],
      ]) {
        await must(b.url, 'POST', '/acme/shop/users', { token: admin, json: { username, password: 'carols-password-1' } });
        const token = await signIn(username);
        expect((await call(a.url, 'GET', '/acme/shop/users/me', { token })).status).toBe(200);
        await schema.sql(change, [username]);
        expect((await call(a.url, 'GET', '/acme/shop/users/me', { token })).status).toBe(401);
      }
    });

    it('a user or an item created through B, or by plain SQL, is found by A right after A answered 404', async () => {
      for (const path of ['/acme/shop/users/dora', '/acme/shop/items/lamp']) {
        expect((await call(a.url, 'GET', path, { token: admin })).status).toBe(404);
        const [, , , collection, name] = path.split('/');
        await must(b.url, 'POST', `/acme/shop/${collection}`, { token: admin, json: collection === 'users' ? { username: name } : { name } });
        const [found] = (await must(a.url, 'GET', path, { token: admin })).entities;
        expect(collection === 'users' ? found.username : found.name).toBe(name);
      }
      const uuid = '01a40000-0000-7000-8000-000000000001';
      expect((await call(a.url, 'GET', `/acme/shop/items/${uuid}`, { token: admin })).status).toBe(404);
      await schema.sql(
        `insert into entities (uuid, app_uuid, collection, type, name, name_key, properties, created, modified)
         select $1, uuid, 'items', 'item', 'desk', 'desk', '{"name":"desk"}', 1, 1 from applications where name_key = 'shop'`,
        [uuid],
      );
      expect((await must(a.url, 'GET', `/acme/shop/items/${uuid}`, { token: admin })).entities[0].name).toBe('desk');
    });

    it('a permission removed through B is refused by A on the next request', async () => {
      const token = (await bobSignsIn(a.url)).body.access_token as string;
      const permission = 'post:/vaults';
      // The default role lets a user read, not write, /vaults.
      expect((await call(a.url, 'POST', '/acme/shop/vaults', { token, json: { name: 'first' } })).status).toBe(403);
      await must(b.url, 'POST', '/acme/shop/users/bob/permissions', { token: admin, json: { permission } });
      expect((await call(a.url, 'POST', '/acme/shop/vaults', { token, json: { name: 'second' } })).status).toBe(200);

      await must(b.url, 'DELETE', `/acme/shop/users/bob/permissions?permission=${encodeURIComponent(permission)}`, { token: admin });
      expect((await call(a.url, 'POST', '/acme/shop/vaults', { token, json: { name: 'third' } })).status).toBe(403);
      const names = (await must(a.url, 'GET', '/acme/shop/vaults', { token })).entities.map((entity: { name: string }) => entity.name);
      expect(names).toEqual(['second']);
    });

    it('a client deleted through A gets no token and its token works no more at B', async () => {
      const made = await call(a.url, 'POST', '/management/orgs/acme/apps/shop/clients', {
        token: admin,
        json: { client_name: 'robot', grant_types: ['client_credentials'], token_endpoint_auth_method: 'client_secret_post' },
      });
      expect(made.status).toBe(200);
      const { client_id: clientId, client_secret: secret } = made.body.entities[0];
      const grant = { grant_type: 'client_credentials', client_id: clientId, client_secret: secret };
      const issued = await must(b.url, 'POST', '/connect/token', { form: grant });
      expect((await call(b.url, 'GET', '/acme/shop/users', { token: issued.access_token })).status).toBe(200);

      expect((await call(a.url, 'DELETE', `/management/orgs/acme/apps/shop/clients/${clientId}`, { token: admin })).status).toBe(200);
      expectOAuthError(await call(b.url, 'POST', '/connect/token', { form: grant }), 401, 'invalid_client');
      expect((await call(b.url, 'GET', '/acme/shop/users', { token: issued.access_token })).status).toBe(401);
    });

    it('keys rotated through B sign the next token A issues, and both publish them', async () => {
      const root = (await must(a.url, 'POST', '/management/token', { json: { grant_type: 'password', ...ROOT } })).access_token as string;
      const kidOf = (token: string) => decodeProtectedHeader(token).kid;
      const before = kidOf(
        (await must(a.url, 'POST', '/management/token', { json: { grant_type: 'password', username: ADMIN.username, password: ADMIN.password } })).access_token,
      );

      expect((await call(b.url, 'POST', '/management/keys/rotate', { token: root })).status).toBe(200);
      const keys = (await must(b.url, 'GET', '/management/keys', { token: root })).entities as { kid: string; active?: string }[];
      const active = keys.find((key) => key.active === 'access_token')!.kid;
      expect(active).not.toBe(before);

      const after = (await must(a.url, 'POST', '/management/token', { json: { grant_type: 'password', username: ADMIN.username, password: ADMIN.password } }))
        .access_token as string;
      expect(kidOf(after)).toBe(active);
      const published = (await must(a.url, 'GET', '/.well-known/openid-configuration/jwks')).keys.map((jwk: { kid: string }) => jwk.kid);
      expect(published).toEqual(expect.arrayContaining([before, active]));
      // The token A signed with the new key is accepted by B, and the old key's by A.
      expect((await call(b.url, 'GET', '/management/orgs/acme', { token: after })).status).toBe(200);
      expect((await call(a.url, 'GET', '/management/orgs/acme', { token: admin })).status).toBe(200);
    });
  },
);
