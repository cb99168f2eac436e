import { afterEach, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ORG, adminToken, expectOAuthError, expectRefusedUnchanged, type TestApp } from '../helpers.js';
import { createLifecycleApp, mailsOf, pathOf, solvedCaptcha, solveCaptcha } from './support.js';

let t: TestApp;
let clock = Date.UTC(2026, 0, 1);
const now = () => clock;
afterEach(() => t?.close());

async function withAdmin(): Promise<void> {
  t = await createLifecycleApp({}, now);
  expect((await t.request('POST', '/management/orgs', { json: ORG })).status).toBe(200);
}

/** Everything of a response body that does not depend on time. */
function stable(body: Record<string, unknown>) {
  const { timestamp: _timestamp, duration: _duration, ...rest } = body;
  return rest;
}

async function requestReset(email: string, path = '/management/users/resetpw') {
  return t.request('POST', path, { json: { email, ...(await solvedCaptcha(t, path)) } });
}

describe('admin password reset', () => {
  it('offers the form as JSON with an ALTCHA challenge, and as a page for a browser', async () => {
    await withAdmin();
    const json = await t.request('GET', '/management/users/resetpw', { headers: { accept: 'application/json' } });
    expect(json.status).toBe(200);
    expect(json.body.entities[0]).toMatchObject({ action: 'resetpw', status: 'form', token: expect.stringContaining('"signature"') });
    expect(json.body.data.captcha).toMatchObject({ provider: 'altcha', challenge: { algorithm: 'SHA-256', maxnumber: 2000 } });
    const page = await t.request('GET', '/management/users/resetpw', { headers: { accept: 'text/html' } });
    expect(page.text).toMatch(/<form method="post" action="\/management\/users\/resetpw" id="resetpw" data-challenge="/);
    expect(page.text).toContain('name="csrf_token"');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'.*script-src 'nonce-/);
  });

  it('answers the same whether or not the address has an account, and mails only the account', async () => {
    await withAdmin();
    const known = await requestReset(ORG.email);
    const unknown = await requestReset('nobody@example.com');
    expect(known.status).toBe(200);
    expect(stable(unknown.body)).toEqual(stable(known.body));
    expect(known.body.entities).toEqual([{ action: 'resetpw', status: 'sent' }]);
    const mails = await mailsOf(t);
    expect(mails.map((m) => m.subject)).toEqual(['Reset your password']);
    expect(mails[0].raw).toMatch(/^To: alice@example\.com/m);
    expect(mails[0].links[0]).toMatch(/\/management\/users\/[0-9a-f-]{36}\/resetpw\?token=/);
  });

  it('sets the new password once through the mailed link, ends the refresh tokens, and tells the owner', async () => {
    await withAdmin();
    const tokens = await t.request('POST', '/connect/token', {
      form: { grant_type: 'password', client_id: 'admin-cli', username: ORG.username, password: ORG.password, scope: 'openid offline_access api' },
    });
    expect(tokens.body.refresh_token).toEqual(expect.any(String));
    await requestReset(ORG.email);
    const link = pathOf((await mailsOf(t))[0].links[0]);
    const token = new URL(link, 'http://x').searchParams.get('token')!;
    expect((await t.request('GET', link, { headers: { accept: 'application/json' } })).body.entities[0]).toEqual({ action: 'resetpw', status: 'valid' });

    const done = await t.request('POST', link.replace(/\?.*/, ''), { json: { token, newpassword: 'a-brand-new-secret' } });
    expect(done.status).toBe(200);
    expect(done.body.entities).toEqual([{ action: 'resetpw', status: 'password_changed' }]);
    await expect(adminToken(t, ORG.username, ORG.password)).rejects.toThrow();
    expect(await adminToken(t, ORG.username, 'a-brand-new-secret')).toEqual(expect.any(String));
    const refreshed = await expectRefusedUnchanged(
      t,
      () => t.request('POST', '/connect/token', { form: { grant_type: 'refresh_token', client_id: 'admin-cli', refresh_token: tokens.body.refresh_token } }),
      400,
      'invalid_grant',
    );
    expectOAuthError(refreshed, 400, 'invalid_grant');
    expect((await mailsOf(t)).at(-1)!.subject).toBe('Your password was changed');

    await expectRefusedUnchanged(
      t,
      () => t.request('POST', link.replace(/\?.*/, ''), { json: { token, newpassword: 'yet-another-secret' } }),
      400,
      'link_already_used',
    );
  });
});

