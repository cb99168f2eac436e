/**
 * `acr_values` special values of the authorize and token endpoints: `tenant:NAME` names the
 * organization a sign-in is for, `idp:NAME` an external identity provider. Other values are
 * voluntary requests (OIDC Core 3.1.2.1) and are ignored.
 */
export interface AcrValues {
  tenant?: string;
  idp?: string;
}

export function parseAcrValues(text: string | undefined): AcrValues {
  const result: AcrValues = {};
  for (const value of (text ?? '').split(' ')) {
    if (value.startsWith('tenant:') && value.length > 'tenant:'.length) result.tenant ??= value.slice('tenant:'.length);
    if (value.startsWith('idp:') && value.length > 'idp:'.length) result.idp ??= value.slice('idp:'.length);
  }
  return result;
}
