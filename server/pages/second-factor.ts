/**
 * The second step of a sign-in (docs/api.md#second-factors): the code of the authenticator app,
 * or, after "use a recovery code", one of the recovery codes; both in the field `otp`, so that
 * browsers and password managers fill it (autocomplete `one-time-code`). Switching between the two
 * is a button of the form: it works without JavaScript. A user with a passkey may use it instead
 * (passkey.ts); a client asking for a phishing-resistant sign-in gets the passkey alone.
 */
import { html } from 'hono/html';
import { hiddenFields, layout, type Html, type PageContext } from './layout.js';
import { renderPasskeyForm, type PasskeyForm } from './passkey.js';

export type CodeKind = 'totp' | 'recovery';

export interface SecondFactorPage {
  clientName: string;
  userName: string;
  /** The code asked for; none when only a passkey will do. */
  kind?: CodeKind;
  /** The user has an authenticator app: the form switches between its code and a recovery code. */
  switchable: boolean;
  passkey?: PasskeyForm;
  /** A page-text key shown as an alert (a failed attempt). */
  alert?: string;
  /** The signed authorize request and waiting sign-in the form carries through. */
  interaction: string;
}

function codeField(context: PageContext, kind: CodeKind): Html {
  const { t } = context;
  if (kind === 'totp') {
    return html`<label for="otp">${t('second_factor.code')}</label>
<input type="text" id="otp" name="otp" autocomplete="one-time-code" inputmode="numeric" required autofocus>`;
  }
  return html`<label for="otp">${t('second_factor.recovery_code')}</label>
<input type="text" id="otp" name="otp" autocomplete="one-time-code" autocapitalize="none" spellcheck="false" required autofocus>`;
}

function codeForm(context: PageContext, page: SecondFactorPage, kind: CodeKind): Html {
  const { t } = context;
  const other: CodeKind = kind === 'totp' ? 'recovery' : 'totp';
  return html`<p>${t(kind === 'totp' ? 'second_factor.intro' : 'second_factor.intro_recovery')}</p>
<form method="post" action="/connect/authorize/otp">
${hiddenFields(context, { interaction: page.interaction })}
${codeField(context, kind)}
<button type="submit" class="wide">${t('second_factor.submit')}</button>
${
  page.switchable
    ? html`<button type="submit" name="use" value="${other}" class="secondary wide" formnovalidate>${t(other === 'recovery' ? 'second_factor.use_recovery' : 'second_factor.use_app')}</button>`
    : ''
}
</form>`;
}

export function renderSecondFactor(context: PageContext, page: SecondFactorPage): Html {
  const { t } = context;
  const body = html`<h1>${t('second_factor.title')}</h1>
<p class="subtitle">${t('second_factor.signed_in_as', { user: page.userName, client: page.clientName })}</p>
${page.alert ? html`<p class="alert" role="alert">${t(page.alert)}</p>` : ''}
${page.kind ? codeForm(context, page, page.kind) : html`<p>${t('second_factor.intro_passkey')}</p>`}
${page.passkey ? renderPasskeyForm(context, page.passkey) : ''}`;
  return layout(context, t('second_factor.title'), body);
}
