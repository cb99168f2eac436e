/**
 * What an administrator sees of a user's sign-ins (docs/api.md#sessions-and-consents): the
 * browsers signed in and the clients allowed, for app users and admin users; ending a session
 * signs that browser out, revoking a consent makes the client ask again. Also the sysadmin's list
 * of every organization (docs/api.md#organizations).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeAsUser, Browser, createClient, createFixture, redirectOf, REDIRECT, startIdp, USER, ADMIN, type Fixture } from '../authorize/support.js';
import { ensureSuperuser } from '../../src/management/admin-users.js';
import { readResponse, snapshot, type TestResponse } from '../helpers.js';

let fixture: Fixture;
let client: { client_id: string };

beforeAll(async () => {
  fixture = await createFixture(await startIdp());
  client = await createClient(fixture, { require_consent: true });
});
afterAll(() => fixture.server.close());

async function call(method: string, path: string, token?: string, json?: unknown): Promise<TestResponse> {
  const headers: Record<string, string> = {
    ...(token && { authorization: `Bearer ${token}` }),
    ...(json !== undefined && { 'content-type': 'application/json' }),
  };
  return readResponse(await fetch(`${fixture.url}${path}`, { method, headers, body: json === undefined ? undefined : JSON.stringify(json) }));
}

async function passwordToken(path: string, username: string, password: string): Promise<string> {
  const answer = await call('POST', path, undefined, { grant_type: 'password', username, password });
  expect(answer.status, answer.text).toBe(200);
  return String(answer.body.access_token);
}

const authorizeUrl = (prompt?: string) =>
  `/connect/authorize?${new URLSearchParams({ client_id: client.client_id, redirect_uri: REDIRECT, response_type: 'id_token', scope: 'openid profile', nonce: 'n', ...(prompt && { prompt }) })}`;

/** A browser whose user signed in through the client and allowed it. */
async function signedInBrowser(): Promise<Browser> {
  const browser = new Browser(fixture.url);
  expect(redirectOf(await authorizeAsUser(browser, authorizeUrl())).fragment.get('id_token')).toBeTruthy();
  return browser;
}

const silently = async (browser: Browser) => redirectOf(await browser.get(authorizeUrl('none'))).fragment;

describe("an app user's sessions and consents", () => {
  let base: string;
  beforeAll(() => {
    base = `/acme/shop/users/${fixture.userUuid}`;
  });

  it('lists the signed-in browsers; ending one signs that browser out, and nothing else', async () => {
    const first = await signedInBrowser();
    const second = await signedInBrowser();
    const list = await call('GET', `${base}/sessions`, fixture.adminToken);
    expect(list.status, list.text).toBe(200);
    expect(list.body.count).toBe(2);
    const session = list.body.entities[0];
    expect(session).toMatchObject({ type: 'session', address: '127.0.0.1', amr: ['pwd'] });
    expect(typeof session.user_agent).toBe('string');
    expect(session.last_seen).toBeGreaterThanOrEqual(session.created);

    // The most recently active first: `second` signed in last.
    const ended = await call('DELETE', `${base}/sessions/${encodeURIComponent(String(session.id))}`, fixture.adminToken);
    expect(ended.status).toBe(200);
    expect((await silently(second)).get('error')).toBe('login_required');
    expect((await silently(first)).get('id_token')).toBeTruthy();
    expect((await call('GET', `${base}/sessions`, fixture.adminToken)).body.count).toBe(1);

    const again = await call('DELETE', `${base}/sessions/${encodeURIComponent(String(session.id))}`, fixture.adminToken);
    expect(again.status).toBe(404);
    expect(again.body.error).toBe('entity_not_found');
  });

  it('lists the consents; revoking one makes the client ask again', async () => {
    const browser = await signedInBrowser();
    const list = await call('GET', `${base}/consents`, fixture.adminToken);
    expect(list.status).toBe(200);
    expect(list.body.entities).toEqual([
      expect.objectContaining({ type: 'consent', client_id: client.client_id, client_name: 'Shop', scope: 'openid profile' }),
    ]);
    const revoked = await call('DELETE', `${base}/consents/${client.client_id}`, fixture.adminToken);
    expect(revoked.status).toBe(200);
    expect((await silently(browser)).get('error')).toBe('consent_required');
    expect((await call('GET', `${base}/consents`, fixture.adminToken)).body.entities).toEqual([]);
    const again = await call('DELETE', `${base}/consents/${client.client_id}`, fixture.adminToken);
    expect(again.status).toBe(404);
  });

  it('lets the user see their own, and refuses another app user and guests, changing nothing', async () => {
    await signedInBrowser();
    const own = await passwordToken('/acme/shop/token', USER.username, USER.password);
    expect((await call('GET', '/acme/shop/users/me/sessions', own)).body.count).toBeGreaterThan(0);
    await call('POST', '/acme/shop/users', fixture.adminToken, { username: 'eve', password: 'eves-password-1' });
    const eve = await passwordToken('/acme/shop/token', 'eve', 'eves-password-1');
    const sessions = (await call('GET', `${base}/sessions`, fixture.adminToken)).body.entities;
    const before = await snapshot(fixture.server);
    for (const [method, path] of [
      ['GET', `${base}/sessions`],
      ['GET', `${base}/consents`],
      ['DELETE', `${base}/sessions/${encodeURIComponent(String(sessions[0].id))}`],
      ['DELETE', `${base}/consents/${client.client_id}`],
    ] as const) {
      expect((await call(method, path, eve)).status).toBe(403);
      expect((await call(method, path)).status).toBe(401);
    }
    expect(await snapshot(fixture.server)).toBe(before);
    expect((await call('POST', `${base}/sessions`, fixture.adminToken)).status).toBe(405);
  });
});

