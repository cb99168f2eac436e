/**
 * Activities and feeds (POST …/users/{userId}/activities and …/groups/{groupId}/activities, GET
 * …/feed; docs/api.md#activities-feeds-and-events). An activity is an entity of `activities`, owned
 * by its user or group through the `activities` relation, and published through `feed` relations: a
 * user's to their own feed and to each follower's, a group's to the group's feed and to each
 * member's. Feeds are read newest first like any relation (src/data/find.ts).
 */
import { and, eq } from 'drizzle-orm';

import { IllegalArgument } from '../errors.js';
import type { Deps } from '../deps.js';
import { type Tx, schemaOf } from '../db/open.js';
import { entityBodies, insertEntityFromBody, type CollectionRef } from '../data/entities.js';
import { connectIn } from '../data/connections.js';
import type { EntityRow } from '../db/entity-store.js';

export const ACTIVITIES: CollectionRef = { name: 'activities', type: 'activity' };

/** Who receives an owner's activities besides the owner: followers of a user, members of a group. */
const AUDIENCE: ReadonlyMap<string, string> = new Map([
  ['users', 'followers'],
  ['groups', 'users'],
]);

// CreateActivity flattens the actor into displayName, uuid, username and image; Usergrid and its
// SDKs send them inside `actor`. Both are accepted and stored as `actor`.
const ACTOR_FIELDS = ['displayName', 'uuid', 'username', 'image', 'email'] as const;

function actorOf(body: Record<string, unknown>, owner: EntityRow): Record<string, unknown> {
  const given = typeof body.actor === 'object' && body.actor !== null && !Array.isArray(body.actor) ? (body.actor as Record<string, unknown>) : {};
  const actor: Record<string, unknown> = { ...given };
  for (const field of ACTOR_FIELDS) if (body[field] !== undefined) actor[field] ??= body[field];
  if (owner.collection === 'users') {
    actor.uuid ??= owner.uuid;
    actor.username ??= owner.name;
    actor.displayName ??= owner.properties.name ?? owner.name;
  }
  actor.objectType ??= owner.collection === 'users' ? 'person' : owner.type;
  return actor;
}

function requireText(body: Record<string, unknown>, field: string): string {
  const value = body[field];
  if (typeof value !== 'string' || value.trim() === '') throw IllegalArgument(`${field} is required`, { fields: { [field]: 'required' } });
  return value;
}

async function audienceOf(tx: Tx, owner: EntityRow): Promise<string[]> {
  const { connections } = schemaOf(tx);
  const relation = AUDIENCE.get(owner.collection);
  if (relation === undefined) return [];
  return (
    await tx
      .select({ uuid: connections.targetUuid })
      .from(connections)
      .where(and(eq(connections.sourceUuid, owner.uuid), eq(connections.relation, relation)))
  ).map((row) => row.uuid);
}

export async function createActivity(deps: Deps, owner: EntityRow, body: unknown): Promise<EntityRow> {
  const [input] = entityBodies(body);
  const verb = requireText(input, 'verb');
  const content = requireText(input, 'content');
  const actor = actorOf(input, owner);
  const rest = Object.fromEntries(Object.entries(input).filter(([key]) => !(ACTOR_FIELDS as readonly string[]).includes(key) && key !== 'actor'));
  return await deps.db.transaction(async (tx) => {
    const now = deps.now();
    const activity = await insertEntityFromBody(tx, owner.appUuid, ACTIVITIES, { ...rest, verb, content, actor, published: now }, now);
    const feeds = [owner.uuid, ...(await audienceOf(tx, owner))];
    await connectIn(
      tx,
      owner.appUuid,
      [
        { sourceUuid: owner.uuid, relation: 'activities', targetUuid: activity.uuid },
        ...feeds.map((uuid) => ({ sourceUuid: uuid, relation: 'feed', targetUuid: activity.uuid })),
      ],
      now,
    );
    return activity;
  });
}
