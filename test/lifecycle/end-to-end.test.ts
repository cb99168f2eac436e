/**
 * A real `idp` server on a free port with --smtp-url pointing at a real SMTP server on
 * 127.0.0.1: mail arrives and its links work, in a browser with cookies and forms.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../server/serve.js';
import { startTestServer } from '../database.js';
import { Browser, formOf } from '../authorize/support.js';
import { ORG } from '../helpers.js';
import { linksIn, startSmtpServer, subjectOf, type TestSmtpServer } from './mail-helpers.js';
import { QUICK_CAPTCHA, solveCaptcha } from './support.js';

let server: RunningServer | undefined;
let smtp: TestSmtpServer | undefined;
afterEach(async () => {
  await server?.close();
  await smtp?.close();
  server = smtp = undefined;
});

async function start(flags: { requireActivation?: boolean } = {}) {
  smtp = await startSmtpServer();
  server = await startTestServer({ host: '127.0.0.1', port: '0', smtpUrl: smtp.url, ...flags }, { config: { captcha: QUICK_CAPTCHA } });
  return { url: server.url, smtp };
}

/** Submits a page's form as a browser does: a navigation that accepts HTML. */
function submitPage(browser: Browser, html: string, values: Record<string, string>, action: string) {
  const form = formOf(html, action);
  return browser.request(form.action, {
    method: 'POST',
    headers: { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...form.fields, ...values }).toString(),
  });
}

const postJson = (url: string, body: unknown) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

/** The admin's password grant as a client sees it: the status and the error name, if any. */
async function signIn(url: string, password: string): Promise<[number, string | undefined]> {
  const res = await postJson(`${url}/management/token`, { grant_type: 'password', username: ORG.username, password });
  return [res.status, ((await res.json()) as { error?: string }).error];
}

describe('lifecycle over real SMTP', () => {
  it('mails activation links that work when followed', async () => {
    const { url, smtp } = await start({ requireActivation: true });
    expect((await postJson(`${url}/management/orgs`, ORG)).status).toBe(200);
    const mails = [await smtp.message(0), await smtp.message(1)];
    for (const mail of mails) {
      expect(mail.to).toEqual([ORG.email]);
      const [link] = linksIn(mail.raw);
      expect(link.startsWith(`${url}/management/`)).toBe(true);
      const res = await fetch(link);
      expect(res.status).toBe(200);
      expect(((await res.json()) as { entities: unknown[] }).entities).toEqual([{ action: 'activate', status: 'activated' }]);
    }
    const token = await postJson(`${url}/management/token`, { grant_type: 'password', username: ORG.username, password: ORG.password });
    expect(token.status).toBe(200);
  });

  it('resets a password in a browser: forgot-password link on the sign-in page, captcha, mailed link, CSRF-protected form, sessions ended', async () => {
    const { url, smtp } = await start();
    await postJson(`${url}/management/orgs`, ORG);
    const browser = new Browser(url);

    // Sign in through the authorize endpoint, so the browser holds a session.
    const authorize = `/connect/authorize?${new URLSearchParams({ client_id: 'admin-cli', redirect_uri: 'http://127.0.0.1:9/cb', response_type: 'code', scope: 'openid', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' })}`;
    const signInPage = await (await browser.get(authorize)).text();
    expect(signInPage).toContain('href="/management/users/resetpw?ui_locales="');
    expect((await browser.submit(signInPage, { login: ORG.username, password: ORG.password }, '/connect/authorize/login')).status).toBe(303);
    expect((await browser.get(authorize)).status).toBe(303);

    const formPage = await browser.request('/management/users/resetpw', { headers: { accept: 'text/html' } });
    expect(formPage.headers.get('x-frame-options')).toBe('DENY');
    const formHtml = await formPage.text();
    const { fields } = formOf(formHtml, '/management/users/resetpw');
    expect(formHtml).toContain('src="/connect/assets/altcha-solver.js"');
    expect((await browser.get('/connect/assets/altcha-solver.js')).headers.get('content-type')).toMatch(/javascript/);
    const sent = await submitPage(
      browser,
      formHtml,
      { email: ORG.email, captcha_response: await solveCaptcha(fields.captcha_challenge) },
      '/management/users/resetpw',
    );
    expect(sent.status).toBe(200);
    expect(await sent.text()).toContain('Check your mail');

    const mail = await smtp.message(0);
    expect(subjectOf(mail.raw)).toBe('Reset your password');
    const link = linksIn(mail.raw)[0];
    const page = await browser.request(link, { headers: { accept: 'text/html' } });
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    const pageHtml = await page.text();
    const action = new URL(link).pathname;

    const stranger = new Browser(url);
    const forged = await submitPage(stranger, pageHtml, { newpassword: 'stolen-password' }, action);
    expect(forged.status).toBe(403);
    expect(await forged.text()).toContain('did not come from this site');
    // The refused form left the password as it was.
    expect(await signIn(url, 'stolen-password')).toEqual([400, 'invalid_grant']);
    expect(await signIn(url, ORG.password)).toEqual([200, undefined]);

    const mismatch = await submitPage(browser, pageHtml, { newpassword: 'new-password-1', newpassword2: 'new-password-2' }, action);
    expect(mismatch.status).toBe(400);
    const mismatchHtml = await mismatch.text();
    expect(mismatchHtml).toContain('The two passwords are not the same.');
    expect(await signIn(url, 'new-password-1')).toEqual([400, 'invalid_grant']);
    expect(await signIn(url, ORG.password)).toEqual([200, undefined]);

    // The form asks for the policy's minimum, and a password the policy refuses brings the form
    // back with the rule it broke; the link stays unspent.
    expect(pageHtml).toContain('name="newpassword" autocomplete="new-password" minlength="8"');
    const common = await submitPage(browser, mismatchHtml, { newpassword: 'password123', newpassword2: 'password123' }, action);
    expect(common.status).toBe(400);
    const commonHtml = await common.text();
    expect(commonHtml).toContain('newpassword is too common');
    expect(await signIn(url, 'password123')).toEqual([400, 'invalid_grant']);
    expect(await signIn(url, ORG.password)).toEqual([200, undefined]);

    const done = await submitPage(browser, commonHtml, { newpassword: 'new-password-1', newpassword2: 'new-password-1' }, action);
    expect(done.status).toBe(200);
    expect(await done.text()).toContain('Password changed');
    // The browser's session ended: the authorize endpoint asks it to sign in again.
    expect((await browser.get(authorize)).status).toBe(200);
    expect(await signIn(url, 'new-password-1')).toEqual([200, undefined]);
    expect(subjectOf((await smtp.message(1)).raw)).toBe('Your password was changed');
  });
});
