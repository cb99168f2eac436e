/**
 * Deactivating and activating accounts (docs/api.md#account-state): an administrator's switch on
 * an admin user or an app user, stored as `disabled`. Deactivating ends every sign-in of the
 * user in the same transaction — browser sessions and token families, so its refresh and access
 * tokens stop at once — and every way of getting a token refuses the account from then on
 * (identity/sign-in/authenticate.ts, and `currentPrincipal` in identity/tokens/access-tokens.ts
 * for refresh tokens, codes and access tokens). Activating lets the account sign in again; what
 * was revoked stays revoked.
 */
import type { Deps } from '../deps.js';
import type { Principal } from '../principal.js';
import { endAllSignIns } from '../identity/sessions/end-sign-ins.js';
import { storeDisabled } from './accounts.js';
import type { UserSubject } from './links.js';

/** `active: false` deactivates, `true` activates; `by` is who did it, for the audit line. */
export async function setAccountActive(deps: Deps, subject: UserSubject, active: boolean, by: Principal): Promise<void> {
  const ended = await deps.db.transaction(async (tx) => {
    await storeDisabled(tx, subject, !active, deps.now());
    return active ? undefined : await endAllSignIns(deps, subject.uuid);
  });
  const event = active ? 'account_activated' : 'account_deactivated';
  const actor = 'userUuid' in by ? by.userUuid : 'clientId' in by ? by.clientId : null;
  deps.logger.info({ event, subject: subject.uuid, kind: subject.type, by: by.kind, actor, ...ended }, active ? 'account activated' : 'account deactivated');
}
