/**
 * The password policy (docs/api.md#passwords) wherever a password is set: admin sign-up and
 * change, app users created and changed, an application's own policy over the server's; every
 * refusal names the rule and stores nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PASSWORD_POLICY } from '../../src/password-policy.js';
import { resolveConfig } from '../../src/config.js';
import { randomBytes, scryptSync } from 'node:crypto';
import { hashPassword, verifyPassword } from '../../src/passwords.js';
import { adminToken, createTestApp, expectFieldsNamed, expectRefusedUnchanged, ORG, type TestApp } from '../helpers.js';
import { APP, createDataTest, type DataTest } from '../data/setup.js';

const APP_SETTINGS = '/management/orgs/acme/apps/sandbox';

/** Expects a 400 illegal_argument naming `field` with exactly `message`, with nothing stored. */
async function expectPasswordRefused(t: TestApp, send: () => ReturnType<TestApp['request']>, field: string, message: string): Promise<void> {
  const res = await expectRefusedUnchanged(t, send, 400, 'illegal_argument');
  expectFieldsNamed(res, field);
  expect(res.body.fields[field]).toBe(message);
  expect(res.body.error_description).toBe(message);
}

describe('the default policy (NIST SP 800-63B)', () => {
  let d: DataTest;
  beforeAll(async () => {
    d = await createDataTest();
  });
  afterAll(() => d.t.close());

  const createUser = (username: string, password: unknown, extra: Record<string, unknown> = {}) =>
    d.t.request('POST', `${APP}/users`, { json: { username, password, ...extra }, token: d.admin });

  it('refuses a password shorter than 8 characters, counting code points', async () => {
    await expectPasswordRefused(d.t, () => createUser('sam', 'kx7-qpz'), 'password', 'password must be at least 8 characters');
    // Seven emoji are fourteen UTF-16 units, but seven characters.
    await expectPasswordRefused(d.t, () => createUser('sam', '🦊🐻🐼🐨🐯🦁🐮'), 'password', 'password must be at least 8 characters');
    await expectPasswordRefused(d.t, () => createUser('sam', 'x'.repeat(1025)), 'password', 'password must be at most 1024 characters');
    expect((await d.t.request('GET', `${APP}/users/sam`, { token: d.admin })).status).toBe(404);
  });

  it('refuses common and breached passwords, whatever their case', async () => {
    for (const common of ['password1', 'Password123', 'QWERTYUIOP', 'iloveyou', 'trustno1']) {
      await expectPasswordRefused(d.t, () => createUser('sam', common), 'password', 'password is too common');
    }
  });

  it("refuses the user's own username or email address", async () => {
    await expectPasswordRefused(d.t, () => createUser('marvin-android', 'Marvin-Android'), 'password', 'password must not be the username');
    await expectPasswordRefused(
      d.t,
      () => createUser('marvin', 'marvin@example.com', { email: 'Marvin@Example.com' }),
      'password',
      'password must not be the email address',
    );
  });

  it('accepts a long passphrase without digits, symbols or capitals, and the user signs in with it', async () => {
    expect((await createUser('zaphod', 'purple monkey dishwasher')).status).toBe(200);
    const token = await d.t.request('POST', `${APP}/token`, { json: { grant_type: 'password', username: 'zaphod', password: 'purple monkey dishwasher' } });
    expect(token.status).toBe(200);
  });

  it('checks a new password of an app user, and a refused one leaves the old one working', async () => {
    expect((await createUser('ford', 'ford-prefect-42')).status).toBe(200);
    const change = (newpassword: string) =>
      d.t.request('PUT', `${APP}/users/ford/password`, { json: { oldpassword: 'ford-prefect-42', newpassword }, token: d.admin });
    await expectPasswordRefused(d.t, () => change('password123'), 'newpassword', 'newpassword is too common');
    await expectPasswordRefused(d.t, () => change('Ford'), 'newpassword', 'newpassword must be at least 8 characters');
    const signIn = await d.t.request('POST', `${APP}/token`, { json: { grant_type: 'password', username: 'ford', password: 'ford-prefect-42' } });
    expect(signIn.status).toBe(200);
  });

  it("checks an admin's new password, and a refused one leaves the old one working", async () => {
    const token = await adminToken(d.t, ORG.username, ORG.password);
    const change = (newpassword: string) =>
      d.t.request('PUT', `/management/users/${ORG.username}/password`, { json: { password: ORG.password, newpassword }, token });
    await expectPasswordRefused(d.t, () => change('letmein1'), 'newpassword', 'newpassword is too common');
    await expectPasswordRefused(d.t, () => change(ORG.username.toUpperCase()), 'newpassword', 'newpassword must be at least 8 characters');
    await expectPasswordRefused(d.t, () => change(ORG.email), 'newpassword', 'newpassword must not be the email address');
    expect(await adminToken(d.t, ORG.username, ORG.password)).toEqual(expect.any(String));
  });

  it('checks the passwords of new admins and organization owners', async () => {
    await expectPasswordRefused(
      d.t,
      () => d.t.request('POST', '/management/users', { json: { username: 'trillian', email: 'trillian@example.com', password: 'sunshine' } }),
      'password',
      'password is too common',
    );
    await expectPasswordRefused(
      d.t,
      () =>
        d.t.request('POST', '/management/orgs', {
          json: { ...ORG, organization: 'heart-of-gold', username: 'eddie', email: 'eddie@example.com', password: 'eddie' },
        }),
      'password',
      'password must be at least 8 characters',
    );
  });
});

