import { afterEach, describe, expect, it } from 'vitest';
import { adminToken, expectOAuthError, expectRefusedUnchanged, ORG, type TestApp } from '../helpers.js';
import { createLifecycleApp, mailsOf, pathOf } from './support.js';

let t: TestApp;
afterEach(() => t?.close());

/** An activated organization with an application, under --require-activation. */
async function activatedOrgWithApp(): Promise<string> {
  expect((await t.request('POST', '/management/orgs', { json: ORG })).status).toBe(200);
  for (const mail of await mailsOf(t)) expect((await t.request('GET', pathOf(mail.links[0]))).status).toBe(200);
  const token = await adminToken(t, ORG.username, ORG.password);
  expect((await t.request('POST', '/management/orgs/acme/apps', { json: { name: 'shop' }, token })).status).toBe(200);
  return token;
}

describe('app users signing themselves up under --require-activation', () => {
  it('start not activated, may not say otherwise, get a link, and can sign in once they follow it', async () => {
    t = await createLifecycleApp({ requireActivation: true });
    const admin = await activatedOrgWithApp();
    const before = (await mailsOf(t)).length;

    const claimed = await expectRefusedUnchanged(
      t,
      () => t.request('POST', '/acme/shop/users', { json: { username: 'gina', email: 'gina@example.com', password: 'gina-password', activated: true } }),
      400,
      'illegal_argument',
    );
    expect(claimed.body.fields).toEqual({ activated: expect.any(String) });
    const signUp = await t.request('POST', '/acme/shop/users', { json: { username: 'gina', email: 'gina@example.com', password: 'gina-password' } });
    expect(signUp.status).toBe(200);
    expect(signUp.body.entities[0].activated).toBe(false);
    const refused = await expectRefusedUnchanged(
      t,
      () => t.request('POST', '/acme/shop/token', { json: { grant_type: 'password', username: 'gina', password: 'gina-password' } }),
      400,
      'invalid_grant',
    );
    expectOAuthError(refused, 400, 'invalid_grant');
    expect(refused.body.error_description).toMatch(/not activated/);

    const mails = (await mailsOf(t)).slice(before);
    expect(mails).toHaveLength(1);
    expect(mails[0].raw).toContain('gina@example.com');
    const link = mails[0].links[0];
    expect(link).toMatch(new RegExp(`^http://idp\\.test/[^/]+/[^/]+/users/${signUp.body.entities[0].uuid}/activate\\?token=`));
    expect((await t.request('GET', pathOf(link))).status).toBe(200);
    const signedIn = await t.request('POST', '/acme/shop/token', { json: { grant_type: 'password', username: 'gina', password: 'gina-password' } });
    expect(signedIn.status).toBe(200);

    // Users an administrator creates are active at once and get no mail.
    const created = await t.request('POST', '/acme/shop/users', {
      json: { username: 'hank', email: 'hank@example.com', password: 'hank-password' },
      token: admin,
    });
    expect(created.body.entities[0].activated).not.toBe(false);
    expect((await mailsOf(t)).length).toBe(before + 1);
  });

  it('are active at once without --require-activation', async () => {
    t = await createLifecycleApp();
    await t.request('POST', '/management/orgs', { json: ORG });
    const admin = await adminToken(t, ORG.username, ORG.password);
    await t.request('POST', '/management/orgs/acme/apps', { json: { name: 'shop' }, token: admin });
    const signUp = await t.request('POST', '/acme/shop/users', { json: { username: 'gina', password: 'gina-password' } });
    expect(signUp.status).toBe(200);
    expect((await t.request('POST', '/acme/shop/token', { json: { grant_type: 'password', username: 'gina', password: 'gina-password' } })).status).toBe(200);
  });
});
