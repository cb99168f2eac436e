import { afterEach, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { adminToken, expectOAuthError, expectRefusedUnchanged, ORG, snapshot, type TestApp } from '../helpers.js';
import { createLifecycleApp, mailsOf, pathOf } from './support.js';
import { schemaOf, type Db } from '../../src/db/open.js';

let t: TestApp;
let clock = Date.UTC(2026, 0, 1);
const now = () => clock;
afterEach(() => t?.close());

/** Disables the organization's administrator in storage, as another instance or an operator would. */
async function disableAdmin(db: Db): Promise<void> {
  const { adminUsers } = schemaOf(db);
  await db.update(adminUsers).set({ disabled: true }).where(eq(adminUsers.username, ORG.username));
}

async function signUpPending(): Promise<{ adminLink: string; orgLink: string }> {
  const res = await t.request('POST', '/management/orgs', { json: ORG });
  expect(res.status).toBe(200);
  const mails = await mailsOf(t);
  const adminLink = mails.find((m) => m.subject.includes('administrator account'))!.links[0];
  const orgLink = mails.find((m) => m.subject.includes('organization'))!.links[0];
  return { adminLink, orgLink };
}

describe('activation with --require-activation', () => {
  it('starts organizations and admins not activated, mails each a link, and the links activate them', async () => {
    t = await createLifecycleApp({ requireActivation: true }, now);
    const created = await t.request('POST', '/management/orgs', { json: ORG });
    expect(created.body.data.owner).toMatchObject({ activated: false, disabled: false });
    expect(created.body.data.organization).toMatchObject({ activated: false });
    await expect(adminToken(t, ORG.username, ORG.password)).rejects.toThrow(/not activated/);

    const mails = await mailsOf(t);
    expect(mails.map((m) => m.subject).sort()).toEqual(['Activate your administrator account Alice Admin', 'Activate your organization acme']);
    const adminLink = mails.find((m) => m.subject.includes('administrator'))!.links[0];
    expect(adminLink).toMatch(/^http:\/\/idp\.test\/management\/users\/[0-9a-f-]{36}\/activate\?token=/);

    const activated = await t.request('GET', pathOf(adminLink));
    expect(activated.status).toBe(200);
    expect(activated.body.entities).toEqual([{ action: 'activate', status: 'activated' }]);
    expect(activated.body.params.token).toBeUndefined();
    // The account is active, its only organization not yet: nothing to sign in to (docs/api.md#account-state).
    const early = await t.request('POST', '/management/token', { json: { grant_type: 'password', username: ORG.username, password: ORG.password } });
    expectOAuthError(early, 400, 'invalid_grant');
    expect(early.body).toMatchObject({ error_description: "the organization 'acme' of this account is not activated", fields: { organization: 'acme' } });

    const orgLink = mails.find((m) => m.subject.includes('organization'))!.links[0];
    const orgActivated = await t.request('GET', `${pathOf(orgLink)}&confirm_email=true`);
    expect(orgActivated.body.entities[0]).toEqual({ action: 'activate', status: 'activated' });
    expect((await mailsOf(t)).at(-1)!.subject).toBe('Your organization acme is active');
    const token = await adminToken(t, ORG.username, ORG.password);
    const org = await t.request('GET', '/management/orgs/acme', { token });
    expect(org.body.entities[0]).toMatchObject({ activated: true, disabled: false });
  });

  it('activates admin users created through POST /management/users the same way', async () => {
    t = await createLifecycleApp({ requireActivation: true }, now);
    const created = await t.request('POST', '/management/users', { json: { username: 'carol', email: 'carol@example.com', password: 'carols-secret' } });
    expect(created.body.entities[0]).toMatchObject({ activated: false });
    const [mail] = await mailsOf(t);
    expect((await t.request('GET', pathOf(mail.links[0]))).status).toBe(200);
    expect(await adminToken(t, 'carol', 'carols-secret')).toEqual(expect.any(String));
  });

  it('answers a browser with a page, in its language', async () => {
    t = await createLifecycleApp({ requireActivation: true }, now);
    const { adminLink } = await signUpPending();
    const page = await t.request('GET', pathOf(adminLink), { headers: { accept: 'text/html', 'accept-language': 'de-DE,de;q=0.9' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.text).toContain('Alice Admin ist aktiviert.');
    // A page has no error name to assert; it says what is wrong, and the link changes nothing.
    const before = await snapshot(t);
    const again = await t.request('GET', pathOf(adminLink), { headers: { accept: 'text/html' } });
    expect(again.status).toBe(400);
    expect(again.text).toContain('This link was already used.');
    expect(await snapshot(t)).toBe(before);
  });

  it('is off by default: new accounts are active and nothing is mailed', async () => {
    t = await createLifecycleApp({}, now);
    const created = await t.request('POST', '/management/orgs', { json: ORG });
    expect(created.body.data.owner.activated).toBe(true);
    expect(await adminToken(t, ORG.username, ORG.password)).toEqual(expect.any(String));
    expect(await mailsOf(t)).toEqual([]);
  });

  it('refuses a token to a disabled admin, whatever the password', async () => {
    t = await createLifecycleApp({}, now);
    await t.request('POST', '/management/orgs', { json: ORG });
    await disableAdmin(t.deps.db);
    const res = await expectRefusedUnchanged(
      t,
      () => t.request('POST', '/management/token', { json: { grant_type: 'password', username: ORG.username, password: ORG.password } }),
      400,
      'invalid_grant',
    );
    expectOAuthError(res, 400, 'invalid_grant');
    expect(res.body.error_description).toMatch(/disabled/);
  });
});

describe('activation: bad links change nothing', () => {
  const cases: {
    name: string;
    link: (links: { adminLink: string; orgLink: string }) => string;
    status: number;
    error: string;
    before?: () => Promise<void>;
  }[] = [
    { name: 'a forged token', link: ({ adminLink }) => pathOf(adminLink).replace(/token=([^&.]+)/, 'token=AAAA$1'), status: 400, error: 'invalid_link' },
    { name: 'a token with its signature altered', link: ({ adminLink }) => `${pathOf(adminLink)}x`, status: 400, error: 'invalid_link' },
    {
      name: "the admin's token on the organization",
      link: ({ adminLink, orgLink }) => pathOf(orgLink).replace(/token=.*/, adminLink.slice(adminLink.indexOf('token='))),
      status: 400,
      error: 'invalid_link',
    },
    { name: 'no token', link: ({ adminLink }) => pathOf(adminLink).replace(/\?.*/, ''), status: 400, error: 'illegal_argument' },
    { name: 'a wrong confirm_email', link: ({ adminLink }) => `${pathOf(adminLink)}&confirm_email=perhaps`, status: 400, error: 'illegal_argument' },
    { name: 'an unknown account', link: ({ adminLink }) => pathOf(adminLink).replace(/users\/[^/]+/, 'users/nobody'), status: 404, error: 'user_not_found' },
  ];
  for (const testCase of cases) {
    it(`refuses ${testCase.name}`, async () => {
      t = await createLifecycleApp({ requireActivation: true }, now);
      const links = await signUpPending();
      await expectRefusedUnchanged(t, () => t.request('GET', testCase.link(links)), testCase.status, testCase.error);
      // The genuine link still works afterwards.
      expect((await t.request('GET', pathOf(links.adminLink))).status).toBe(200);
    });
  }

  it('refuses a used link', async () => {
    t = await createLifecycleApp({ requireActivation: true }, now);
    const { adminLink } = await signUpPending();
    expect((await t.request('GET', pathOf(adminLink))).status).toBe(200);
    const res = await expectRefusedUnchanged(t, () => t.request('GET', pathOf(adminLink)), 400, 'link_already_used');
    expect(res.body.fields).toEqual({ token: 'already used' });
  });

  it('refuses an expired link; reactivate mails a fresh one that works, and replaces the old', async () => {
    t = await createLifecycleApp({ requireActivation: true }, now);
    const { adminLink } = await signUpPending();
    clock += t.deps.config.activationTtl * 1000 + 1;
    await expectRefusedUnchanged(t, () => t.request('GET', pathOf(adminLink)), 400, 'link_expired');

    const userPath = pathOf(adminLink).replace(/\/activate\?.*/, '');
    const re = await t.request('GET', `${userPath}/reactivate`);
    expect(re.status).toBe(200);
    expect(re.body.entities).toEqual([{ action: 'reactivate', status: 'sent' }]);
    const fresh = (await mailsOf(t)).at(-1)!;
    expect(fresh.links[0]).not.toBe(adminLink);
    const second = await t.request('GET', `${userPath}/reactivate`);
    const newest = (await mailsOf(t)).at(-1)!;
    expect(second.status).toBe(200);
    await expectRefusedUnchanged(t, () => t.request('GET', pathOf(fresh.links[0])), 400, 'link_expired');
    expect((await t.request('GET', pathOf(newest.links[0]))).status).toBe(200);
    await expectRefusedUnchanged(t, () => t.request('GET', `${userPath}/reactivate`), 409, 'conflict');
  });

  it('throttles a reactivation flood with 429 and Retry-After, and refuses disabled accounts', async () => {
    t = await createLifecycleApp({ requireActivation: true }, now);
    const { orgLink } = await signUpPending();
    const orgPath = pathOf(orgLink).replace(/\/activate\?.*/, '');
    for (let i = 0; i < 4; i++) expect((await t.request('GET', `${orgPath}/reactivate`)).status).toBe(200);
    const flooded = await expectRefusedUnchanged(t, () => t.request('GET', `${orgPath}/reactivate`), 429, 'too_many_requests');
    expect(flooded.headers.get('retry-after')).toMatch(/^\d+$/);

    await disableAdmin(t.deps.db);
    await expectRefusedUnchanged(t, () => t.request('GET', '/management/users/alice/reactivate'), 403, 'forbidden');
  });
});
