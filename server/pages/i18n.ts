/**
 * Page texts in the user's language, chosen by `ui_locales` (OIDC Core 3.1.2.1: a space-separated
 * list of BCP 47 tags, most preferred first). Unknown languages fall back to English, and a key
 * missing from a translation falls back to the English text.
 */
import { LOCALES, type Locale } from '../../src/identity/authorize/locales.js';
import { readPageFile } from './files.js';

export type { Locale };

type Messages = Record<string, string>;
const loaded = new Map<Locale, Messages>();

function messagesOf(locale: Locale): Messages {
  let messages = loaded.get(locale);
  if (!messages) {
    messages = JSON.parse(readPageFile(`locales/${locale}.json`).toString('utf8')) as Messages;
    loaded.set(locale, messages);
  }
  return messages;
}

/** The first supported language of `ui_locales`, by its primary subtag (`de-CH` → `de`). */
export function pickLocale(uiLocales: string | undefined): Locale {
  for (const tag of (uiLocales ?? '').split(' ')) {
    const primary = tag.split('-')[0]?.toLowerCase();
    const match = LOCALES.find((locale) => locale === primary);
    if (match) return match;
  }
  return 'en';
}

export type Translate = (key: string, values?: Record<string, string>) => string;

export function translator(locale: Locale): Translate {
  const messages = messagesOf(locale);
  const english = messagesOf('en');
  return (key, values = {}) => {
    const template = messages[key] ?? english[key];
    if (template === undefined) throw new Error(`no page text '${key}'`);
    return template.replace(/\{(\w+)\}/g, (whole, name: string) => values[name] ?? whole);
  };
}
