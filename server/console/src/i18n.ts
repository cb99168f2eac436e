/**
 * The console's language: the four the sign-in pages speak (en, de, fr, es). The choice made in
 * the bar is kept in localStorage; without one, the first of the browser's languages
 * (navigator.languages) the console speaks, by its primary subtag (`de-CH` → `de`); else English.
 * Every text comes from the one message table (messages.ts).
 */
import { useEffect, useState } from 'preact/hooks';
import { MESSAGES, type MessageKey } from './messages';

export const LOCALES = ['en', 'de', 'fr', 'es'] as const;
export type Locale = (typeof LOCALES)[number];

/** Each language by its own name, as the switcher lists them. */
export const LOCALE_NAMES: Record<Locale, string> = { en: 'English', de: 'Deutsch', fr: 'Français', es: 'Español' };

const STORED = 'idp-console:locale';
const CHANGED = 'idp-console:locale';

const isLocale = (value: string | null | undefined): value is Locale => LOCALES.includes(value as Locale);

/** The stored choice, else the first of `languages` the console speaks, else English. */
export function pickLocale(stored: string | null, languages: readonly string[]): Locale {
  if (isLocale(stored)) return stored;
  for (const tag of languages) {
    const primary = tag.split('-')[0]?.toLowerCase();
    if (isLocale(primary)) return primary;
  }
  return 'en';
}

function storedChoice(): string | null {
  try {
    return localStorage.getItem(STORED);
  } catch {
    // Storage refused (a privacy setting): the browser's languages decide.
    return null;
  }
}

let current: Locale = pickLocale(storedChoice(), navigator.languages);
document.documentElement.lang = current;

export function locale(): Locale {
  return current;
}

export function setLocale(next: Locale): void {
  current = next;
  document.documentElement.lang = next;
  try {
    localStorage.setItem(STORED, next);
  } catch {
    // Not kept: this page still speaks it.
  }
  dispatchEvent(new Event(CHANGED));
}

/** The language, re-rendering the component when it changes. */
export function useLocale(): Locale {
  const [value, setValue] = useState(current);
  useEffect(() => {
    const update = () => setValue(current);
    addEventListener(CHANGED, update);
    return () => removeEventListener(CHANGED, update);
  }, []);
  return value;
}

/** The text of `key` in the current language, `{name}` filled from `values`. */
export function t(key: MessageKey, values: Record<string, string | number> = {}): string {
  const template = MESSAGES[current][key];
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
}

/** A date and time as the current language writes it. */
export function dateTime(ms: number): string {
  return new Date(ms).toLocaleString(current);
}
