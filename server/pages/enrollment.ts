/**
 * The enrollment step of a sign-in held to a second factor (docs/account.md#second-factor-required):
 * after the password, the user sets up an authenticator app (its QR code and secret, then the
 * code it shows) or a passkey, sees their recovery codes once, and only then goes on to the
 * client. The app's setup is a plain form; the passkey needs the page's script.
 */
import { html } from 'hono/html';
import { hiddenFields, layout, type Html, type PageContext } from './layout.js';
import { addPasskeyForm, recoveryCodeList, totpSetup } from './account.js';

export interface EnrollmentPage {
  clientName: string;
  userName: string;
  secret: string;
  qrSvg: string;
  /** A page-text key shown as an alert (a wrong code). */
  alert?: string;
  /** The signed authorize request and waiting sign-in the forms carry through. */
  interaction: string;
  /** The nonce of the passkey's scripts. */
  scriptNonce: string;
}

/**
 * A passkey instead of the app: the account page's script (assets/account-passkeys.js) runs it,
 * posting the sealed sign-in along; its button stays disabled without JavaScript.
 */
function passkeyChoice(context: PageContext, page: EnrollmentPage): Html {
  const { t } = context;
  return html`<h2>${t('enroll.or_passkey')}</h2>
${addPasskeyForm(context, {
  start: '/connect/authorize/enroll/passkey',
  verify: '/connect/authorize/enroll/passkey/verify',
  saved: t('enroll.continue'),
  fields: { interaction: page.interaction },
  scriptNonce: page.scriptNonce,
})}`;
}

export function renderEnrollment(context: PageContext, page: EnrollmentPage): Html {
  const { t } = context;
  const body = html`<h1>${t('enroll.title')}</h1>
<p class="subtitle">${t('second_factor.signed_in_as', { user: page.userName, client: page.clientName })}</p>
<p>${t('enroll.intro')}</p>
${page.alert ? html`<p class="alert" role="alert">${t(page.alert)}</p>` : ''}
${totpSetup(context, { action: '/connect/authorize/enroll', fields: { interaction: page.interaction }, secret: page.secret, qrSvg: page.qrSvg })}
${passkeyChoice(context, page)}`;
  return layout(context, t('enroll.title'), body);
}

/** The recovery codes of the factor just enrolled, shown once; the form goes on to the client. */
export function renderEnrolled(context: PageContext, page: { codes: readonly string[]; interaction: string }): Html {
  const { t } = context;
  const body = html`<h1>${t('account.recovery.codes_title')}</h1>
<p class="notice" role="status">${t('enroll.done')}</p>
${recoveryCodeList(context, page.codes)}
<form method="post" action="/connect/authorize/enrolled">
${hiddenFields(context, { interaction: page.interaction })}
<button type="submit" class="wide">${t('enroll.continue')}</button>
</form>`;
  return layout(context, t('account.recovery.codes_title'), body);
}
