/**
 * The console's organization screens, identity providers and a user's sign-ins in a real browser
 * (as browser.test.ts): a sysadmin sees every organization, page by page; the demo admin adds and
 * removes an organization admin, shows and rotates the organization's credentials; adds, edits
 * and removes an identity provider whose secret is never shown; ends an app user's session (that
 * browser is signed out) and revokes their consent (the client must ask again). axe-core finds
 * no serious or critical problem on any of these screens.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { HAS_CHROMIUM } from '../chromium.js';
import { DEMO, expectAccessible, SHOTS, tabTo, useConsoleServer } from './console-helpers.js';
import { authorizeAsUser, Browser, redirectOf } from '../authorize/support.js';
import { rememberConsent } from '../../src/identity/authorize/consents.js';

const ROOT = { username: 'root', password: 'root-password-1' };
const harness = useConsoleServer({ superuser: `${ROOT.username}:${ROOT.password}` });
const { api, openPage, signIn } = harness;

async function newOrganization(name: string): Promise<void> {
  const made = await fetch(`${harness.url}/management/orgs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      organization: name,
      username: `owner-${name}`,
      name: `Owner of ${name}`,
      email: `owner-${name}@example.com`,
      password: 'owners-password-1',
    }),
  });
  expect(made.status).toBe(200);
}

async function clientCredentials(id: string, secret: string): Promise<number> {
  const response = await fetch(`${harness.url}/connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: id, client_secret: secret }).toString(),
  });
  return response.status;
}

describe.skipIf(!HAS_CHROMIUM)(
  `admin console: organizations, identity providers, sign-ins${HAS_CHROMIUM ? '' : ' (skipped: /usr/bin/chromium is missing)'}`,
  () => {
    it('shows a sysadmin every organization, a page at a time', async () => {
      for (let index = 1; index <= 21; index++) await newOrganization(`org-${String(index).padStart(2, '0')}`);
      const page = await openPage();
      await signIn(page, ROOT);
      await page.locator('h2', { hasText: 'Every organization' }).waitFor();
      await page.locator('.cards a', { hasText: 'demo' }).waitFor();
      const first = await page.locator('.cards a').allTextContents();
      expect(first).toHaveLength(20);
      expect(first.slice(0, 2)).toEqual(['demo', 'org-01']);
      await expectAccessible(page, 'every organization');
      await page.screenshot({ path: join(SHOTS, 'console-all-organizations.png') });
      await page.click('text=Next page');
      await page.locator('.cards a', { hasText: 'org-21' }).waitFor();
      expect(await page.locator('.cards a').allTextContents()).toEqual(['org-20', 'org-21']);
      await page.click('.cards a:text("org-21")');
      await page.locator('h1', { hasText: 'Applications of org-21' }).waitFor();
      await page.context().close();
      // Twenty-one sign-ups hash twenty-one passwords first.
    }, 60_000);

    it("adds and removes an organization's admin, and rotates its credentials", async () => {
      expect(
        (await api('POST', '/management/users', { username: 'carol', name: 'Carol', email: 'carol@example.com', password: 'carols-password-1' })).status,
      ).toBe(200);
      const page = await openPage();
      await signIn(page, DEMO);
      await page.click('.cards a:text("demo")');
      await page.click('nav[aria-label=Organization] a:text("Admins")');
      await page.locator('h1', { hasText: 'Admins' }).waitFor();
      await page.locator('td', { hasText: 'demo' }).first().waitFor();

      // Someone without an admin account: said in place, nothing changes.
      await page.fill('#admin-name', 'nobody@example.com');
      await page.click('button:text("Add admin")');
      await page.locator('#add-admin-title ~ form [role=alert]').waitFor();
      await page.fill('#admin-name', 'carol@example.com');
      await page.click('button:text("Add admin")');
      await page.locator('td:text-is("carol")').waitFor();
      const admins = async () => (await api('GET', '/management/orgs/demo/users')).body.entities.map((user: { username: string }) => user.username).sort();
      expect(await admins()).toEqual(['carol', 'demo']);
      await expectAccessible(page, 'organization admins');
      await page.screenshot({ path: join(SHOTS, 'console-org-admins.png') });

      await page.click('button[aria-label="Remove carol"]');
      await page.locator('dialog[open]').waitFor();
      await page.click('dialog button.danger');
      await page.locator('td:text-is("carol")').waitFor({ state: 'detached' });
      expect(await admins()).toEqual(['demo']);

      // The organization's credentials: the secret on request, a new one once.
      await page.click('nav[aria-label=Organization] a:text("Credentials")');
      await page.locator('h1', { hasText: 'Credentials' }).waitFor();
      const clientId = (await page.locator('#credentials-client-id').textContent())!.trim();
      expect(await page.locator('#credentials-secret').textContent()).not.toMatch(/[a-z0-9]{16}/i);
      await page.click('button:text("Show secret")');
      const oldSecret = (await page.locator('#credentials-secret').textContent())!.trim();
      expect(await clientCredentials(clientId, oldSecret)).toBe(200);
      await page.click('text=Generate a new secret…');
      await page.click('dialog button.danger');
      const newSecret = (await page.locator('#secret-value').textContent())!.trim();
      expect(await clientCredentials(clientId, newSecret)).toBe(200);
      expect(await clientCredentials(clientId, oldSecret)).toBe(401);
      await expectAccessible(page, 'organization credentials');
      await page.context().close();
    });

    it("shows what the organization's admins did, a page at a time, filtered", async () => {
      for (let round = 0; round < 21; round++) expect((await api('POST', '/management/orgs/demo/credentials')).status).toBe(200);
      expect((await api('POST', '/management/orgs/demo/apps', { name: 'kennel' })).status).toBe(200);
      const feed = async (query: string) => (await api('GET', `/management/orgs/demo/feed?${query}`)).body;
      const page = await openPage();
      await signIn(page, DEMO);
      await page.click('.cards a:text("demo")');
      await page.click('nav[aria-label=Organization] a:text("Activity")');
      await page.locator('h1', { hasText: 'Activity' }).waitFor();
      const rows = page.locator('#org-feed-title ~ .table-wrap tbody tr');
      const cells = async (column: number) => rows.locator(`td:nth-child(${column})`).allTextContents();
      await rows.first().waitFor();
      // When, actor, category, verb, what: the newest first, the actor by username.
      expect(await rows.count()).toBe(20);
      expect(await rows.first().locator('td').allTextContents()).toEqual([
        expect.any(String),
        'demo',
        'application',
        'create',
        expect.stringContaining('kennel'),
      ]);
      const firstPage = await feed('limit=20');
      expect(await cells(5)).toEqual(firstPage.entities.map((activity: { title: string }) => activity.title));
      await expectAccessible(page, 'organization activity');
      await page.screenshot({ path: join(SHOTS, 'console-org-activity.png') });

      await page.click('#org-feed-title ~ .pager button:text("Next page")');
      await page.waitForFunction(
        (first) => document.querySelector('#org-feed-title ~ .table-wrap tbody td:nth-child(5)')?.textContent !== first,
        firstPage.entities[0].title,
      );
      const secondPage = await feed(`limit=20&cursor=${firstPage.cursor}`);
      expect(await cells(5)).toEqual(secondPage.entities.map((activity: { title: string }) => activity.title));

      // Filters by the keyboard: typed, then Enter.
      await tabTo(page, '#org-feed-category');
      await page.keyboard.type('application');
      await page.keyboard.press('Enter');
      await page.waitForFunction(() =>
        [...document.querySelectorAll('#org-feed-title ~ .table-wrap tbody td:nth-child(3)')].every((cell) => cell.textContent === 'application'),
      );
      expect(await cells(5)).toEqual((await feed('limit=20&category=application')).entities.map((activity: { title: string }) => activity.title));
      expect(await cells(5)).toContainEqual(expect.stringContaining('kennel'));

      await page.fill('#org-feed-category', '');
      await page.fill('#org-feed-actor', 'nobody');
      await page.click('#org-feed-title ~ form button:text("Filter")');
      await page.locator('#org-feed-title ~ p', { hasText: 'Nothing matches.' }).waitFor();

      // A category the API does not have: its refusal, in place.
      await page.fill('#org-feed-actor', '');
      await page.fill('#org-feed-category', 'bogus');
      await page.click('#org-feed-title ~ form button:text("Filter")');
      expect(await page.locator('#org-feed-title ~ [role=alert]').textContent()).toContain('must be organization, application, admin or credentials');
      await expectAccessible(page, 'organization activity refused');
      await page.context().close();
    });

    it('adds, edits and removes an identity provider; its secret is never shown', async () => {
      const page = await openPage();
      await signIn(page, DEMO);
      await page.goto(`${harness.url}/console/orgs/demo/apps/sandbox/identity-providers`);
      await page.locator('h1', { hasText: 'Identity providers' }).waitFor();
      await page.locator('text=This application has no identity provider yet.').waitFor();
      await page.fill('#provider-name', 'corp');
      await page.fill('#provider-issuer', 'http://not-https.example');
      await page.fill('#provider-client-id', 'idp-at-corp');
      await page.fill('#provider-secret', 'corp-secret-value');
      await page.click('button:text("Add provider")');
      expect(await page.locator('form [role=alert]').textContent()).toContain('issuer must be an https URL');
      await page.fill('#provider-issuer', 'https://login.corp.example');
      await page.click('button:text("Add provider")');
      await page.locator('td', { hasText: 'https://login.corp.example' }).waitFor();
      const PROVIDERS = '/management/orgs/demo/apps/sandbox/identity-providers';
      const stored = async () => (await api('GET', PROVIDERS)).body.entities;
      expect(await stored()).toEqual([expect.objectContaining({ name: 'corp', client_id: 'idp-at-corp', has_client_secret: true })]);
      expect(await page.content()).not.toContain('corp-secret-value');
      await expectAccessible(page, 'identity providers');
      await page.screenshot({ path: join(SHOTS, 'console-identity-providers.png') });

      // Edit: the secret field stays empty and the stored secret is kept.
      await page.click('button[aria-label="Edit corp"]');
      expect(await page.inputValue('#provider-secret')).toBe('');
      await page.fill('#provider-scope', 'openid email');
      await page.click('button:text("Save provider")');
      await page.locator('text=Saved corp.').waitFor();
      expect(await stored()).toEqual([expect.objectContaining({ scope: 'openid email', has_client_secret: true })]);

      await page.click('button[aria-label="Remove corp"]');
      await page.click('dialog button.danger');
      await page.locator('text=This application has no identity provider yet.').waitFor();
      expect(await stored()).toEqual([]);
      await page.context().close();
    });

    it("ends an app user's session, which signs that browser out, and revokes a consent", async () => {
      const APP = '/demo/sandbox';
      expect((await api('POST', `${APP}/users`, { username: 'walt', password: 'walts-password-1' })).status).toBe(200);
      const client = (
        await api('POST', '/management/orgs/demo/apps/sandbox/clients', {
          client_name: 'Kennel',
          redirect_uris: ['https://kennel.example/callback'],
          grant_types: ['implicit'],
          response_types: ['id_token'],
          token_endpoint_auth_method: 'none',
        })
      ).body.entities[0];
      const authorize = (prompt?: string) =>
        `/connect/authorize?${new URLSearchParams({ client_id: client.client_id, redirect_uri: 'https://kennel.example/callback', response_type: 'id_token', scope: 'openid', nonce: 'n', ...(prompt && { prompt }) })}`;
      // Walt's own browser signs in through the client and allows it.
      const walts = new Browser(harness.url);
      expect(
        redirectOf(await authorizeAsUser(walts, authorize(), { username: 'walt', email: '', name: '', password: 'walts-password-1' })).fragment.get('id_token'),
      ).toBeTruthy();
      const silently = async () => redirectOf(await walts.get(authorize('none'))).fragment;

      const page = await openPage();
      await signIn(page, DEMO);
      await page.goto(`${harness.url}/console/orgs/demo/apps/sandbox/users/walt`);
      await page.locator('#sessions-title').waitFor();
      const row = page.locator('#sessions-title ~ .table-wrap tbody tr');
      await row.first().waitFor();
      expect(await row.count()).toBe(1);
      expect(await row.locator('td').nth(1).textContent()).toBe('127.0.0.1');
      await page.locator('#consents-title ~ .table-wrap td', { hasText: 'Kennel' }).waitFor();
      await expectAccessible(page, 'user with sessions and consents');
      await page.locator('#sessions-title').scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(SHOTS, 'console-user-sessions.png') });

      await page.click('#sessions-title ~ .table-wrap button:text("End")');
      await page.locator('text=Not signed in in any browser.').waitFor();
      expect((await silently()).get('error')).toBe('login_required');

      await authorizeAsUser(walts, authorize(), { username: 'walt', email: '', name: '', password: 'walts-password-1' });
      await page.click('button[aria-label="Revoke Kennel"]');
      await page.locator('text=The user has allowed no application.').waitFor();
      expect((await api('GET', `${APP}/users/walt/consents`)).body.entities).toEqual([]);
      expect((await silently()).get('error')).toBe('consent_required');
      await page.context().close();
    });

    it("ends the signed-in admin's other browser and revokes their consent, on their own account screen", async () => {
      const demo = (await api('GET', '/management/users/demo')).body.entities[0];
      const client = (
        await api('POST', '/management/orgs/demo/apps/sandbox/clients', {
          client_name: 'Kennel tools',
          redirect_uris: ['https://kennel.example/callback'],
          grant_types: ['authorization_code'],
        })
      ).body.entities[0];
      // No client of the admin realm asks for consent today; the consent is stored as the authorize endpoint stores one.
      await rememberConsent(harness.deps, client.client_id, demo.uuid, ['openid', 'profile']);
      const sessions = async () =>
        (await api('GET', '/management/users/demo/sessions')).body.entities.map((session: { user_agent: string }) => session.user_agent);
      // The browsers of the tests before are still signed in (the password tokens of `api` make no session).
      const before = (await sessions()).length;
      const other = await openPage({ userAgent: 'Other browser/1.0' });
      await signIn(other, DEMO);
      const page = await openPage();
      await signIn(page, DEMO);
      expect(await sessions()).toHaveLength(before + 2);
      expect(await sessions()).toContain('Other browser/1.0');

      await page.click('.who a:has-text("demo")');
      await page.locator('h1', { hasText: 'Your account' }).waitFor();
      const rows = page.locator('#sessions-title ~ .table-wrap tbody tr');
      await rows.nth(before + 1).waitFor();
      expect(await rows.count()).toBe(before + 2);
      expect(await page.locator('#sessions-title ~ .table-wrap td', { hasText: 'Other browser/1.0' }).count()).toBe(1);
      await page.locator('#consents-title ~ .table-wrap td', { hasText: 'Kennel tools' }).waitFor();
      await expectAccessible(page, 'your account');
      await page.screenshot({ path: join(SHOTS, 'console-my-account.png') });

      // By the keyboard: Tab to the other browser's End, then Enter.
      await tabTo(page, 'button[aria-label^="End the session of Other browser/1.0"]');
      await page.keyboard.press('Enter');
      await page.locator('#sessions-title ~ .table-wrap td', { hasText: 'Other browser/1.0' }).waitFor({ state: 'detached' });
      expect(await rows.count()).toBe(before + 1);
      expect(await sessions()).toHaveLength(before + 1);
      expect(await sessions()).not.toContain('Other browser/1.0');
      // That browser signs in again; this one goes on.
      await other.reload();
      await other.locator('#login').waitFor();
      await page.reload();
      await page.locator('h1', { hasText: 'Your account' }).waitFor();

      await page.click('button[aria-label="Revoke Kennel tools"]');
      await page.locator('text=You have allowed no application.').waitFor();
      expect((await api('GET', '/management/users/demo/consents')).body.entities).toEqual([]);
      await other.context().close();
      await page.context().close();
    });
  },
);