describe("an admin user's sessions", () => {
  it('lists the browsers signed in to the admin realm; ending one sends that browser to sign in again', async () => {
    const browser = new Browser(fixture.url);
    const signIn = await (await browser.get(redirectOf(await browser.get('/management/account')).url.toString())).text();
    await browser.submit(signIn, { login: ADMIN.username, password: ADMIN.password }, '/connect/authorize/login');
    expect((await browser.get('/management/account')).status).toBe(200);

    const list = await call('GET', '/management/users/alice/sessions', fixture.adminToken);
    expect(list.status).toBe(200);
    expect(list.body.count).toBe(1);
    expect(list.body.entities[0].type).toBe('session');
    // An app user's sessions are not the admin realm's.
    expect((await call('GET', '/management/users/alice/consents', fixture.adminToken)).body.entities).toEqual([]);

    const ended = await call('DELETE', `/management/users/alice/sessions/${encodeURIComponent(String(list.body.entities[0].id))}`, fixture.adminToken);
    expect(ended.status).toBe(200);
    expect(redirectOf(await browser.get('/management/account')).url.pathname).toBe('/connect/authorize');
  });

  it("refuses an admin of another organization, and leaves the user's sessions alone", async () => {
    const made = await call('POST', '/management/orgs', undefined, {
      organization: 'other',
      username: 'oscar',
      name: 'Oscar',
      email: 'oscar@example.com',
      password: 'oscars-password',
    });
    expect(made.status, made.text).toBe(200);
    const oscar = await passwordToken('/management/token', 'oscar', 'oscars-password');
    expect((await call('GET', '/management/users/alice/sessions', oscar)).status).toBe(403);
    expect((await call('DELETE', '/management/users/alice/consents/x', oscar)).status).toBe(403);
    expect((await call('GET', '/management/users/nobody-here/sessions', fixture.adminToken)).status).toBe(404);
  });
});

describe('every organization (GET /management/orgs)', () => {
  it('is a sysadmin list, by name, a page at a time', async () => {
    for (const name of ['Zeta', 'beta', 'Gamma']) {
      const made = await call('POST', '/management/orgs', undefined, {
        organization: name,
        username: `owner-${name}`.toLowerCase(),
        name: `Owner of ${name}`,
        email: `${name}@example.com`,
        password: 'owners-password',
      });
      expect(made.status, made.text).toBe(200);
    }
    await ensureSuperuser(fixture.server.deps, 'root', 'root-password');
    const root = await passwordToken('/management/token', 'root', 'root-password');
    const names: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await call('GET', `/management/orgs?limit=2${cursor ? `&cursor=${cursor}` : ''}`, root);
      expect(page.status).toBe(200);
      expect(page.body.entities.length).toBeLessThanOrEqual(2);
      names.push(...page.body.entities.map((org: { name: string }) => org.name));
      cursor = page.body.cursor as string | undefined;
      pages++;
    } while (cursor !== undefined);
    // Every organization once, by name whatever its case ('other' is there when the test before made it).
    expect(names).toEqual(['acme', 'beta', 'Gamma', 'other', 'Zeta'].filter((name) => name !== 'other' || names.includes('other')));
    expect(pages).toBe(Math.ceil(names.length / 2));
    const [acme] = (await call('GET', '/management/orgs?limit=1', root)).body.entities;
    expect(acme).toMatchObject({ type: 'organization', name: 'acme', orgname: 'acme', activated: true });
    expect(acme.orguuId).toBe(acme.uuid);
  });

  it('refuses everyone else, and a cursor it did not make', async () => {
    expect((await call('GET', '/management/orgs')).status).toBe(401);
    const refused = await call('GET', '/management/orgs', fixture.adminToken);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('forbidden');
    await ensureSuperuser(fixture.server.deps, 'root', 'root-password');
    const root = await passwordToken('/management/token', 'root', 'root-password');
    const bad = await call('GET', '/management/orgs?cursor=%%%', root);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('illegal_argument');
    expect((await call('GET', '/management/orgs?limit=x', root)).status).toBe(400);
  });
});
