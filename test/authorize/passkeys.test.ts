/**
 * Passkeys at sign-in (docs/api.md#passkeys), driven through the pages' forms with a software
 * authenticator (soft-authenticator.ts) in place of the browser's: a passkey alone signs its owner
 * in (`amr` hwk, `acr` phr) and is found by its credential id; a passkey is a second factor after
 * the password; `acr_values=urn:idp:acr:phr` asks a weaker session for the passkey alone. Each
 * challenge works once and expires; refused assertions feed the sign-in throttle and are events;
 * the pages load their scripts under the CSP nonce, none inline.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { schemaOf } from '../../src/db/open.js';
import { first } from '../../src/db/run.js';
import { decodeJwt } from 'jose';
import { TOTP } from 'otpauth';
import {
  api,
  Browser,
  decodeEntities,
  exchangeCode,
  formOf,
  redirectOf,
  REDIRECT,
  startSignInFixture,
  type Fixture,
  type RegisteredClient,
} from './support.js';
import { SoftAuthenticator } from './soft-authenticator.js';
import type { Clock } from '../helpers.js';

let fixture: Fixture;
let client: RegisteredClient;
const clock: Clock = { now: Math.floor(Date.now() / 30_000) * 30_000 + 15_000 };

beforeAll(async () => {
  ({ fixture, client } = await startSignInFixture(clock, 'openid profile'));
});
afterAll(() => fixture.server.close());

interface Person {
  username: string;
  password: string;
  uuid: string;
  authenticator: SoftAuthenticator;
  factorId: string;
}

let serial = 0;
/** A new app user of shop with a passkey enrolled over the API by the application's administrator. */
async function personWithPasskey(): Promise<Person> {
  serial += 1;
  const username = `erin${serial}`;
  const password = `erins-password-${serial}`;
  const created = await api(fixture, 'POST', '/acme/shop/users', { username, email: `${username}@example.com`, password });
  const authenticator = new SoftAuthenticator(fixture.url);
  const enrolled = await api(fixture, 'POST', `/acme/shop/users/${username}/factors`, { type: 'webauthn' });
  const { id, options } = enrolled.entities[0] as { id: string; options: Record<string, unknown> };
  await api(fixture, 'POST', `/acme/shop/users/${username}/factors/${id}/verify`, authenticator.create(options));
  return { username, password, uuid: String(created.entities[0]!.uuid), authenticator, factorId: id };
}

function authorizeUrl(extra: Record<string, string> = {}): string {
  return `/connect/authorize?${new URLSearchParams({ client_id: client.client_id, redirect_uri: REDIRECT, response_type: 'code', scope: 'openid profile', state: 'st', ...extra })}`;
}

/** The options the page's passkey form hands to navigator.credentials.get. */
function passkeyOptionsOf(html: string): Record<string, unknown> {
  const match = /<form method="post" action="\/connect\/authorize\/passkey" id="passkey" data-options="([^"]*)"/.exec(html);
  if (!match) throw new Error(`no passkey form in page: ${html.slice(0, 400)}`);
  return JSON.parse(decodeEntities(match[1]!)) as Record<string, unknown>;
}

/** Answers the page's passkey form with `person`'s authenticator (or a given response). */
function usePasskey(browser: Browser, html: string, person: Person, how: Parameters<SoftAuthenticator['get']>[1] = {}): Promise<Response> {
  const response = person.authenticator.get(passkeyOptionsOf(html), how);
  return browser.submit(html, { credential: JSON.stringify(response) }, '/connect/authorize/passkey');
}

async function exchange(response: Response) {
  const code = redirectOf(response).query.get('code');
  expect(code, 'the redirect carries a code').toEqual(expect.any(String));
  return decodeJwt((await exchangeCode(fixture, client, code!)).id_token);
}

async function eventsOf(person: Person): Promise<string[]> {
  const listed = await api(fixture, 'GET', `/acme/shop/events?limit=100&ql=${encodeURIComponent(`select * where user = '${person.uuid}'`)}`);
  return listed.entities.map((event) => String(event.action)).sort();
}

