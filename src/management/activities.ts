/**
 * The management feed: what happened in an organization (apps created, admins added, credentials
 * regenerated), read by GET /management/orgs/{orgId}/feed and /management/users/{userId}/feed.
 */
import { desc, eq, or, inArray } from 'drizzle-orm';
import { managementActivities } from '../db/schema.js';
import { newUuid } from '../ids.js';
import type { Deps } from '../deps.js';
import type { Tx } from '../db/open.js';

export type ManagementActivity = typeof managementActivities.$inferSelect;

export interface ActivityInput {
  orgUuid: string | null;
  actorUuid: string | null;
  verb: string;
  category: 'admin' | 'application' | 'organization' | 'credentials';
  title: string;
  objectType: string;
  objectUuid: string;
  objectName: string;
}

export async function recordActivity(tx: Tx, now: number, input: ActivityInput): Promise<void> {
  await tx
    .insert(managementActivities)
    .values({ uuid: newUuid(), created: now, ...input })
    .run();
}

export async function listOrganizationFeed(deps: Deps, orgUuid: string, limit: number): Promise<ManagementActivity[]> {
  return await deps.db
    .select()
    .from(managementActivities)
    .where(eq(managementActivities.orgUuid, orgUuid))
    .orderBy(desc(managementActivities.created), desc(managementActivities.uuid))
    .limit(limit)
    .all();
}

/** A user's feed: what they did, and what happened to them or in their organizations. */
export async function listUserFeed(deps: Deps, userUuid: string, orgUuids: string[], limit: number): Promise<ManagementActivity[]> {
  const conditions = [eq(managementActivities.actorUuid, userUuid), eq(managementActivities.objectUuid, userUuid)];
  if (orgUuids.length > 0) conditions.push(inArray(managementActivities.orgUuid, orgUuids));
  return await deps.db
    .select()
    .from(managementActivities)
    .where(or(...conditions))
    .orderBy(desc(managementActivities.created), desc(managementActivities.uuid))
    .limit(limit)
    .all();
}
