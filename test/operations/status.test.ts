/**
 * GET /status: the version for anyone; the database kind and the uptime only for a sysadmin
 * (docs/api.md). A token that does not check out is refused, as everywhere.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ensureSuperuser } from '../../src/management/admin-users.js';
import { TEST_DATABASE_URL } from '../database.js';
import { adminToken, createTestApp, expectRefusal, signUp, type TestApp } from '../helpers.js';

let t: TestApp;
beforeEach(async () => {
  t = await createTestApp();
});
afterEach(() => t.close());

it('answers the version to anyone, and to an administrator who is no sysadmin, nothing more', async () => {
  const admin = await signUp(t);
  for (const token of [undefined, admin]) {
    const res = await t.request('GET', '/status', { token });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ status: 'ok', version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
  }
});

it('adds the database kind and the uptime in seconds for a sysadmin, never the database address', async () => {
  await ensureSuperuser(t.deps, 'root', 'root-password-1');
  const res = await t.request('GET', '/status', { token: await adminToken(t, 'root', 'root-password-1') });
  expect(res.status, res.text).toBe(200);
  expect(res.body).toEqual({
    status: 'ok',
    version: expect.any(String),
    database: TEST_DATABASE_URL === undefined ? 'sqlite' : 'postgres',
    uptime: expect.any(Number),
  });
  expect(Number.isInteger(res.body.uptime) && res.body.uptime >= 0).toBe(true);
  expect(res.text).not.toMatch(/postgres:\/\/|:memory:/);
});

it('refuses a token that does not check out with 401', async () => {
  expectRefusal(await t.request('GET', '/status', { token: 'not-a-token' }), 401, 'unauthorized');
});