describe('password reset: bad input changes nothing', () => {
  it('refuses a wrong, a missing and a replayed captcha solution', async () => {
    await withAdmin();
    const { captcha_challenge, captcha_response } = await solvedCaptcha(t);
    const forged = JSON.parse(Buffer.from(captcha_response, 'base64').toString()) as { number: number };
    const wrong = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(captcha_response, 'base64').toString()), number: forged.number + 1 })).toString(
      'base64',
    );
    const resetpw = (json: Record<string, string>) => () => t.request('POST', '/management/users/resetpw', { json });
    for (const response of [wrong, 'not-a-solution']) {
      const res = await expectRefusedUnchanged(t, resetpw({ email: ORG.email, captcha_challenge, captcha_response: response }), 400, 'captcha_failed');
      expect(res.body.fields).toEqual({ captcha_response: 'not solved' });
    }
    const missing = await expectRefusedUnchanged(t, resetpw({ email: ORG.email }), 400, 'illegal_argument');
    expect(missing.body.fields).toEqual({ captcha_response: expect.any(String) });
    const badEmail = await expectRefusedUnchanged(t, resetpw({ email: 'not-an-address', captcha_challenge, captcha_response }), 400, 'illegal_argument');
    expect(badEmail.body.fields).toEqual({ email: expect.any(String) });
    expect(await mailsOf(t)).toEqual([]);

    expect((await t.request('POST', '/management/users/resetpw', { json: { email: ORG.email, captcha_challenge, captcha_response } })).status).toBe(200);
    const replayed = await expectRefusedUnchanged(t, resetpw({ email: ORG.email, captcha_challenge, captcha_response }), 400, 'captcha_failed');
    expect(replayed.body.fields).toEqual({ captcha_response: 'already used' });
  });

  it('refuses an expired captcha challenge', async () => {
    await withAdmin();
    const solved = await solvedCaptcha(t);
    clock += 11 * 60 * 1000;
    await expectRefusedUnchanged(t, () => t.request('POST', '/management/users/resetpw', { json: { email: ORG.email, ...solved } }), 400, 'captcha_failed');
    expect(await mailsOf(t)).toEqual([]);
  });

  it('throttles a reset flood for one address with 429 and Retry-After', async () => {
    await withAdmin();
    for (let i = 0; i < 4; i++) expect((await requestReset(ORG.email)).status).toBe(200);
    const solved = await solvedCaptcha(t);
    const flooded = await expectRefusedUnchanged(
      t,
      () => t.request('POST', '/management/users/resetpw', { json: { email: ORG.email.toUpperCase(), ...solved } }),
      429,
      'too_many_requests',
    );
    expect(Number(flooded.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another address is not held up by this one's flood.
    expect((await t.request('POST', '/management/users/resetpw', { json: { email: 'other@example.com', ...solved } })).status).toBe(200);
  });

  it('refuses a forged, expired or misplaced reset link, a short password and a mismatched repeat', async () => {
    await withAdmin();
    await t.request('POST', '/management/users', { json: { username: 'carol', email: 'carol@example.com', password: 'carols-secret' } });
    await requestReset(ORG.email);
    const link = pathOf((await mailsOf(t))[0].links[0]);
    const path = link.replace(/\?.*/, '');
    const token = new URL(link, 'http://x').searchParams.get('token')!;
    const attempts: [string, Record<string, string>, string][] = [
      [path, { token: `x${token}`, newpassword: 'long-enough-1' }, 'invalid_link'],
      ['/management/users/carol/resetpw', { token, newpassword: 'long-enough-1' }, 'invalid_link'],
      [path, { token, newpassword: 'short' }, 'illegal_argument'],
      [path, { token, newpassword: 'long-enough-1', newpassword2: 'long-enough-2' }, 'illegal_argument'],
      [path, { newpassword: 'long-enough-1' }, 'illegal_argument'],
    ];
    for (const [target, body, error] of attempts) {
      await expectRefusedUnchanged(t, () => t.request('POST', target, { json: body }), 400, error);
    }
    const unforged = await expectRefusedUnchanged(t, () => t.request('POST', path, { form: { token, newpassword: 'long-enough-1' } }), 403, 'forbidden');
    expect(unforged.body.fields).toEqual({ csrf_token: 'not valid' });
    clock += t.deps.config.resetTtl * 1000 + 1;
    await expectRefusedUnchanged(t, () => t.request('GET', link), 400, 'link_expired');
    expect(await adminToken(t, ORG.username, ORG.password)).toEqual(expect.any(String));
  });
});

