/**
 * The grant types of /connect/token, by name: one module each, one Map, no switch. An extension
 * grant is one more module and one more entry here; discovery lists exactly these.
 */
import type { GrantHandler } from './types.js';
import { authorizationCodeGrant } from './authorization-code.js';
import { clientCredentialsGrant } from './client-credentials.js';
import { deviceCodeGrant } from './device-code.js';
import { passwordGrant } from './password.js';
import { refreshTokenGrant } from './refresh-token.js';
import { tokenExchangeGrant } from './token-exchange.js';

export const grants: ReadonlyMap<string, GrantHandler> = new Map(
  [authorizationCodeGrant, clientCredentialsGrant, passwordGrant, refreshTokenGrant, tokenExchangeGrant, deviceCodeGrant].map((grant) => [
    grant.grantType,
    grant,
  ]),
);