describe('the server policy from idp serve --password-*', () => {
  it('is NIST SP 800-63B unless flags or IDP_PASSWORD_* variables say otherwise; flags beat variables', () => {
    expect(resolveConfig({}, {}).passwordPolicy).toEqual({ minLength: 8, require: [], blocklist: 'common' });
    const env = { IDP_PASSWORD_MIN_LENGTH: '15', IDP_PASSWORD_REQUIRE: 'upper, digit', IDP_PASSWORD_BLOCKLIST: 'off' };
    expect(resolveConfig({}, env).passwordPolicy).toEqual({ minLength: 15, require: ['upper', 'digit'], blocklist: 'off' });
    expect(resolveConfig({ passwordMinLength: '6', passwordRequire: 'none', passwordBlocklist: 'common' }, env).passwordPolicy).toEqual({
      minLength: 6,
      require: [],
      blocklist: 'common',
    });
    expect(() => resolveConfig({ passwordMinLength: '0' }, {})).toThrow(/--password-min-length must be a whole number of characters, not '0'/);
  });

  it('--password-min-length 6 accepts 7 characters; --password-require asks for each class', async () => {
    const t = await createTestApp({ passwordPolicy: { ...DEFAULT_PASSWORD_POLICY, minLength: 6, require: ['digit', 'symbol'] } });
    try {
      const signUp = (username: string, password: string) =>
        t.request('POST', '/management/users', { json: { username, email: `${username}@example.com`, password } });
      expect((await signUp('arthur', 'kx7-qpz')).status).toBe(200);
      await expectPasswordRefused(t, () => signUp('fenchurch', 'kx-qpzw'), 'password', 'password must contain a digit');
      await expectPasswordRefused(t, () => signUp('fenchurch', 'kx7qpzw'), 'password', 'password must contain a symbol');
      await expectPasswordRefused(t, () => signUp('fenchurch', '12345'), 'password', 'password must be at least 6 characters');
    } finally {
      await t.close();
    }
  });

  it('--password-blocklist off lets a common password through', async () => {
    const t = await createTestApp({ passwordPolicy: { ...DEFAULT_PASSWORD_POLICY, blocklist: 'off' } });
    try {
      expect((await t.request('POST', '/management/users', { json: { username: 'arthur', password: 'password1' } })).status).toBe(200);
    } finally {
      await t.close();
    }
  });
});

