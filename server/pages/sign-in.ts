/**
 * The sign-in page: username or email and password; `login_hint` pre-fills the first field. A
 * passkey signs in without a password (passkey.ts): its button, or the username field's autofill
 * (`autocomplete="username webauthn"`).
 */
import { html } from 'hono/html';
import { hiddenFields, layout, type Html, type PageContext } from './layout.js';
import { renderPasskeyForm, type PasskeyForm } from './passkey.js';

export interface SignInPage {
  clientName: string;
  tenant?: string;
  loginHint?: string;
  /** A page-text key shown as an alert (a failed attempt). */
  alert?: { key: string; values?: Record<string, string> };
  /** The signed authorize request the form carries through. */
  interaction: string;
  /** External providers this client may use, with the address that starts each. */
  providers: { name: string; href: string }[];
  /** The "forgot password" form of the users who sign in here (admin users or the app's users). */
  forgotPasswordHref: string;
  passkey: PasskeyForm;
}

export function renderSignIn(context: PageContext, page: SignInPage): Html {
  const { t } = context;
  const body = html`<h1>${t('sign_in.title')}</h1>
<p class="subtitle">${t('sign_in.to_continue', { client: page.clientName })}</p>
${page.tenant ? html`<p class="tenant" data-tenant="${page.tenant}">${t('sign_in.tenant', { tenant: page.tenant })}</p>` : ''}
${page.alert ? html`<p class="alert" role="alert">${t(page.alert.key, page.alert.values)}</p>` : ''}
<form method="post" action="/connect/authorize/login">
${hiddenFields(context, { interaction: page.interaction })}
<label for="login">${t('sign_in.login')}</label>
<input type="text" id="login" name="login" value="${page.loginHint ?? ''}" autocomplete="username webauthn" autocapitalize="none" spellcheck="false" required${page.loginHint ? '' : html` autofocus`}>
<label for="password">${t('sign_in.password')}</label>
<input type="password" id="password" name="password" autocomplete="current-password" required${page.loginHint ? html` autofocus` : ''}>
<button type="submit" class="wide">${t('sign_in.submit')}</button>
</form>
${renderPasskeyForm(context, page.passkey)}
<p class="muted"><a href="${page.forgotPasswordHref}">${t('sign_in.forgot_password')}</a></p>
${
  page.providers.length > 0
    ? html`<p class="divider">${t('sign_in.or')}</p>
<div class="providers">${page.providers.map((provider) => html`<a class="button secondary" href="${provider.href}">${t('sign_in.with_provider', { provider: provider.name })}</a>`)}</div>`
    : ''
}`;
  return layout(context, t('sign_in.title'), body);
}
