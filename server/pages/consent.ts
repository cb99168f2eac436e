/** The consent page: what the client asks for, in words; allow or deny. */
import { html } from 'hono/html';
import { hiddenFields, layout, type Html, type PageContext } from './layout.js';

export interface ConsentPage {
  clientName: string;
  userName: string;
  scopes: readonly string[];
  /** A device asks (RFC 8628 5.4): the user is told to allow only a device they are signing in themselves. */
  device?: boolean;
  interaction: string;
}

export function renderConsent(context: PageContext, page: ConsentPage): Html {
  const { t } = context;
  const body = html`<h1>${t('consent.title')}</h1>
<p class="subtitle">${t('consent.signed_in_as', { user: page.userName })}</p>
<p>${t('consent.intro', { client: page.clientName })}</p>
<ul class="scopes">${page.scopes.map((scope) => html`<li data-scope="${scope}">${t(`scope.${scope}`)}</li>`)}</ul>
${page.device ? html`<p class="alert" role="note">${t('device.consent_warning')}</p>` : ''}
<form method="post" action="/connect/authorize/consent">
${hiddenFields(context, { interaction: page.interaction })}
<div class="actions">
<button type="submit" name="decision" value="deny" class="secondary">${t('consent.deny')}</button>
<button type="submit" name="decision" value="allow">${t('consent.allow')}</button>
</div>
</form>`;
  return layout(context, t('consent.title'), body);
}
