/**
 * Who may administer what (docs/api.md#principals): a sysadmin everything; an admin user or an
 * organization client their organizations and those organizations' applications; an
 * application client its one application. App users and guests never administer; their access
 * to an application's data is decided by roles and permissions (permissions.ts).
 */
import { and, eq, sql } from 'drizzle-orm';

import { preparedFor } from '../db/prepared.js';
import { remembered, schemaOf } from '../db/open.js';
import type { Deps } from '../deps.js';
import type { Principal } from '../principal.js';
import { prepare } from '../db/run.js';

const membership = preparedFor((db) => {
  const { orgAdmins } = schemaOf(db);
  return prepare(
    db
      .select({ orgUuid: orgAdmins.orgUuid })
      .from(orgAdmins)
      .where(and(eq(orgAdmins.orgUuid, sql.placeholder('org')), eq(orgAdmins.userUuid, sql.placeholder('user')))),
  );
});

export async function isOrganizationAdmin(deps: Deps, principal: Principal, orgUuid: string): Promise<boolean> {
  const { orgAdmins } = schemaOf(deps.db);
  switch (principal.kind) {
    case 'sysadmin':
      return true;
    case 'organization':
      return principal.orgUuid === orgUuid;
    case 'admin':
      return remembered(
        deps.db,
        `org-admin:${orgUuid}:${principal.userUuid}`,
        [orgAdmins],
        async () => (await membership(deps.db).get({ org: orgUuid, user: principal.userUuid })) !== undefined,
      );
    default:
      return false;
  }
}

/** Full control of one application's data: its organization's administrators and its own client. */
export async function isApplicationAdmin(deps: Deps, principal: Principal, app: { uuid: string; orgUuid: string }): Promise<boolean> {
  if (principal.kind === 'application') return principal.appUuid === app.uuid;
  return isOrganizationAdmin(deps, principal, app.orgUuid);
}
