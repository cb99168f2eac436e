/**
 * Shared pieces of the authorize tests: a real server on a free port (openid-client and the
 * browser need a socket), an organization with an application, users and OAuth clients, and a
 * small cookie-keeping "browser" that fills in the pages' forms with fetch.
 */
import * as oidc from 'openid-client';
import type { RunningServer } from '../../server/serve.js';
import { startTestServer } from '../database.js';
import { insertEntity } from '../../src/db/entity-store.js';
import { setAppUserPassword } from '../../src/identity/sign-in/app-user-passwords.js';
import { basic } from '../oauth/fixtures.js';
import type { StoredClientMetadata } from '../../src/db/schema-oauth.js';

export const ADMIN = { organization: 'acme', username: 'alice', name: 'Alice Admin', email: 'alice@example.com', password: 'correct-horse' };
export const USER = { username: 'bob', email: 'bob@example.com', name: 'Bob Builder', password: 'bobs-password-1' };

/** `now` is the server's clock (a test clock's `() => clock.now`); the real one by default. */
export async function startIdp(options: { now?: () => number } = {}): Promise<RunningServer> {
  return startTestServer({ host: '127.0.0.1', port: '0' }, options);
}

export interface Fixture {
  server: RunningServer;
  url: string;
  adminToken: string;
  appUuid: string;
  /** The uuid of USER, the `sub` of their tokens. */
  userUuid: string;
}

/** A JSON answer of the API: the Usergrid envelope, or a token response. */
export interface Answer {
  entities: Record<string, unknown>[];
  count?: number;
  access_token?: string;
  [member: string]: unknown;
}

async function json(response: Response): Promise<Answer> {
  const text = await response.text();
  if (!response.ok) throw new Error(`${response.status} ${text}`);
  return JSON.parse(text) as Answer;
}

export async function api(fixture: Pick<Fixture, 'url' | 'adminToken'>, method: string, path: string, body?: unknown): Promise<Answer> {
  return json(
    await fetch(`${fixture.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${fixture.adminToken}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
}

/** An organization `acme` with application `shop` and its user bob. */
export async function createFixture(server: RunningServer): Promise<Fixture> {
  const url = server.url;
  await json(await fetch(`${url}/management/orgs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ADMIN) }));
  const token = await json(
    await fetch(`${url}/management/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'password', username: ADMIN.username, password: ADMIN.password }),
    }),
  );
  const fixture = { server, url, adminToken: String(token.access_token), appUuid: '', userUuid: '' };
  const app = await api(fixture, 'POST', '/management/orgs/acme/apps', { name: 'shop' });
  fixture.appUuid = String(app.entities[0]!.uuid);
  fixture.userUuid = await createAppUser(fixture, USER);
  return fixture;
}

/**
 * The pages' tests: a server on `clock` with acme/shop, and a confidential client of shop that
 * asks no consent, allowed `scope`.
 */
export async function startSignInFixture(clock: { now: number }, scope: string): Promise<{ fixture: Fixture; client: RegisteredClient }> {
  const fixture = await createFixture(await startIdp({ now: () => clock.now }));
  return { fixture, client: await createClient(fixture, { require_pkce: false, require_consent: false, scope }) };
}

export async function createAppUser(fixture: Fixture, user: typeof USER): Promise<string> {
  const { deps } = fixture.server;
  const row = await insertEntity(deps.db, {
    appUuid: fixture.appUuid,
    collection: 'users',
    type: 'user',
    name: user.username,
    properties: { username: user.username, email: user.email, name: user.name },
    now: deps.now(),
  });
  await setAppUserPassword(deps, fixture.appUuid, row.uuid, user.password);
  return row.uuid;
}

/** Client metadata a test registers: any of what the server stores, the keys as plain objects. */
export type ClientOptions = Partial<Omit<StoredClientMetadata, 'jwks'>> & { jwks?: { keys: object[] } };

export const REDIRECT = 'https://rp.example/callback';

/** A registered client as its POST answered: confidential clients have a secret. */
export interface RegisteredClient {
  client_id: string;
  client_secret?: string;
}

export async function createClient(fixture: Fixture, options: ClientOptions = {}): Promise<RegisteredClient> {
  const body = await api(fixture, 'POST', '/management/orgs/acme/apps/shop/clients', {
    client_name: 'Shop',
    redirect_uris: [REDIRECT],
    post_logout_redirect_uris: ['https://rp.example/bye'],
    grant_types: ['authorization_code', 'implicit', 'refresh_token'],
    response_types: ['code', 'id_token', 'token', 'id_token token', 'code id_token', 'code id_token token'],
    ...options,
  });
  const client = body.entities[0]!;
  return { client_id: String(client.client_id), client_secret: client.client_secret === undefined ? undefined : String(client.client_secret) };
}

/** A successful token response of the authorization_code grant (RFC 6749 5.1). */
export interface TokenAnswer {
  access_token: string;
  token_type: string;
  expires_in: number;
  scope: string;
  id_token: string;
  refresh_token?: string;
}

/**
 * Exchanges a code at /connect/token as `client` does: HTTP Basic for a confidential client, its
 * client_id in the form for a public one; throws unless the answer is 200.
 */
export async function exchangeCode(
  fixture: Pick<Fixture, 'url'>,
  client: RegisteredClient,
  code: string,
  options: { redirect_uri?: string; code_verifier?: string } = {},
): Promise<TokenAnswer> {
  const form = {
    grant_type: 'authorization_code',
    code,
    redirect_uri: options.redirect_uri ?? REDIRECT,
    ...(options.code_verifier !== undefined && { code_verifier: options.code_verifier }),
    ...(client.client_secret === undefined && { client_id: client.client_id }),
  };
  const response = await fetch(`${fixture.url}/connect/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(client.client_secret !== undefined && { authorization: basic(client.client_id, client.client_secret) }),
    },
    body: new URLSearchParams(form).toString(),
  });
  return (await json(response)) as unknown as TokenAnswer;
}

