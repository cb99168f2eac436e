/** The push providers by name (docs/api.md#push-notifications); `noop` is for development only. */
import { appleProvider } from './apple.js';
import { googleProvider } from './google.js';
import { noopProvider } from './noop.js';
import type { Provider, ProviderName } from './types.js';

export const PROVIDERS: ReadonlyMap<ProviderName, Provider> = new Map<ProviderName, Provider>([
  ['apple', appleProvider],
  ['google', googleProvider],
  ['noop', noopProvider],
]);

/** The providers named in error messages: `noop` is not advertised. */
export const LISTED_PROVIDERS: readonly ProviderName[] = ['apple', 'google'];
