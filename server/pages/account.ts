/**
 * The account page (docs/account.md): a signed-in user's password, second factors, recovery
 * codes, signed-in browsers and the applications they allowed, each section a plain form that
 * works without JavaScript; only adding a passkey runs a script (WebAuthn has no form).
 */
import { html } from 'hono/html';
import { hiddenFields, layout, WEBAUTHN_BROWSER_PATH, type Html, type PageContext } from './layout.js';
import type { Text } from './lifecycle.js';

/** The account page's own script (assets/account-passkeys.js): adds a passkey. */
export const ACCOUNT_SCRIPT_PATH = '/connect/assets/account-passkeys.js';

export interface AccountFactor {
  id: string;
  name: string | null;
  created: number;
  lastUsed: number | null;
}

export interface AccountSession {
  key: string;
  userAgent: string | null;
  address: string | null;
  created: number;
  lastSeen: number;
  current: boolean;
}

export interface AccountConsent {
  clientId: string;
  clientName: string;
  scopes: readonly string[];
  modified: number;
}

export interface AccountPage {
  /** Where the page is: its forms post below it. */
  path: string;
  userName: string;
  /** The application whose user this is, or idp for admin users. */
  realmName: string;
  minPasswordLength: number;
  totp: readonly AccountFactor[];
  passkeys: readonly AccountFactor[];
  /** Whether the user has an active factor (recovery codes come with one). */
  hasSecondFactor: boolean;
  sessions: readonly AccountSession[];
  consents: readonly AccountConsent[];
  signOutHref: string;
  notice?: Text;
  alert?: Text;
  scriptNonce: string;
}

/** A time as the reader's locale writes it, in UTC (the server does not know the reader's zone). */
function when(context: PageContext, ms: number): Html {
  const text = new Intl.DateTimeFormat(context.locale, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }).format(ms);
  return html`<time datetime="${new Date(ms).toISOString()}">${text} UTC</time>`;
}

function messages(context: PageContext, page: { notice?: Text; alert?: Text }): Html {
  const { t } = context;
  return html`${page.notice ? html`<p class="notice" role="status">${t(page.notice.key, page.notice.values)}</p>` : ''}
${page.alert ? html`<p class="alert" role="alert">${t(page.alert.key, page.alert.values)}</p>` : ''}`;
}

/** One factor with its times and a remove button. */
function factorItem(context: PageContext, path: string, factor: AccountFactor, fallbackName: string): Html {
  const { t } = context;
  const name = factor.name ?? fallbackName;
  return html`<li class="item" data-factor="${factor.id}">
<div><strong>${name}</strong>
<span class="muted small">${t('account.added')} ${when(context, factor.created)} · ${t('account.last_used')} ${factor.lastUsed ? when(context, factor.lastUsed) : t('account.never')}</span></div>
<form method="post" action="${path}/factors/remove">
${hiddenFields(context, { factor: factor.id })}
<button type="submit" class="secondary" aria-label="${t('account.remove_named', { name })}">${t('account.remove')}</button>
</form>
</li>`;
}

function passwordSection(context: PageContext, page: AccountPage): Html {
  const { t } = context;
  return html`<section aria-labelledby="password-title">
<h2 id="password-title">${t('account.password.title')}</h2>
<form method="post" action="${page.path}/password">
${hiddenFields(context, {})}
<input type="text" name="username" value="${page.userName}" autocomplete="username" hidden>
<label for="current-password">${t('account.password.current')}</label>
<input type="password" id="current-password" name="current_password" autocomplete="current-password" required>
<label for="new-password">${t('account.password.new')}</label>
<input type="password" id="new-password" name="new_password" autocomplete="new-password" minlength="${page.minPasswordLength}" required>
<label for="new-password2">${t('account.password.repeat')}</label>
<input type="password" id="new-password2" name="new_password2" autocomplete="new-password" minlength="${page.minPasswordLength}" required>
<button type="submit">${t('account.password.submit')}</button>
</form>
</section>`;
}

