/**
 * The shape of a grant handler (node-oidc-provider style): one module per grant type, exporting
 * `{ grantType, handle }`, registered by name in index.ts.
 */
import type { Deps } from '../../deps.js';
import { InvalidRequest } from '../../errors.js';
import type { Client } from '../clients.js';
import type { Issued } from '../issue.js';
import type { LoginContext } from '../throttle.js';

export interface GrantRequest {
  /** The authenticated client, already known to be allowed this grant type. */
  client: Client;
  /** The form parameters, each present at most once (RFC 6749 3.2). */
  params: Readonly<Record<string, string>>;
  context: LoginContext;
}

export interface GrantHandler {
  grantType: string;
  handle(deps: Deps, request: GrantRequest): Promise<Issued>;
}

export function requireParam(params: Readonly<Record<string, string>>, name: string): string {
  const value = params[name];
  if (value === undefined || value === '') throw InvalidRequest(`${name} is required`);
  return value;
}
