/**
 * Deactivating and activating accounts (docs/api.md#account-state), as clients see it: after
 * `…/deactivate` every way of getting a token is refused and every token and browser session
 * the user held stops at once; after `…/activate` signing in works again and the old tokens stay
 * dead. Who may switch whom, and that a refusal stores nothing. A real server, so the browser's
 * sign-in page is part of it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectOAuthError, expectRefusal, expectRefusedUnchanged, readResponse, requestServer, type TestResponse } from '../helpers.js';
import {
  ADMIN,
  authorizeAsUser,
  Browser,
  createClient,
  createFixture,
  redirectOf,
  REDIRECT,
  startIdp,
  USER,
  type Fixture,
  type RegisteredClient,
} from '../authorize/support.js';
import { basic } from '../oauth/fixtures.js';
import { ensureSuperuser } from '../../src/management/admin-users.js';

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const APP = '/acme/shop';

let fixture: Fixture;
let client: Required<RegisteredClient>;

beforeEach(async () => {
  fixture = await createFixture(await startIdp());
  client = (await createClient(fixture, {
    grant_types: ['authorization_code', 'refresh_token', 'password', TOKEN_EXCHANGE],
    response_types: ['code'],
    scope: 'openid profile offline_access api',
    require_pkce: false,
    require_consent: false,
  })) as Required<RegisteredClient>;
});
afterEach(() => fixture.server.close());

const call = (method: string, path: string, options: { json?: unknown; token?: string } = {}) => requestServer(fixture.url, method, path, options);

/** POST /connect/token with a form, as `authorization` (HTTP Basic of the app's client by default). */
async function connectToken(form: Record<string, string>, authorization = basic(client.client_id, client.client_secret)): Promise<TestResponse> {
  const response = await fetch(`${fixture.url}/connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization },
    body: new URLSearchParams(form).toString(),
  });
  return readResponse(response);
}

const bobPassword = () => connectToken({ grant_type: 'password', username: USER.username, password: USER.password, scope: 'openid api offline_access' });
const usergridToken = () => call('POST', `${APP}/token`, { json: { grant_type: 'password', username: USER.username, password: USER.password } });
const authorizeUrl = () =>
  `/connect/authorize?${new URLSearchParams({ client_id: client.client_id, redirect_uri: REDIRECT, response_type: 'code', scope: 'openid api offline_access' })}`;
const works = async (token: string) => (await call('GET', `${APP}/users/me`, { token })).status;

/** Signs bob in at every door: password grants at both token endpoints and a browser session with its code flow. */
async function signInEveryWay(browser: Browser) {
  const password = await bobPassword();
  expect(password.status, password.text).toBe(200);
  const usergrid = await usergridToken();
  expect(usergrid.status, usergrid.text).toBe(200);
  const code = redirectOf(await authorizeAsUser(browser, authorizeUrl())).query.get('code')!;
  const browserTokens = await connectToken({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT });
  expect(browserTokens.status, browserTokens.text).toBe(200);
  return {
    access: [password.body.access_token, usergrid.body.access_token, browserTokens.body.access_token] as string[],
    refresh: [password.body.refresh_token, browserTokens.body.refresh_token] as string[],
  };
}

function expectDisabledGrant(res: TestResponse): void {
  expectOAuthError(res, 400, 'invalid_grant');
  expect(res.body.error_description).toMatch(/disabled/);
}

describe('deactivating an app user', () => {
  it('refuses every way of getting a token and ends every token and session at once; activating lets the user in again, old tokens stay dead', async () => {
    const browser = new Browser(fixture.url);
    const held = await signInEveryWay(browser);
    for (const token of held.access) expect(await works(token)).toBe(200);

    const deactivated = await call('PUT', `${APP}/users/${fixture.userUuid}/deactivate`, { token: fixture.adminToken });
    expect(deactivated.status, deactivated.text).toBe(200);
    expect(deactivated.body.entities).toEqual([expect.objectContaining({ uuid: fixture.userUuid, username: USER.username, disabled: true, activated: true })]);
    expect(deactivated.headers.get('cache-control')).toBe('no-store');
    expect((await call('GET', `${APP}/users/${fixture.userUuid}`, { token: fixture.adminToken })).body.entities[0].disabled).toBe(true);

    for (const token of held.access) expectRefusal(await call('GET', `${APP}/users/me`, { token }), 401, 'unauthorized');
    for (const refresh of held.refresh) expectOAuthError(await connectToken({ grant_type: 'refresh_token', refresh_token: refresh }), 400, 'invalid_grant');
    expectDisabledGrant(await bobPassword());
    expectDisabledGrant(await usergridToken());
    // RFC 8693 2.2.2: a subject token that no longer works is invalid_request.
    const exchanged = await connectToken({
      grant_type: TOKEN_EXCHANGE,
      subject_token: held.access[0],
      subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
    });
    expectOAuthError(exchanged, 400, 'invalid_request');

    // The browser's session ended: the authorize endpoint asks again, and the right password meets the page's message.
    const page = await browser.get(authorizeUrl());
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('action="/connect/authorize/login"');
    const refused = await authorizeAsUser(browser, authorizeUrl());
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('This account is disabled. Ask an administrator to activate it.');

    const activated = await call('PUT', `${APP}/users/${fixture.userUuid}/activate`, { token: fixture.adminToken });
    expect(activated.status, activated.text).toBe(200);
    expect(activated.body.entities[0]).toMatchObject({ username: USER.username, disabled: false, activated: true });
    for (const token of held.access) expect(await works(token)).toBe(401);
    for (const refresh of held.refresh) expectOAuthError(await connectToken({ grant_type: 'refresh_token', refresh_token: refresh }), 400, 'invalid_grant');
    const again = await signInEveryWay(browser);
    for (const token of again.access) expect(await works(token)).toBe(200);
  });

  it("may be done by the application's own client, and answers the account state in German on the sign-in page", async () => {
    const credentials = (await call('GET', '/management/orgs/acme/apps/shop/credentials', { token: fixture.adminToken })).body.credentials;
    const appToken = await connectToken({ grant_type: 'client_credentials' }, basic(credentials.client_id, credentials.client_secret));
    expect(appToken.status, appToken.text).toBe(200);
    expect((await call('PUT', `${APP}/users/${fixture.userUuid}/deactivate`, { token: appToken.body.access_token })).status).toBe(200);
    const refused = await authorizeAsUser(new Browser(fixture.url), `${authorizeUrl()}&ui_locales=de`);
    expect(await refused.text()).toContain('Dieses Konto ist deaktiviert.');
  });

  it('refuses the user themself, another app user whatever their role, another organization, a guest and other methods, changing nothing', async () => {
    const bob = (await usergridToken()).body.access_token as string;
    await call('POST', `${APP}/users`, { json: { username: 'ann', password: 'anns-password-1' }, token: fixture.adminToken });
    // ann holds the application's admin role: permission to write anything, but `disabled` is an administrator's.
    expect((await call('POST', `${APP}/roles/admin/users/ann`, { token: fixture.adminToken })).status).toBe(200);
    const ann = (await call('POST', `${APP}/token`, { json: { grant_type: 'password', username: 'ann', password: 'anns-password-1' } })).body
      .access_token as string;
    await call('POST', '/management/orgs', { json: { ...ADMIN, organization: 'globex', username: 'gina', email: 'gina@example.com' } });
    const gina = (await call('POST', '/management/token', { json: { grant_type: 'password', username: 'gina', password: ADMIN.password } })).body
      .access_token as string;

    const { deps } = fixture.server;
    for (const verb of ['deactivate', 'activate']) {
      await expectRefusedUnchanged({ deps }, () => call('PUT', `${APP}/users/me/${verb}`, { token: bob }), 403, 'forbidden');
      await expectRefusedUnchanged({ deps }, () => call('PUT', `${APP}/users/${fixture.userUuid}/${verb}`, { token: bob }), 403, 'forbidden');
      await expectRefusedUnchanged({ deps }, () => call('PUT', `${APP}/users/${fixture.userUuid}/${verb}`, { token: ann }), 403, 'forbidden');
      await expectRefusedUnchanged({ deps }, () => call('PUT', `${APP}/users/${fixture.userUuid}/${verb}`, { token: gina }), 403, 'forbidden');
      await expectRefusedUnchanged({ deps }, () => call('PUT', `${APP}/users/${fixture.userUuid}/${verb}`), 401, 'unauthorized');
      await expectRefusedUnchanged({ deps }, () => call('PUT', `${APP}/users/nobody/${verb}`, { token: fixture.adminToken }), 404, 'entity_not_found');
    }
    await expectRefusedUnchanged(
      { deps },
      () => call('GET', `${APP}/users/${fixture.userUuid}/deactivate`, { token: fixture.adminToken }),
      405,
      'method_not_allowed',
    );
    expect(await works(bob)).toBe(200);
  });
});

describe('deactivating an admin user', () => {
  const CAROL = { username: 'carol', email: 'carol@example.com', password: 'carols-password-1' };
  const carolToken = () => call('POST', '/management/token', { json: { grant_type: 'password', username: CAROL.username, password: CAROL.password } });
  const adminCli = () =>
    connectToken({ grant_type: 'password', client_id: 'admin-cli', username: CAROL.username, password: CAROL.password, scope: 'api offline_access' }, '');

  beforeEach(async () => {
    expect((await call('POST', '/management/users', { json: CAROL })).status).toBe(200);
    expect((await call('PUT', `/management/orgs/acme/users/${CAROL.username}`, { token: fixture.adminToken })).status).toBe(200);
  });

  it("refuses the admin every token and ends the admin's tokens and sessions at once; activating lets them in again", async () => {
    const usergrid = (await carolToken()).body.access_token as string;
    const cli = (await adminCli()).body;
    const browser = new Browser(fixture.url);
    const cliAuthorize = `/connect/authorize?${new URLSearchParams({ client_id: 'admin-cli', redirect_uri: 'http://127.0.0.1:9/cb', response_type: 'code', scope: 'openid', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' })}`;
    expect((await authorizeAsUser(browser, cliAuthorize, { ...USER, ...CAROL })).status).toBe(303);

    const res = await call('PUT', `/management/users/${CAROL.username}/deactivate`, { token: fixture.adminToken });
    expect(res.status, res.text).toBe(200);
    expect(res.body.entities[0]).toMatchObject({ username: CAROL.username, disabled: true, activated: true });

    for (const token of [usergrid, cli.access_token]) expectRefusal(await call('GET', '/management/orgs/acme', { token }), 401, 'unauthorized');
    expectOAuthError(await connectToken({ grant_type: 'refresh_token', client_id: 'admin-cli', refresh_token: cli.refresh_token }, ''), 400, 'invalid_grant');
    expectDisabledGrant(await carolToken());
    expectDisabledGrant(await adminCli());
    const page = await browser.get(cliAuthorize);
    expect(page.status, 'the session ended: the sign-in page again').toBe(200);
    expect(await (await authorizeAsUser(browser, cliAuthorize, { ...USER, ...CAROL })).text()).toContain('This account is disabled.');

    expect((await call('PUT', `/management/users/${CAROL.username}/activate`, { token: fixture.adminToken })).body.entities[0]).toMatchObject({
      disabled: false,
    });
    expect((await call('GET', '/management/orgs/acme', { token: usergrid })).status).toBe(401);
    expect((await call('GET', '/management/orgs/acme', { token: (await carolToken()).body.access_token })).status).toBe(200);
  });

  it('is for a sysadmin or an administrator of every organization of the user, never the user themself', async () => {
    const { deps } = fixture.server;
    const carol = (await carolToken()).body.access_token as string;
    await call('POST', '/management/orgs', { json: { ...ADMIN, organization: 'globex', username: 'gina', email: 'gina@example.com' } });
    const gina = (await call('POST', '/management/token', { json: { grant_type: 'password', username: 'gina', password: ADMIN.password } })).body
      .access_token as string;
    await ensureSuperuser(deps, 'root', 'root-password-1');
    const root = (await call('POST', '/management/token', { json: { grant_type: 'password', username: 'root', password: 'root-password-1' } })).body
      .access_token as string;

    for (const verb of ['deactivate', 'activate']) {
      await expectRefusedUnchanged({ deps }, () => call('PUT', `/management/users/${CAROL.username}/${verb}`, { token: carol }), 403, 'forbidden');
      await expectRefusedUnchanged({ deps }, () => call('PUT', `/management/users/${CAROL.username}/${verb}`, { token: gina }), 403, 'forbidden');
      await expectRefusedUnchanged({ deps }, () => call('PUT', `/management/users/${CAROL.username}/${verb}`), 401, 'unauthorized');
      await expectRefusedUnchanged({ deps }, () => call('PUT', `/management/users/root/${verb}`, { token: fixture.adminToken }), 403, 'forbidden');
      await expectRefusedUnchanged({ deps }, () => call('PUT', `/management/users/root/${verb}`, { token: root }), 403, 'forbidden');
      await expectRefusedUnchanged({ deps }, () => call('PUT', `/management/users/nobody/${verb}`, { token: root }), 404, 'user_not_found');
    }
    // carol in globex too: alice administers only one of her organizations, so cannot lock her out of the other.
    expect((await call('PUT', `/management/orgs/globex/users/${CAROL.username}`, { token: gina })).status).toBe(200);
    await expectRefusedUnchanged(
      { deps },
      () => call('PUT', `/management/users/${CAROL.username}/deactivate`, { token: fixture.adminToken }),
      403,
      'forbidden',
    );
    expect((await call('PUT', `/management/users/${CAROL.username}/deactivate`, { token: root })).status).toBe(200);
    expectDisabledGrant(await carolToken());
  });
});