async function storedFactor(person: Person) {
  const { db } = fixture.server.deps;
  const { userFactors } = schemaOf(db);
  return await first(db.select().from(userFactors).where(eq(userFactors.id, person.factorId)));
}

const PHR = { amr: ['hwk'], acr: 'urn:idp:acr:phr' };

describe('signing in with a passkey alone', () => {
  it('offers the passkey on the sign-in page, with scripts under the CSP nonce and conditional UI on the username field', async () => {
    const page = await new Browser(fixture.url).get(authorizeUrl());
    const html = await page.text();
    expect(html).toMatch(/<input type="text" id="login" name="login" value="" autocomplete="username webauthn"/);
    const options = passkeyOptionsOf(html);
    // Discoverable credentials: no list of allowed ones, and the user must be verified.
    expect(options).toMatchObject({ rpId: '127.0.0.1', userVerification: 'required', challenge: expect.any(String) });
    expect(options.allowCredentials ?? []).toEqual([]);
    const csp = page.headers.get('content-security-policy')!;
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeTruthy();
    expect(csp).not.toContain('unsafe-inline');
    expect(html).toContain(`<script src="/connect/assets/simplewebauthn-browser.js" nonce="${nonce}" defer></script>`);
    expect(html).toContain(`<script src="/connect/assets/passkey.js" nonce="${nonce}" defer></script>`);
    expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
    for (const path of ['/connect/assets/simplewebauthn-browser.js', '/connect/assets/passkey.js']) {
      const script = await fetch(`${fixture.url}${path}`);
      expect(script.status).toBe(200);
      expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    }
    expect(await (await fetch(`${fixture.url}/connect/assets/simplewebauthn-browser.js`)).text()).toContain('SimpleWebAuthnBrowser');
  });

  it('signs the owner of the passkey in: amr hwk, acr phr; the counter and the time of use are stored; an event says so', async () => {
    const person = await personWithPasskey();
    const browser = new Browser(fixture.url);
    const html = await (await browser.get(authorizeUrl())).text();
    const answer = await usePasskey(browser, html, person);
    expect(answer.headers.getSetCookie().some((cookie) => cookie.startsWith('idp_session='))).toBe(true);
    expect(await exchange(answer)).toMatchObject({ sub: person.uuid, ...PHR });
    const factor = await storedFactor(person);
    expect(factor?.credential?.counter).toBe(1);
    expect(factor?.lastUsed).toBe(clock.now);
    expect(await eventsOf(person)).toEqual(['factor_activated', 'factor_enrolled', 'passkey_sign_in']);
    // An assertion whose counter did not go up comes from a copy of the key.
    const cloned = await usePasskey(browser, await (await browser.get(authorizeUrl({ prompt: 'login' }))).text(), person, { counter: 1 });
    expect(cloned.status).toBe(400);
    // The session is phishing-resistant: requests for mfa or phr are answered at once.
    expect(await exchange(await browser.get(authorizeUrl({ acr_values: 'urn:idp:acr:phr', prompt: 'none' })))).toMatchObject(PHR);
    expect(await exchange(await browser.get(authorizeUrl({ acr_values: 'urn:idp:acr:mfa', prompt: 'none' })))).toMatchObject(PHR);
  });

  it('refuses a replayed form, another origin and a user not verified; each failure counts and is an event', async () => {
    const person = await personWithPasskey();
    const browser = new Browser(fixture.url);
    const html = await (await browser.get(authorizeUrl())).text();
    // Counter 0, as synced passkeys sign: only the spent challenge tells a replay.
    const response = JSON.stringify(person.authenticator.get(passkeyOptionsOf(html), { counter: 0 }));
    redirectOf(await browser.submit(html, { credential: response }, '/connect/authorize/passkey'));

    const other = new Browser(fixture.url);
    const replayed = await other.submit(html, { credential: response }, '/connect/authorize/passkey');
    expect(replayed.status).toBe(403); // another browser's form
    const refusals = [
      () => browser.submit(html, { credential: response }, '/connect/authorize/passkey'), // the same challenge again
      async () => usePasskey(browser, await (await browser.get(authorizeUrl({ prompt: 'login' }))).text(), person, { origin: 'https://phish.example' }),
      async () => usePasskey(browser, await (await browser.get(authorizeUrl({ prompt: 'login' }))).text(), person, { userVerified: false }),
    ];
    for (const [index, refuse] of refusals.entries()) {
      const refused = await refuse();
      expect(refused.status, `refusal ${index}`).toBe(400);
      expect(refused.headers.getSetCookie().some((cookie) => cookie.startsWith('idp_session='))).toBe(false);
      const page = await refused.text();
      expect(page).toContain('The passkey was not accepted. Try again, or sign in with your password.');
      // Shown again with a fresh challenge.
      expect(passkeyOptionsOf(page).challenge).not.toBe(passkeyOptionsOf(html).challenge);
    }
    expect((await eventsOf(person)).filter((event) => event === 'passkey_failed')).toHaveLength(3);
    // Three failures of the account's five free ones: after three more the account waits, on the password form too.
    for (let failure = 4; failure <= 6; failure++) {
      const refused = await usePasskey(browser, await (await browser.get(authorizeUrl({ prompt: 'login' }))).text(), person, { userVerified: false });
      expect(refused.status).toBe(400);
    }
    const throttled = await usePasskey(browser, await (await browser.get(authorizeUrl({ prompt: 'login' }))).text(), person);
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
    const fresh = new Browser(fixture.url);
    const byPassword = await fresh.submit(
      await (await fresh.get(authorizeUrl())).text(),
      { login: person.username, password: person.password },
      '/connect/authorize/login',
    );
    expect(byPassword.status).toBe(429);
    clock.now += 2000;
  });

  it("refuses a passkey of another application's user, an unknown one and one sent after five minutes", async () => {
    const person = await personWithPasskey();
    await api(fixture, 'POST', '/management/orgs/acme/apps', { name: 'other' });
    const otherClient = (
      await api(fixture, 'POST', '/management/orgs/acme/apps/other/clients', { client_name: 'Other', redirect_uris: [REDIRECT], require_consent: false })
    ).entities[0]!;
    const browser = new Browser(fixture.url);
    const elsewhere = `/connect/authorize?${new URLSearchParams({ client_id: String(otherClient.client_id), redirect_uri: REDIRECT, response_type: 'code', scope: 'openid', state: 'st' })}`;
    expect((await usePasskey(browser, await (await browser.get(elsewhere)).text(), person)).status).toBe(400);

    const stranger = new SoftAuthenticator(fixture.url);
    stranger.create({ rp: { id: '127.0.0.1' }, user: { id: 'x' }, challenge: 'x' });
    const html = await (await browser.get(authorizeUrl())).text();
    const unknown = await browser.submit(html, { credential: JSON.stringify(stranger.get(passkeyOptionsOf(html))) }, '/connect/authorize/passkey');
    expect(unknown.status).toBe(400);
    expect(await unknown.text()).toContain('The passkey was not accepted.');
    const garbage = await browser.submit(html, { credential: '{not json' }, '/connect/authorize/passkey');
    expect(garbage.status).toBe(400);

    const late = await (await browser.get(authorizeUrl())).text();
    clock.now += 5 * 60_000 + 1;
    const expired = await usePasskey(browser, late, person);
    expect(expired.status).toBe(400);
    expect(await expired.text()).toContain('The passkey request took too long. Try again.');
    // The fresh page it shows works.
    expect(await exchange(await usePasskey(browser, await (await browser.get(authorizeUrl())).text(), person))).toMatchObject({ sub: person.uuid, ...PHR });
  });

  it('refuses to register one passkey twice', async () => {
    const person = await personWithPasskey();
    const enrolled = await api(fixture, 'POST', `/acme/shop/users/${person.username}/factors`, { type: 'webauthn' });
    const { id, options } = enrolled.entities[0] as { id: string; options: Record<string, unknown> };
    const registered = (await storedFactor(person))!.credential!.id;
    const refused = await fetch(`${fixture.url}/acme/shop/users/${person.username}/factors/${id}/verify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fixture.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(person.authenticator.create(options, registered)),
    });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ error_description: 'this passkey is registered already' });
    expect((await api(fixture, 'GET', `/acme/shop/users/${person.username}/factors/${id}`)).entities[0]).toMatchObject({ status: 'pending' });
  });
});

describe('a passkey as the second factor, and step-up to phr', () => {
  it('offers the passkey after the password; the tokens say pwd, hwk, mfa and phr', async () => {
    const person = await personWithPasskey();
    const browser = new Browser(fixture.url);
    const page = await browser.get(authorizeUrl());
    const step = await browser.submit(await page.text(), { login: person.username, password: person.password }, '/connect/authorize/login');
    const html = await step.text();
    expect(html).toContain('Two-step verification');
    const options = passkeyOptionsOf(html);
    expect(options.allowCredentials).toEqual([expect.objectContaining({ id: (await storedFactor(person))!.credential!.id })]);
    // A user without an authenticator app is offered a recovery code beside the passkey.
    expect(html).toContain('Recovery code');
    const wrong = await usePasskey(browser, html, person, { origin: 'https://phish.example' });
    expect(wrong.status).toBe(400);
    const again = await wrong.text();
    expect(again).toContain('The passkey was not accepted. Try again.');
    expect(await exchange(await usePasskey(browser, again, person, { userVerified: false }))).toMatchObject({
      sub: person.uuid,
      amr: ['pwd', 'hwk', 'mfa'],
      acr: 'urn:idp:acr:phr',
    });
    expect(await eventsOf(person)).toEqual(['factor_activated', 'factor_enrolled', 'passkey_failed', 'second_factor_used']);
  });

  it('asks an mfa session of a user with a passkey for the passkey alone when the client asks for phr', async () => {
    const person = await personWithPasskey();
    const base = `/acme/shop/users/${person.username}/factors`;
    const { id, secret } = (await api(fixture, 'POST', base, { type: 'totp' })).entities[0] as { id: string; secret: string };
    const totp = new TOTP({ secret, algorithm: 'SHA1', digits: 6, period: 30 });
    await api(fixture, 'POST', `${base}/${id}/verify`, { code: totp.generate({ timestamp: clock.now }) });
    clock.now += 30_000;

    const browser = new Browser(fixture.url);
    const step = await browser.submit(
      await (await browser.get(authorizeUrl())).text(),
      { login: person.username, password: person.password },
      '/connect/authorize/login',
    );
    const signedIn = await exchange(await browser.submit(await step.text(), { otp: totp.generate({ timestamp: clock.now }) }, '/connect/authorize/otp'));
    expect(signedIn).toMatchObject({ amr: ['pwd', 'otp', 'mfa'], acr: 'urn:idp:acr:mfa' });

    expect(redirectOf(await browser.get(authorizeUrl({ acr_values: 'urn:idp:acr:phr', prompt: 'none' }))).query.get('error')).toBe('interaction_required');
    const stepUp = await browser.get(authorizeUrl({ acr_values: 'urn:idp:acr:phr', ui_locales: 'fr' }));
    expect(stepUp.status).toBe(200);
    const html = await stepUp.text();
    // The passkey alone: no code field.
    expect(html).not.toContain('name="otp"');
    expect(html).toContain('Cette application vous demande de confirmer votre identité avec une clé d&#39;accès.');
    expect(formOf(html, '/connect/authorize/passkey').fields.credential).toBe('');
    const stepped = await exchange(await usePasskey(browser, html, person));
    expect(stepped).toMatchObject({ sub: person.uuid, amr: ['pwd', 'otp', 'mfa', 'hwk'], acr: 'urn:idp:acr:phr' });
  });
});
