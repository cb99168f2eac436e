/**
 * The error page: what went wrong when the browser cannot be sent back to the client (RFC 6749
 * 4.1.2.1: an unknown client or a redirect URI that does not match is never redirected to).
 */
import { html } from 'hono/html';
import { layout, type Html, type PageContext } from './layout.js';

export type ErrorPageReason =
  | 'missing_client_id'
  | 'unknown_client'
  | 'missing_redirect_uri'
  | 'unregistered_redirect_uri'
  | 'invalid_request_object'
  | 'invalid_request_uri'
  | 'csrf'
  | 'federation_failed'
  | 'bad_logout_request';

export function renderError(context: PageContext, reason: ErrorPageReason, detail?: string): Html {
  const { t } = context;
  const body = html`<h1>${t('error.title')}</h1>
<p class="alert" role="alert" data-error="${reason}">${t(`error.${reason}`)}</p>
${detail ? html`<p class="muted">${t('error.detail', { detail })}</p>` : ''}`;
  return layout(context, t('error.title'), body);
}
