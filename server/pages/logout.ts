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

/** The clients' front-channel logout pages to load, and where to go once they have loaded. */
export interface FrontChannelPage {
  frames: readonly { clientName: string; url: string }[];
  continueTo?: string;
  scriptNonce: string;
}

/**
 * Signed out, or still signed in. With clients to tell in the browser (OIDC Front-Channel Logout
 * 1.0 2): their logout pages in hidden iframes, then on to the client that asked, if one did. The
 * one-line script waits for the frames to load (the window's load event); without JavaScript the
 * link does the same.
 */
export function renderLoggedOut(context: PageContext, signedOut: boolean, front?: FrontChannelPage): Html {
  const { t } = context;
  const done = html`<h1>${t('logout.title')}</h1><p>${t(signedOut ? 'logout.done' : 'logout.kept')}</p>`;
  if (!front) return layout(context, t('logout.title'), done);
  const body = html`${done}
${front.frames.map((frame) => html`<iframe src="${frame.url}" title="${t('logout.frame', { client: frame.clientName })}" width="0" height="0" hidden></iframe>`)}
${front.continueTo ? html`<p><a href="${front.continueTo}">${t('form_post.continue')}</a></p>` : ''}`;
  // Without quotes: the layout escapes the script's text as HTML. The link is the page's only one.
  const code = front.continueTo ? 'onload=function(){location.replace(document.links[0].href)};' : '';
  return layout(context, t('logout.title'), body, code ? { nonce: front.scriptNonce, code } : undefined);
}
