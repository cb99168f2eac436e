/**
 * The one layout of every page: a card, the stylesheet from /connect/assets, and nothing that
 * needs JavaScript. Values interpolated with `html` are escaped.
 */
import { html } from 'hono/html';
import type { Locale, Translate } from './i18n.js';

export type Html = ReturnType<typeof html>;

/** What every page knows: the language, its texts, and the CSRF token for its forms. */
export interface PageContext {
  locale: Locale;
  t: Translate;
  csrf: string;
}

export const STYLESHEET_PATH = '/connect/assets/style.css';
/** @simplewebauthn/browser's bundle (global `SimpleWebAuthnBrowser`), served from the package: no CDN. */
export const WEBAUTHN_BROWSER_PATH = '/connect/assets/simplewebauthn-browser.js';
export const WEBAUTHN_BROWSER_FILE = 'node_modules/@simplewebauthn/browser/dist/bundle/index.umd.min.js';

export function layout(context: PageContext, title: string, body: Html, script?: { nonce: string; code: string }): Html {
  return html`<!doctype html>
<html lang="${context.locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title}</title>
<link rel="stylesheet" href="${STYLESHEET_PATH}">
</head>
<body>
<main>
${body}
</main>
${script ? html`<script nonce="${script.nonce}">${script.code}</script>` : ''}
</body>
</html>`;
}

/** Hidden inputs: the CSRF token and whatever the form carries through. */
export function hiddenFields(context: PageContext, fields: Record<string, string>): Html {
  const all = { csrf_token: context.csrf, ...fields };
  return html`${Object.entries(all).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}`;
}