function totpSection(context: PageContext, page: AccountPage): Html {
  const { t } = context;
  return html`<section aria-labelledby="totp-title">
<h2 id="totp-title">${t('account.totp.title')}</h2>
<p class="muted">${t('account.totp.intro')}</p>
${page.totp.length > 0 ? html`<ul class="items">${page.totp.map((factor) => factorItem(context, page.path, factor, t('account.totp.default_name')))}</ul>` : ''}
<form method="post" action="${page.path}/totp">
${hiddenFields(context, {})}
<label for="totp-name">${t('account.totp.name')}</label>
<input type="text" id="totp-name" name="name" maxlength="64" value="${t('account.totp.default_name')}">
<button type="submit" class="secondary">${t('account.totp.add')}</button>
</form>
</section>`;
}

/**
 * Adding a passkey (assets/account-passkeys.js posts `fields` along as JSON to `start`, then the
 * browser's answer to `verify`); the account page's and the sign-in's enrollment step (enrollment.ts)
 * share it. `saved` labels the way on after the recovery codes.
 */
export function addPasskeyForm(
  context: PageContext,
  form: { start: string; verify: string; saved: string; fields: Record<string, string>; scriptNonce: string },
): Html {
  const { t } = context;
  return html`<form id="add-passkey" data-start="${form.start}" data-verify="${form.verify}" data-failed="${t('account.passkeys.failed')}" data-save="${t('account.recovery.save')}" data-saved="${form.saved}">
${hiddenFields(context, form.fields)}
<label for="passkey-name">${t('account.passkeys.name')}</label>
<input type="text" id="passkey-name" name="name" maxlength="64" value="${t('account.passkeys.default_name')}">
<button type="submit" class="secondary" disabled>${t('account.passkeys.add')}</button>
<p id="passkey-status" class="small" role="status"></p>
</form>
<noscript><p class="muted">${t('account.passkeys.needs_script')}</p></noscript>
<script src="${WEBAUTHN_BROWSER_PATH}" nonce="${form.scriptNonce}" defer></script>
<script src="${ACCOUNT_SCRIPT_PATH}" nonce="${form.scriptNonce}" defer></script>`;
}

function passkeySection(context: PageContext, page: AccountPage): Html {
  const { t } = context;
  return html`<section aria-labelledby="passkeys-title">
<h2 id="passkeys-title">${t('account.passkeys.title')}</h2>
<p class="muted">${t('account.passkeys.intro')}</p>
${
  page.passkeys.length > 0
    ? html`<ul class="items">${page.passkeys.map((factor) => factorItem(context, page.path, factor, t('account.passkeys.default_name')))}</ul>`
    : html`<p>${t('account.passkeys.none')}</p>`
}
${addPasskeyForm(context, { start: `${page.path}/passkeys`, verify: `${page.path}/passkeys/verify`, saved: t('account.recovery.saved'), fields: {}, scriptNonce: page.scriptNonce })}
</section>`;
}

function recoverySection(context: PageContext, page: AccountPage): Html {
  const { t } = context;
  return html`<section aria-labelledby="recovery-title">
<h2 id="recovery-title">${t('account.recovery.title')}</h2>
${
  page.hasSecondFactor
    ? html`<p class="muted">${t('account.recovery.intro')}</p>
<form method="post" action="${page.path}/recovery-codes">
${hiddenFields(context, {})}
<button type="submit" class="secondary">${t('account.recovery.regenerate')}</button>
</form>`
    : html`<p class="muted">${t('account.recovery.none')}</p>`
}
</section>`;
}

function sessionsSection(context: PageContext, page: AccountPage): Html {
  const { t } = context;
  return html`<section aria-labelledby="sessions-title">
<h2 id="sessions-title">${t('account.sessions.title')}</h2>
<ul class="items">${page.sessions.map(
    (session) => html`<li class="item" data-session="${session.current ? 'current' : 'other'}">
<div><strong>${session.userAgent ?? t('account.sessions.unknown_device')}</strong>
<span class="muted small">${session.address ?? ''} · ${t('account.sessions.since')} ${when(context, session.created)} · ${t('account.sessions.last_seen')} ${when(context, session.lastSeen)}${session.current ? html` · <strong>${t('account.sessions.this_device')}</strong>` : ''}</span></div>
<form method="post" action="${page.path}/sessions/end">
${hiddenFields(context, { session: session.key })}
<button type="submit" class="secondary">${t('account.sessions.end')}</button>
</form>
</li>`,
  )}</ul>
</section>`;
}

