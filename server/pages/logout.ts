/** RP-initiated logout: the confirmation page, and the page shown when no client is returned to. */
import { html } from 'hono/html';
import { hiddenFields, layout, type Html, type PageContext } from './layout.js';

export interface LogoutPage {
  clientName?: string;
  /** The validated logout request, carried to the confirming POST. */
  fields: Record<string, string>;
}

export function renderLogout(context: PageContext, page: LogoutPage): Html {
  const { t } = context;
  const body = html`<h1>${t('logout.title')}</h1>
<p>${page.clientName ? t('logout.question_client', { client: page.clientName }) : t('logout.question')}</p>
<form method="post" action="/connect/endsession">
${hiddenFields(context, page.fields)}
<div class="actions">
<button type="submit" name="decision" value="stay" class="secondary">${t('logout.cancel')}</button>
<button type="submit" name="decision" value="logout">${t('logout.confirm')}</button>
</div>
</form>`;
  return layout(context, t('logout.title'), body);
}

export function renderLoggedOut(context: PageContext, signedOut: boolean): Html {
  const { t } = context;
  return layout(context, t('logout.title'), html`<h1>${t('logout.title')}</h1><p>${t(signedOut ? 'logout.done' : 'logout.kept')}</p>`);
}
