/**
 * "Second factor required" (docs/account.md#second-factor-required): an application may hold its
 * users, and an organization its admin users, to a second factor. A user so held who has no
 * active factor gets no token from a password alone: the sign-in page has them enroll one in the
 * same sign-in, and the password grants refuse until they have.
 */
import { eq } from 'drizzle-orm';

import { type Tx, schemaOf } from '../../db/open.js';
import { requiresSecondFactor } from '../../management/settings.js';
import { ADMIN_REALM } from '../sign-in/throttle.js';
import { first } from '../../db/run.js';

/** What the password grants answer such a user (400 `invalid_grant`). */
export const ENROLLMENT_REQUIRED =
  'a second factor must be enrolled first: sign in through /connect/authorize to set one up, or add one at /{org}/{app}/users/{user}/factors';

/**
 * Whether the user `userUuid` of `realm` must have a second factor: an application's user when
 * the application says so, an admin user when any of their organizations does.
 */
export async function isSecondFactorRequired(tx: Tx, realm: string, userUuid: string): Promise<boolean> {
  const { applications, orgAdmins, organizations } = schemaOf(tx);
  if (realm !== ADMIN_REALM) {
    const app = await first(tx.select({ properties: applications.properties }).from(applications).where(eq(applications.uuid, realm)));
    return app !== undefined && requiresSecondFactor(app);
  }
  const orgs = await tx
    .select({ properties: organizations.properties })
    .from(orgAdmins)
    .innerJoin(organizations, eq(organizations.uuid, orgAdmins.orgUuid))
    .where(eq(orgAdmins.userUuid, userUuid));
  return orgs.some(requiresSecondFactor);
}
