/**
 * The account-lifecycle pages (docs/api.md#account-lifecycle): the outcome of following an activation link, the
 * "forgot password" form with its captcha, and the form that sets the new password. Same layout,
 * texts and CSRF protection as the sign-in pages.
 */
import { html } from 'hono/html';
import { hiddenFields, layout, type Html, type PageContext } from './layout.js';
import type { CaptchaChallenge } from '../../src/lifecycle/captcha.js';

/** The proof-of-work solver (assets/altcha-solver.js), served beside the stylesheet. */
export const ALTCHA_SOLVER_PATH = '/connect/assets/altcha-solver.js';

type Provider = Exclude<CaptchaChallenge['provider'], 'altcha'>;

/** Each provider's widget: its script, the element it fills, the field it posts, where it loads from. */
export const CAPTCHA_WIDGETS: Record<Provider, { script: string; className: string; field: string; origins: string[] }> = {
  recaptcha: {
    script: 'https://www.google.com/recaptcha/api.js',
    className: 'g-recaptcha',
    field: 'g-recaptcha-response',
    origins: ['https://www.google.com', 'https://www.gstatic.com'],
  },
  hcaptcha: {
    script: 'https://js.hcaptcha.com/1/api.js',
    className: 'h-captcha',
    field: 'h-captcha-response',
    origins: ['https://hcaptcha.com', 'https://*.hcaptcha.com'],
  },
  turnstile: {
    script: 'https://challenges.cloudflare.com/turnstile/v0/api.js',
    className: 'cf-turnstile',
    field: 'cf-turnstile-response',
    origins: ['https://challenges.cloudflare.com'],
  },
};

/** A page-text key and its values. */
export interface Text {
  key: string;
  values?: Record<string, string>;
}

/** A short page: what happened (or what went wrong), and where to go next. */
export function renderNotice(context: PageContext, page: { title: Text; message: Text; alert?: boolean; next?: { href: string; text: Text } }): Html {
  const { t } = context;
  const body = html`<h1>${t(page.title.key, page.title.values)}</h1>
<p${page.alert ? html` class="alert" role="alert"` : ''}>${t(page.message.key, page.message.values)}</p>
${page.next ? html`<p><a href="${page.next.href}">${t(page.next.text.key, page.next.text.values)}</a></p>` : ''}`;
  return layout(context, t(page.title.key, page.title.values), body);
}

/**
 * "Forgot password": the address and the captcha. ALTCHA's proof of work is found by a small
 * script (the page says so when scripts are off); a provider's widget fills its own field.
 */
export function renderResetRequest(
  context: PageContext,
  page: { action: string; captcha: CaptchaChallenge; email?: string; alert?: Text; scriptNonce: string },
): { page: Html; widgetOrigins: string[] } {
  const { t } = context;
  const captcha = page.captcha;
  const widget = captcha.provider === 'altcha' ? undefined : CAPTCHA_WIDGETS[captcha.provider];
  const siteKey = captcha.provider === 'altcha' ? '' : (captcha.siteKey ?? '');
  const body = html`<h1>${t('resetpw.title')}</h1>
<p class="subtitle">${t('resetpw.intro')}</p>
${page.alert ? html`<p class="alert" role="alert">${t(page.alert.key, page.alert.values)}</p>` : ''}
<form method="post" action="${page.action}" id="resetpw"${captcha.provider === 'altcha' ? html` data-challenge="${captcha.challenge}"` : ''}>
${hiddenFields(context, captcha.provider === 'altcha' ? { captcha_challenge: captcha.challenge, captcha_response: '' } : { captcha_challenge: captcha.provider })}
<label for="email">${t('resetpw.email')}</label>
<input type="email" id="email" name="email" value="${page.email ?? ''}" autocomplete="email" required autofocus>
${
  widget
    ? html`<div class="${widget.className}" data-sitekey="${siteKey}"></div>
<script src="${widget.script}" nonce="${page.scriptNonce}" async defer></script>`
    : html`<p class="muted" id="captcha-status" data-failed="${t('resetpw.captcha_failed')}">${t('resetpw.captcha_working')}</p>
<noscript><p class="alert">${t('resetpw.captcha_needs_script')}</p></noscript>
<script src="${ALTCHA_SOLVER_PATH}" nonce="${page.scriptNonce}" defer></script>`
}
<button type="submit" class="wide">${t('resetpw.submit')}</button>
</form>`;
  return { page: layout(context, t('resetpw.title'), body), widgetOrigins: widget?.origins ?? [] };
}

/**
 * The mailed link's form: the new password twice; the link's token travels in a hidden field.
 * `minLength` is the account's password policy's, so the browser refuses what the server would.
 */
export function renderNewPassword(context: PageContext, page: { action: string; token: string; account: string; minLength: number; alert?: Text }): Html {
  const { t } = context;
  const body = html`<h1>${t('newpw.title')}</h1>
<p class="subtitle">${t('newpw.for', { account: page.account })}</p>
${page.alert ? html`<p class="alert" role="alert">${t(page.alert.key, page.alert.values)}</p>` : ''}
<form method="post" action="${page.action}">
${hiddenFields(context, { token: page.token })}
<label for="newpassword">${t('newpw.password')}</label>
<input type="password" id="newpassword" name="newpassword" autocomplete="new-password" minlength="${page.minLength}" required autofocus>
<label for="newpassword2">${t('newpw.repeat')}</label>
<input type="password" id="newpassword2" name="newpassword2" autocomplete="new-password" minlength="${page.minLength}" required>
<button type="submit" class="wide">${t('newpw.submit')}</button>
</form>`;
  return layout(context, t('newpw.title'), body);
}
