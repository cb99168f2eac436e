/**
 * The device verification pages (RFC 8628 3.3): the user code entry form at /device, pre-filled
 * from `verification_uri_complete` but always submitted by the user, and the page that ends the
 * flow, which sends the user back to their device. Sign-in, second factor and consent between
 * them are the authorize endpoint's pages.
 */
import { html } from 'hono/html';
import { hiddenFields, layout, type Html, type PageContext } from './layout.js';

export interface DeviceCodePage {
  userCode?: string;
  /** A page-text key shown as an alert (a wrong code, or too many). */
  alert?: string;
  uiLocales?: string;
}

export function renderDeviceCode(context: PageContext, page: DeviceCodePage): Html {
  const { t } = context;
  const body = html`<h1>${t('device.title')}</h1>
<p class="subtitle">${t('device.intro')}</p>
${page.alert ? html`<p class="alert" role="alert">${t(page.alert)}</p>` : ''}
<form method="post" action="/device">
${hiddenFields(context, page.uiLocales ? { ui_locales: page.uiLocales } : {})}
<label for="user_code">${t('device.code')}</label>
<input type="text" id="user_code" name="user_code" value="${page.userCode ?? ''}" autocomplete="off" autocapitalize="characters" spellcheck="false" maxlength="32" required autofocus>
<p class="muted">${t('device.warning')}</p>
<button type="submit" class="wide">${t('device.submit')}</button>
</form>`;
  return layout(context, t('device.title'), body);
}

export type DeviceOutcome = 'approved' | 'denied' | 'failed' | 'expired';

export function renderDeviceDone(context: PageContext, outcome: DeviceOutcome, detail?: string): Html {
  const { t } = context;
  const body = html`<h1>${t(`device.${outcome}_title`)}</h1>
<p data-outcome="${outcome}"${outcome === 'approved' ? '' : html` class="alert" role="alert"`}>${t(`device.${outcome}`)}</p>
${detail && outcome === 'failed' ? html`<p class="muted">${t('error.detail', { detail })}</p>` : ''}`;
  return layout(context, t(`device.${outcome}_title`), body);
}
