/**
 * The shape of a grant handler (node-oidc-provider style): one module per grant type, exporting
 * `{ grantType, parameters, handle }`, registered by name in index.ts. A grant sees only the form
 * parameters it declares, so what it reads and what the token endpoint documents cannot drift.
 */
import type { Deps } from '../../deps.js';
import { InvalidRequest } from '../../errors.js';
import type { Client } from '../clients/find.js';
import type { Issued } from '../tokens/issue.js';
import type { LoginContext } from '../sign-in/throttle.js';

export interface GrantRequest {
  /** The authenticated client, already known to be allowed this grant type. */
  client: Client;
  /** The grant's declared form parameters that were sent, each at most once (RFC 6749 3.2). */
  params: Readonly<Record<string, string>>;
  context: LoginContext;
  /** The thumbprint of the DPoP key the tokens are bound to (RFC 9449 5), when a proof came. */
  jkt?: string;
  /** The `resource` parameters (RFC 8707 2), checked absolute URIs; none when none was sent. */
  resources: readonly string[];
}

export interface GrantHandler {
  grantType: string;
  /** The form parameters this grant reads, beside grant_type and client authentication. */
  parameters: readonly string[];
  handle(deps: Deps, request: GrantRequest): Promise<Issued>;
}

export function requireParam(params: Readonly<Record<string, string>>, name: string): string {
  const value = params[name];
  if (value === undefined || value === '') throw InvalidRequest(`${name} is required`);
  return value;
}
