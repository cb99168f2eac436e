/**
 * The passkey part of the sign-in and second-factor pages (docs/api.md#passkeys): a form that
 * posts the browser's assertion to /connect/authorize/passkey, with the options of
 * `navigator.credentials.get` in a data attribute. Its button stays hidden until the page's
 * script (assets/passkey.js, with @simplewebauthn/browser served from this server) finds that
 * the browser can use passkeys: without JavaScript the rest of the page works as before. Both
 * scripts load under the page's CSP nonce; nothing runs inline.
 */
import { html } from 'hono/html';
import { hiddenFields, WEBAUTHN_BROWSER_PATH, type Html, type PageContext } from './layout.js';

/** The page's own script (assets/passkey.js). */
export const PASSKEY_SCRIPT_PATH = '/connect/assets/passkey.js';

export interface PasskeyForm {
  /** The sealed authorize request, carrying the options' challenge. */
  interaction: string;
  /** The options for `navigator.credentials.get`, as JSON. */
  options: unknown;
  /** Page-text key of the button. */
  label: string;
  /** Offer the passkeys in the username field's autofill too (WebAuthn conditional mediation). */
  autofill: boolean;
  scriptNonce: string;
}

export function renderPasskeyForm(context: PageContext, form: PasskeyForm): Html {
  const { t } = context;
  return html`<form method="post" action="/connect/authorize/passkey" id="passkey" data-options="${JSON.stringify(form.options)}"${form.autofill ? html` data-autofill="true"` : ''}>
${hiddenFields(context, { interaction: form.interaction, credential: '' })}
<button type="button" class="secondary wide" hidden>${t(form.label)}</button>
<p class="muted" id="passkey-status" role="status" data-cancelled="${t('passkey.cancelled')}" data-unsupported="${t('passkey.unsupported')}"></p>
</form>
<script src="${WEBAUTHN_BROWSER_PATH}" nonce="${form.scriptNonce}" defer></script>
<script src="${PASSKEY_SCRIPT_PATH}" nonce="${form.scriptNonce}" defer></script>`;
}