describe('password reset with a captcha provider', () => {
  let verifier: Server | undefined;
  afterEach(() => verifier?.close());

  it("checks the widget's response at the configured verify endpoint (played locally)", async () => {
    const seen: URLSearchParams[] = [];
    verifier = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        const form = new URLSearchParams(body);
        seen.push(form);
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ success: form.get('secret') === 'turnstile-secret' && form.get('response') === 'human-token' }));
      });
    });
    await new Promise<void>((resolve) => verifier!.listen(0, '127.0.0.1', resolve));
    const verifyUrl = `http://127.0.0.1:${(verifier.address() as AddressInfo).port}/siteverify`;
    t = await createLifecycleApp({ captcha: { provider: 'turnstile', secret: 'turnstile-secret', siteKey: 'site-key-1', verifyUrl } }, now);
    await t.request('POST', '/management/orgs', { json: ORG });

    const form = await t.request('GET', '/management/users/resetpw', { headers: { accept: 'application/json' } });
    expect(form.body.data.captcha).toEqual({ provider: 'turnstile', site_key: 'site-key-1', response_field: 'cf-turnstile-response' });
    const page = await t.request('GET', '/management/users/resetpw', { headers: { accept: 'text/html' } });
    expect(page.text).toContain('class="cf-turnstile" data-sitekey="site-key-1"');
    expect(page.headers.get('content-security-policy')).toContain('frame-src https://challenges.cloudflare.com');

    await expectRefusedUnchanged(
      t,
      () => t.request('POST', '/management/users/resetpw', { json: { email: ORG.email, captcha_challenge: 'turnstile', captcha_response: 'bot-token' } }),
      400,
      'captcha_failed',
    );
    const accepted = await t.request('POST', '/management/users/resetpw', { form: { email: ORG.email, 'cf-turnstile-response': 'human-token' } });
    expect(accepted.body.entities).toEqual([{ action: 'resetpw', status: 'sent' }]);
    expect(seen.map((form) => form.get('response'))).toEqual(['bot-token', 'human-token']);
    expect((await mailsOf(t)).map((m) => m.subject)).toEqual(['Reset your password']);

    verifier.close();
    verifier = undefined;
    await expectRefusedUnchanged(
      t,
      () => t.request('POST', '/management/users/resetpw', { json: { email: ORG.email, captcha_response: 'human-token' } }),
      502,
      'captcha_unavailable',
    );
  });
});