describe("an application's own policy", () => {
  let d: DataTest;
  beforeAll(async () => {
    d = await createDataTest();
  });
  afterAll(() => d.t.close());

  const createUser = (username: string, password: string) => d.t.request('POST', `${APP}/users`, { json: { username, password }, token: d.admin });
  const setPolicy = (passwordPolicy: unknown) => d.t.request('PUT', APP_SETTINGS, { json: { passwordPolicy }, token: d.admin });

  it("overrides the server's for the application's users, and shows in the application", async () => {
    const set = await setPolicy({ minLength: 12, require: ['upper', 'digit'] });
    expect(set.status).toBe(200);
    expect(set.body.entities[0]).toMatchObject({ name: 'acme/sandbox', passwordPolicy: { minLength: 12, require: ['upper', 'digit'] } });
    expect((await d.t.request('GET', APP_SETTINGS, { token: d.admin })).body.entities[0].passwordPolicy).toEqual({
      minLength: 12,
      require: ['upper', 'digit'],
    });

    await expectPasswordRefused(d.t, () => createUser('sam', 'kx7-qpz-wrv'), 'password', 'password must be at least 12 characters');
    await expectPasswordRefused(d.t, () => createUser('sam', 'purple monkey 9'), 'password', 'password must contain an uppercase letter');
    await expectPasswordRefused(d.t, () => createUser('sam', 'Purple monkey dishwasher'), 'password', 'password must contain a digit');
    // A rule it leaves out is the server's: the common list still applies.
    await expectPasswordRefused(d.t, () => createUser('sam', 'Password1234'), 'password', 'password is too common');
    expect((await createUser('sam', 'Purple monkey 9')).status).toBe(200);
  });

  it("leaves admin users under the server's policy", async () => {
    await setPolicy({ minLength: 20 });
    expect((await d.t.request('POST', '/management/users', { json: { username: 'arthur', password: 'kx7-qpz-w' } })).status).toBe(200);
  });

  it("is removed with null, and the server's applies again", async () => {
    await setPolicy({ minLength: 20 });
    await expectPasswordRefused(d.t, () => createUser('ada', 'kx7-qpz-wrv'), 'password', 'password must be at least 20 characters');
    const removed = await setPolicy(null);
    expect(removed.status).toBe(200);
    expect(removed.body.entities[0]).not.toHaveProperty('passwordPolicy');
    expect((await createUser('ada', 'kx7-qpz-wrv')).status).toBe(200);
  });

  it('may be laxer than the server: a shorter minimum and no common list', async () => {
    await setPolicy({ minLength: 6, blocklist: 'off' });
    expect((await createUser('grace', 'qwerty')).status).toBe(200);
    await setPolicy(null);
  });

  it('refuses a setting it does not know, naming it, and changes nothing', async () => {
    const bad: [unknown, string][] = [
      [{ minLength: 0 }, 'passwordPolicy.minLength'],
      [{ minLength: 1025 }, 'passwordPolicy.minLength'],
      [{ minLength: '8' }, 'passwordPolicy.minLength'],
      [{ require: ['emoji'] }, 'passwordPolicy.require.0'],
      [{ require: 'digit' }, 'passwordPolicy.require'],
      [{ blocklist: 'rockyou' }, 'passwordPolicy.blocklist'],
      [{ maxAge: 90 }, 'passwordPolicy'],
      ['strict', 'passwordPolicy'],
    ];
    for (const [policy, field] of bad) {
      const res = await expectRefusedUnchanged(d.t, () => setPolicy(policy), 400, 'illegal_argument');
      expect(Object.keys(res.body.fields), JSON.stringify(policy)).toEqual([field]);
    }
    const unknown = await expectRefusedUnchanged(d.t, () => d.t.request('PUT', APP_SETTINGS, { json: { ttl: 5 }, token: d.admin }), 400, 'illegal_argument');
    expect(unknown.text).toContain('ttl');
  });

  it('may be changed only by an administrator of the organization', async () => {
    const refused = await expectRefusedUnchanged(
      d.t,
      () => d.t.request('PUT', APP_SETTINGS, { json: { passwordPolicy: { minLength: 4 } } }),
      401,
      'unauthorized',
    );
    expect(refused.body.code).toBe(401);
  });
});

describe('hashing the NFKC form (NIST SP 800-63B 5.1.1.2)', () => {
  it('matches the same characters composed differently, and still verifies hashes made before normalizing', async () => {
    // "ﬁ" (U+FB01) is "fi" in NFKC; "é" as e + U+0301 is U+00E9.
    const hash = await hashPassword('ﬁnal cafe\u0301 answer');
    expect(await verifyPassword('final café answer', hash)).toBe(true);
    expect(await verifyPassword('final cafe answer', hash)).toBe(false);
    // A hash of the password as typed, as stored before passwords were normalized.
    const salt = randomBytes(16);
    const N = 2 ** 15;
    const legacy = [
      'scrypt',
      N,
      8,
      1,
      salt.toString('base64url'),
      scryptSync('ﬁnal answer', salt, 32, { N, r: 8, p: 1, maxmem: 256 * N * 8 }).toString('base64url'),
    ].join('$');
    expect(await verifyPassword('ﬁnal answer', legacy)).toBe(true);
    expect(await verifyPassword('final answer', legacy)).toBe(false);
  });
});