export function decodeEntities(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#39|#x27);/g, (_, name: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", '#x27': "'" })[name] ?? '');
}

/** The hidden and named inputs of the first form of a page (and the form's action). */
export function formOf(html: string, action?: string): { action: string; fields: Record<string, string> } {
  const forms = [...html.matchAll(/<form[^>]*action="([^"]*)"[^>]*>([\s\S]*?)<\/form>/g)];
  const form = action ? forms.find((match) => decodeEntities(match[1]!) === action) : forms[0];
  if (!form) throw new Error(`no form${action ? ` to ${action}` : ''} in page: ${html.slice(0, 400)}`);
  const fields: Record<string, string> = {};
  for (const input of form[2]!.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) fields[decodeEntities(input[1]!)] = decodeEntities(input[2]!);
  return { action: decodeEntities(form[1]!), fields };
}

/** fetch with a cookie jar per host and no automatic redirects: what a browser does, step by step. */
export class Browser {
  private readonly jars = new Map<string, Map<string, string>>();
  /** The address of the last page: relative form actions resolve against it, as in a browser. */
  private current: URL;
  constructor(base: string) {
    this.current = new URL(base);
  }

  private jar(url: URL): Map<string, string> {
    let jar = this.jars.get(url.hostname);
    if (!jar) this.jars.set(url.hostname, (jar = new Map()));
    return jar;
  }

  private remember(url: URL, response: Response): void {
    const jar = this.jar(url);
    for (const header of response.headers.getSetCookie()) {
      const [pair, ...attributes] = header.split(';');
      const [name, ...value] = pair!.split('=');
      const expired = attributes.some((attribute) => /max-age=0/i.test(attribute.trim()) || /expires=Thu, 01 Jan 1970/i.test(attribute.trim()));
      if (expired) jar.delete(name!.trim());
      else jar.set(name!.trim(), value.join('='));
    }
  }

  async request(path: string, init: RequestInit = {}): Promise<Response> {
    const url = new URL(path, this.current);
    this.current = url;
    const jar = this.jar(url);
    const headers = new Headers(init.headers);
    if (jar.size > 0) headers.set('cookie', [...jar].map(([name, value]) => `${name}=${value}`).join('; '));
    const response = await fetch(url, { ...init, headers, redirect: 'manual' });
    this.remember(url, response);
    return response;
  }

  get(path: string): Promise<Response> {
    return this.request(path);
  }

  post(path: string, fields: Record<string, string>): Promise<Response> {
    return this.request(path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });
  }

  /** Submits the page's form (hidden fields plus `values`). */
  async submit(html: string, values: Record<string, string>, action?: string): Promise<Response> {
    const form = formOf(html, action);
    return this.post(form.action, { ...form.fields, ...values });
  }
}

