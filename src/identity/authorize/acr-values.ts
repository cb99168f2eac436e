/**
 * `acr_values` of the authorize and token endpoints: `tenant:NAME` names the organization a
 * sign-in is for, `idp:NAME` an external identity provider, and our authentication context
 * classes (docs/api.md#second-factors) the strength the client would like. Those are voluntary
 * requests (OIDC Core 3.1.2.1): what cannot be met is not an error, the tokens say the `acr`
 * achieved. Other values are ignored.
 */
import { ACR_VALUES } from '../factors/second-factor.js';

export interface AcrValues {
  tenant?: string;
  idp?: string;
  /** Our `acr` values the client asked for, in its order of preference. */
  classes: string[];
}

export function parseAcrValues(text: string | undefined): AcrValues {
  const result: AcrValues = { classes: [] };
  for (const value of (text ?? '').split(' ')) {
    if (value.startsWith('tenant:') && value.length > 'tenant:'.length) result.tenant ??= value.slice('tenant:'.length);
    if (value.startsWith('idp:') && value.length > 'idp:'.length) result.idp ??= value.slice('idp:'.length);
    if ((ACR_VALUES as readonly string[]).includes(value) && !result.classes.includes(value)) result.classes.push(value);
  }
  return result;
}