function consentsSection(context: PageContext, page: AccountPage): Html {
  const { t } = context;
  return html`<section aria-labelledby="apps-title">
<h2 id="apps-title">${t('account.apps.title')}</h2>
${
  page.consents.length > 0
    ? html`<ul class="items">${page.consents.map(
        (consent) => html`<li class="item" data-client="${consent.clientId}">
<div><strong>${consent.clientName}</strong>
<span class="muted small">${consent.scopes.map((scope) => t(`scope.${scope}`)).join(' · ')} · ${t('account.apps.since')} ${when(context, consent.modified)}</span></div>
<form method="post" action="${page.path}/consents/revoke">
${hiddenFields(context, { client_id: consent.clientId })}
<button type="submit" class="secondary" aria-label="${t('account.apps.revoke_named', { client: consent.clientName })}">${t('account.apps.revoke')}</button>
</form>
</li>`,
      )}</ul>`
    : html`<p class="muted">${t('account.apps.none')}</p>`
}
</section>`;
}

export function renderAccount(context: PageContext, page: AccountPage): Html {
  const { t } = context;
  const body = html`<div class="account">
<h1>${t('account.title')}</h1>
<p class="subtitle">${t('account.signed_in_as', { user: page.userName, realm: page.realmName })} · <a href="${page.signOutHref}">${t('account.sign_out')}</a></p>
${messages(context, page)}
${passwordSection(context, page)}
${totpSection(context, page)}
${passkeySection(context, page)}
${recoverySection(context, page)}
${sessionsSection(context, page)}
${consentsSection(context, page)}
</div>`;
  return layout(context, t('account.title'), body);
}

/**
 * Setting up an authenticator app: its QR code and secret, and a form posting the code it then
 * shows to `action` with `fields`; the account page's and the sign-in's enrollment step
 * (enrollment.ts) share it.
 */
export function totpSetup(context: PageContext, setup: { action: string; fields: Record<string, string>; secret: string; qrSvg: string }): Html {
  const { t } = context;
  const qr = `data:image/svg+xml;base64,${Buffer.from(setup.qrSvg).toString('base64')}`;
  return html`<p>${t('account.totp.scan')}</p>
<img class="qr" src="${qr}" alt="${t('account.totp.qr_alt')}" width="200" height="200">
<p>${t('account.totp.or_type')}</p>
<p><code id="totp-secret">${setup.secret}</code></p>
<form method="post" action="${setup.action}">
${hiddenFields(context, setup.fields)}
<label for="otp">${t('account.totp.code')}</label>
<input type="text" id="otp" name="otp" autocomplete="one-time-code" inputmode="numeric" required autofocus>
<button type="submit" class="wide">${t('account.totp.confirm')}</button>
</form>`;
}

/** The second step of adding an authenticator app: its QR code and secret, and the code it then shows. */
export function renderTotpEnrollment(context: PageContext, page: { path: string; factorId: string; secret: string; qrSvg: string; alert?: Text }): Html {
  const { t } = context;
  const body = html`<div class="account">
<h1>${t('account.totp.setup_title')}</h1>
${messages(context, page)}
${totpSetup(context, { action: `${page.path}/totp/verify`, fields: { factor: page.factorId }, secret: page.secret, qrSvg: page.qrSvg })}
<p><a href="${page.path}">${t('account.back')}</a></p>
</div>`;
  return layout(context, t('account.totp.setup_title'), body);
}

/** Recovery codes, shown this once, with what to do with them. */
export function recoveryCodeList(context: PageContext, codes: readonly string[]): Html {
  return html`<p>${context.t('account.recovery.save')}</p>
<ul class="codes">${codes.map((code) => html`<li><code>${code}</code></li>`)}</ul>`;
}

/** New recovery codes, shown this once. */
export function renderRecoveryCodes(context: PageContext, page: { path: string; codes: readonly string[]; notice?: Text }): Html {
  const { t } = context;
  const body = html`<div class="account">
<h1>${t('account.recovery.codes_title')}</h1>
${messages(context, page)}
${recoveryCodeList(context, page.codes)}
<p><a class="button" href="${page.path}">${t('account.recovery.saved')}</a></p>
</div>`;
  return layout(context, t('account.recovery.codes_title'), body);
}
