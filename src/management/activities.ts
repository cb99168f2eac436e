/**
 * The management feed: what happened in an organization (apps created, admins added, credentials
 * regenerated), read by GET /management/orgs/{orgId}/feed and /management/users/{userId}/feed.
 */
import { and, desc, eq, gte, inArray, lt, or } from 'drizzle-orm';
import { IllegalArgument } from '../errors.js';
import type { managementActivities } from '../db/schema.js';
import { newUuid } from '../ids.js';
import type { Deps } from '../deps.js';
import { type Tx, schemaOf } from '../db/open.js';

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
  const { managementActivities } = schemaOf(tx);
  await tx.insert(managementActivities).values({ uuid: newUuid(), created: now, ...input });
}

/** What an organization's feed is narrowed to; `cursor` is the one the previous page answered. */
export interface FeedFilter {
  verb?: string;
  category?: string;
  actorUuid?: string;
  since?: number;
  cursor?: string;
}

/**
 * A page of what happened in an organization, newest first, with the cursor of the next page.
 * Keyset paging on (created, uuid): entries recorded between pages are neither repeated nor skipped.
 */
export async function listOrganizationFeed(
  deps: Deps,
  orgUuid: string,
  limit: number,
  filter: FeedFilter = {},
): Promise<{ activities: ManagementActivity[]; cursor?: string }> {
  const { managementActivities } = schemaOf(deps.db);
  const after = decodeFeedCursor(filter.cursor);
  const rows = await deps.db
    .select()
    .from(managementActivities)
    .where(
      and(
        eq(managementActivities.orgUuid, orgUuid),
        filter.verb === undefined ? undefined : eq(managementActivities.verb, filter.verb),
        filter.category === undefined ? undefined : eq(managementActivities.category, filter.category),
        filter.actorUuid === undefined ? undefined : eq(managementActivities.actorUuid, filter.actorUuid),
        filter.since === undefined ? undefined : gte(managementActivities.created, filter.since),
        after === undefined
          ? undefined
          : or(
              lt(managementActivities.created, after.created),
              and(eq(managementActivities.created, after.created), lt(managementActivities.uuid, after.uuid)),
            ),
      ),
    )
    .orderBy(desc(managementActivities.created), desc(managementActivities.uuid))
    .limit(limit + 1);
  const activities = rows.slice(0, limit);
  const last = activities.at(-1);
  return { activities, cursor: rows.length > limit && last ? Buffer.from(`${last.created}:${last.uuid}`).toString('base64url') : undefined };
}

function decodeFeedCursor(cursor: string | undefined): { created: number; uuid: string } | undefined {
  if (cursor === undefined || cursor === '') return undefined;
  const text = /^[A-Za-z0-9_-]+$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  const match = /^(\d{1,15}):([0-9a-f-]{36})$/.exec(text);
  if (match === null || Buffer.from(text).toString('base64url') !== cursor) {
    throw IllegalArgument('cursor is not one this endpoint returned', { fields: { cursor: 'malformed' } });
  }
  return { created: Number(match[1]), uuid: match[2] };
}

/** A user's feed: what they did, and what happened to them or in their organizations. */
export async function listUserFeed(deps: Deps, userUuid: string, orgUuids: string[], limit: number): Promise<ManagementActivity[]> {
  const { managementActivities } = schemaOf(deps.db);
  const conditions = [eq(managementActivities.actorUuid, userUuid), eq(managementActivities.objectUuid, userUuid)];
  if (orgUuids.length > 0) conditions.push(inArray(managementActivities.orgUuid, orgUuids));
  return await deps.db
    .select()
    .from(managementActivities)
    .where(or(...conditions))
    .orderBy(desc(managementActivities.created), desc(managementActivities.uuid))
    .limit(limit);
}