describe('app users', () => {
  async function withAppUser(): Promise<{ token: string }> {
    await withAdmin();
    const token = await adminToken(t, ORG.username, ORG.password);
    expect((await t.request('POST', '/management/orgs/acme/apps', { json: { name: 'shop' }, token })).status).toBe(200);
    const user = await t.request('POST', '/acme/shop/users', { json: { username: 'bob', email: 'bob@example.com', password: 'bobs-password-1' }, token });
    expect(user.status).toBe(200);
    return { token };
  }

  it('reset their passwords through /{org}/{app}/users/resetpw', async () => {
    await withAppUser();
    const sent = await requestReset('bob@example.com', '/acme/shop/users/resetpw');
    expect(sent.body.entities).toEqual([{ action: 'resetpw', status: 'sent' }]);
    const link = pathOf((await mailsOf(t))[0].links[0]);
    expect(link).toMatch(/^\/[0-9a-f-]{36}\/[0-9a-f-]{36}\/users\/[0-9a-f-]{36}\/resetpw\?token=/);
    const token = new URL(link, 'http://x').searchParams.get('token')!;
    expect((await t.request('POST', link.replace(/\?.*/, ''), { json: { token, newpassword: 'bobs-new-password' } })).status).toBe(200);
    const signIn = (password: string) => t.request('POST', '/acme/shop/token', { json: { grant_type: 'password', username: 'bob', password } });
    // A wrong password is counted against the account's guessing budget, and nothing else.
    expectOAuthError(
      await expectRefusedUnchanged(t, () => signIn('bobs-password-1'), 400, 'invalid_grant', { except: ['login_throttle'] }),
      400,
      'invalid_grant',
    );
    expect((await signIn('bobs-new-password')).status).toBe(200);
    // An admin's address is not an app user's: the admin realm mails nothing for bob.
    await requestReset('bob@example.com');
    expect(await mailsOf(t)).toHaveLength(2);
  });

  it("follow their application's password policy on the reset form, which asks for its minimum", async () => {
    const { token: admin } = await withAppUser();
    const policy = { minLength: 14, require: ['digit'] };
    expect((await t.request('PUT', '/management/orgs/acme/apps/shop', { json: { passwordPolicy: policy }, token: admin })).status).toBe(200);
    await requestReset('bob@example.com', '/acme/shop/users/resetpw');
    const link = pathOf((await mailsOf(t))[0].links[0]);
    const page = await t.request('GET', link, { headers: { accept: 'text/html' } });
    expect(page.text).toContain('id="newpassword" name="newpassword" autocomplete="new-password" minlength="14"');
    const token = new URL(link, 'http://x').searchParams.get('token')!;
    const path = link.replace(/\?.*/, '');
    for (const [newpassword, message] of [
      ['bobs-new-pass', 'newpassword must be at least 14 characters'],
      ['bobs-new-password', 'newpassword must contain a digit'],
    ]) {
      const refused = await expectRefusedUnchanged(t, () => t.request('POST', path, { json: { token, newpassword } }), 400, 'illegal_argument');
      expect(refused.body.fields).toEqual({ newpassword: message });
    }
    expect((await t.request('POST', path, { json: { token, newpassword: 'bobs-new-password-2' } })).status).toBe(200);
    // Admin users keep the server's policy: its form asks for 8.
    await requestReset(ORG.email);
    const adminPage = await t.request('GET', pathOf((await mailsOf(t)).at(-1)!.links[0]), { headers: { accept: 'text/html' } });
    expect(adminPage.text).toContain('minlength="8"');
  });

  it('activate and reactivate through /{org}/{app}/users/{user}/…', async () => {
    const { token } = await withAppUser();
    await t.request('PUT', '/acme/shop/users/bob', { json: { activated: false }, token });
    const inactive = await expectRefusedUnchanged(
      t,
      () => t.request('POST', '/acme/shop/token', { json: { grant_type: 'password', username: 'bob', password: 'bobs-password-1' } }),
      400,
      'invalid_grant',
    );
    expectOAuthError(inactive, 400, 'invalid_grant');
    expect(inactive.body.error_description).toMatch(/not activated/);
    const re = await t.request('GET', '/acme/shop/users/bob/reactivate');
    expect(re.body.entities).toEqual([{ action: 'reactivate', status: 'sent' }]);
    const [mail] = await mailsOf(t);
    expect(mail.subject).toBe('Activate your account bob');
    await expectRefusedUnchanged(t, () => t.request('GET', `${pathOf(mail.links[0])}&confirm_email=nope`), 400, 'illegal_argument');
    expect((await t.request('GET', pathOf(mail.links[0]))).body.entities).toEqual([{ action: 'activate', status: 'activated' }]);
    expect((await t.request('GET', '/acme/shop/users/bob', { token })).body.entities[0].activated).toBe(true);
    expect((await t.request('POST', '/acme/shop/token', { json: { grant_type: 'password', username: 'bob', password: 'bobs-password-1' } })).status).toBe(200);
  });
});

describe('the captcha solver', () => {
  it('solves what the server hands out, as the page script does', async () => {
    await withAdmin();
    const form = await t.request('GET', '/management/users/resetpw', { headers: { accept: 'application/json' } });
    expect(JSON.parse(Buffer.from(await solveCaptcha(form.body.entities[0].token), 'base64').toString())).toMatchObject({ number: expect.any(Number) });
  });
});
