/**
 * client_credentials (RFC 6749 4.4): a confidential client acting for itself. Organization
 * credentials act as their organization, application credentials and an application's
 * confidential OAuth clients as their application (a service account); `scope` limits them.
 */
import { UnauthorizedClient } from '../../errors.js';
import { servicePrincipalOf } from '../sign-in/authenticate.js';
import { scopesFor } from '../clients/find.js';
import { issueTokens } from '../tokens/issue.js';
import { parseScope, resolveScope } from '../scopes.js';
import type { GrantHandler } from './types.js';

export const clientCredentialsGrant: GrantHandler = {
  grantType: 'client_credentials',
  parameters: ['scope'],
  async handle(deps, { client, params, jkt, resources }) {
    const principal = servicePrincipalOf(client);
    if (!principal) throw UnauthorizedClient('this client cannot act for itself');
    const scope = resolveScope(parseScope(params.scope), scopesFor(client, 'client_credentials'), 'the client_credentials grant');
    return issueTokens(deps, { client, principal, scope, jkt, resources });
  },
};