/**
 * The enrollment step's "Add a passkey" of `page`, posted as its script posts it: JSON to the
 * form's start and verify addresses, with the form's hidden fields (the CSRF token, the sealed
 * sign-in) unless `body` overrides them.
 */
export function passkeyEnrollmentOf(browser: Browser, page: string) {
  const form = /<form id="add-passkey" data-start="([^"]+)" data-verify="([^"]+)"[^>]*>([\s\S]*?)<\/form>/.exec(page);
  if (!form) throw new Error(`no passkey form in page: ${page.slice(0, 400)}`);
  const fields = Object.fromEntries([...form[3]!.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)].map((m) => [m[1]!, decodeEntities(m[2]!)]));
  const post = (path: string, body: Record<string, unknown>) =>
    browser.request(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...fields, ...body }) });
  return { start: (body: Record<string, unknown>) => post(form[1]!, body), verify: (body: Record<string, unknown>) => post(form[2]!, body) };
}

/** Where a redirect goes, with its query and fragment parameters. */
export function redirectOf(response: Response): { url: URL; query: URLSearchParams; fragment: URLSearchParams } {
  const location = response.headers.get('location');
  if (!location || response.status < 300 || response.status >= 400) throw new Error(`expected a redirect, got ${response.status}`);
  const url = new URL(location);
  return { url, query: url.searchParams, fragment: new URLSearchParams(url.hash.slice(1)) };
}

/**
 * Runs an authorize request through sign-in (and consent, when asked) like a user would; returns
 * the final response: the redirect to the client or the form_post page.
 */
export async function authorizeAsUser(browser: Browser, authorizeUrl: string, user = USER, consent: 'allow' | 'deny' = 'allow'): Promise<Response> {
  let response = await browser.get(authorizeUrl);
  for (let step = 0; step < 3 && response.status !== 303; step++) {
    const html = await response.text();
    if (html.includes('action="/connect/authorize/login"'))
      response = await browser.submit(html, { login: user.username, password: user.password }, '/connect/authorize/login');
    else if (html.includes('action="/connect/authorize/consent"')) response = await browser.submit(html, { decision: consent }, '/connect/authorize/consent');
    else return new Response(html, { status: response.status, headers: response.headers });
  }
  return response;
}

/** openid-client's view of `client`, from the discovery document: HTTP Basic for a confidential client. */
export async function discover(fixture: Pick<Fixture, 'url'>, client: RegisteredClient): Promise<oidc.Configuration> {
  const auth = client.client_secret === undefined ? oidc.None() : oidc.ClientSecretBasic(client.client_secret);
  return oidc.discovery(new URL(fixture.url), client.client_id, undefined, auth, { execute: [oidc.allowInsecureRequests] });
}

/**
 * The code flow with S256 PKCE and a nonce, openid-client as the relying party and the user
 * signing in on the pages; openid-client checks the answer. `DPoP` binds the tokens to its key.
 */
export async function signInWithOpenidClient(
  fixture: Pick<Fixture, 'url'>,
  config: oidc.Configuration,
  options: { scope: string; redirect_uri?: string; DPoP?: oidc.DPoPHandle },
) {
  const verifier = oidc.randomPKCECodeVerifier();
  const nonce = oidc.randomNonce();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: options.redirect_uri ?? REDIRECT,
    scope: options.scope,
    nonce,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  const response = await authorizeAsUser(new Browser(fixture.url), url.toString());
  return oidc.authorizationCodeGrant(config, new URL(response.headers.get('location')!), { pkceCodeVerifier: verifier, expectedNonce: nonce }, undefined, {
    ...(options.DPoP && { DPoP: options.DPoP }),
  });
}

/** A token of the application's own credentials (regenerated): an initial access token for /connect/register. */
export async function applicationCredentialsToken(fixture: Pick<Fixture, 'url' | 'adminToken'>): Promise<string> {
  const { credentials } = await api(fixture, 'POST', '/management/orgs/acme/apps/shop/credentials');
  const { client_id, client_secret } = credentials as { client_id: string; client_secret: string };
  const answer = await json(
    await fetch(`${fixture.url}/connect/token`, {
      method: 'POST',
      headers: { authorization: basic(client_id, client_secret), 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    }),
  );
  return String(answer.access_token);
}
