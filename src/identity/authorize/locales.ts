/** The languages of the sign-in, consent, logout and error pages (`ui_locales`, OIDC Core 3.1.2.1). */
export const LOCALES = ['en', 'de', 'fr', 'es'] as const;
export type Locale = (typeof LOCALES)[number];
