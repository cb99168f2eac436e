/**
 * OAuth 2.0 Form Post Response Mode: the response as an HTML form that submits itself to the
 * client. The script is one line under a CSP nonce; without JavaScript the <noscript> button does
 * the same.
 */
import { html } from 'hono/html';
import { layout, type Html, type PageContext } from './layout.js';

export function renderFormPost(context: PageContext, action: string, fields: Record<string, string>, scriptNonce: string): Html {
  const { t } = context;
  const body = html`<h1>${t('form_post.title')}</h1>
<form method="post" action="${action}">
${Object.entries(fields).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
<noscript>
<p>${t('form_post.noscript')}</p>
<button type="submit">${t('form_post.continue')}</button>
</noscript>
</form>`;
  return layout(context, t('form_post.title'), body, { nonce: scriptNonce, code: 'document.forms[0].submit();' });
}
