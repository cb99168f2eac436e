/**
 * password (RFC 6749 4.3): admin users through `admin-cli`, an application's users through that
 * application's clients. `acr_values=tenant:NAME` limits an admin sign-in to members of
 * organization NAME; `idp:NAME` is refused with invalid_request, because signing in at an
 * external provider needs a browser (use /connect/authorize).
 */
import { and, eq } from 'drizzle-orm';

import type { Deps } from '../../deps.js';
import { InvalidGrant, InvalidRequest, UnauthorizedClient } from '../../errors.js';
import { findOrganizationIn } from '../../management/organizations.js';
import { parseAcrValues } from '../authorize/acr-values.js';
import { authenticateAdmin, authenticateAppUser, type SignedIn } from '../sign-in/authenticate.js';
import { scopesFor, type Client } from '../clients/find.js';
import { issueTokens } from '../tokens/issue.js';
import { insertTokenFamily } from '../sessions/token-families.js';
import { parseScope, resolveScope } from '../scopes.js';
import type { TokenPrincipal } from '../tokens/access-tokens.js';
import type { LoginContext } from '../sign-in/throttle.js';
import { requireParam, type GrantHandler } from './types.js';
import { first } from '../../db/run.js';
import { schemaOf } from '../../db/open.js';

async function signIn(deps: Deps, client: Client, params: Readonly<Record<string, string>>, context: LoginContext): Promise<SignedIn<TokenPrincipal>> {
  const { orgAdmins } = schemaOf(deps.db);
  const username = requireParam(params, 'username');
  const password = requireParam(params, 'password');
  const acr = parseAcrValues(params.acr_values);
  if (acr.idp) throw InvalidRequest(`acr_values idp:${acr.idp} needs a browser; sign in through /connect/authorize`);
  if (client.kind === 'admin-cli') {
    const { account: admin, amr } = await authenticateAdmin(deps, username, password, context, params.otp);
    if (acr.tenant && !admin.sysadmin) {
      const org = await findOrganizationIn(deps.db, acr.tenant);
      const member =
        org &&
        (await first(
          deps.db
            .select()
            .from(orgAdmins)
            .where(and(eq(orgAdmins.orgUuid, org.uuid), eq(orgAdmins.userUuid, admin.uuid))),
        ));
      if (!member) throw InvalidGrant(`this account is not an administrator of organization '${acr.tenant}'`);
    }
    return { account: { kind: admin.sysadmin ? 'sysadmin' : 'admin', userUuid: admin.uuid, username: admin.username }, amr };
  }
  if (!client.appUuid) throw UnauthorizedClient('only admin-cli and the clients of an application sign users in');
  if (acr.tenant) throw InvalidRequest('acr_values tenant: applies to admin sign-in through admin-cli only');
  const { account: user, amr } = await authenticateAppUser(deps, client.appUuid, username, password, context, params.otp);
  return { account: { kind: 'app-user', appUuid: client.appUuid, userUuid: user.uuid, username: user.name ?? '' }, amr };
}

export const passwordGrant: GrantHandler = {
  grantType: 'password',
  // otp: the second factor of a user who has one (docs/api.md#second-factors).
  parameters: ['username', 'password', 'otp', 'scope', 'acr_values'],
  async handle(deps, { client, params, context, jkt, resources }) {
    // Scope first: a bad request is refused before a password is spent on it.
    const scope = resolveScope(parseScope(params.scope), scopesFor(client, 'password'), 'this client');
    const { account: principal, amr } = await signIn(deps, client, params, context);
    const authTime = Math.floor(deps.now() / 1000);
    const family = await insertTokenFamily(deps.db, deps.now(), { clientId: client.clientId, principal, scope, authTime, amr, resources });
    return await issueTokens(deps, { client, principal, scope, family, jkt, resources });
  },
};
