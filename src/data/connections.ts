/**
 * Connections between entities (POST/DELETE …/{collection}/{entityId1}/{relation}/{entityId2},
 * docs/api.md#entities). A `following` connection brings its reciprocal `followers`; deleting an
 * entity removes its connections (store.ts `deleteEntityRows`).
 */
import { and, eq } from 'drizzle-orm';

import { EntityNotFound } from '../errors.js';
import type { Deps } from '../deps.js';
import { type Tx, schemaOf } from '../db/open.js';
import type { EntityRow } from '../db/entity-store.js';
import { RECIPROCAL, type RelationView } from './relations.js';
import { first } from '../db/run.js';

interface Edge {
  sourceUuid: string;
  relation: string;
  targetUuid: string;
}

/** The stored edges behind `entity -view-> other`, the reciprocal included. */
function edgesOf(entity: EntityRow, view: RelationView, other: EntityRow): Edge[] {
  if (view.direction === 'in') return [{ sourceUuid: other.uuid, relation: view.relation, targetUuid: entity.uuid }];
  const edges = [{ sourceUuid: entity.uuid, relation: view.relation, targetUuid: other.uuid }];
  const reciprocal = RECIPROCAL.get(view.relation);
  if (reciprocal !== undefined) edges.push({ sourceUuid: other.uuid, relation: reciprocal, targetUuid: entity.uuid });
  return edges;
}

export async function connectIn(tx: Tx, appUuid: string, edges: readonly Edge[], now: number): Promise<void> {
  const { connections } = schemaOf(tx);
  for (const edge of edges)
    await tx
      .insert(connections)
      .values({ appUuid, ...edge, created: now })
      .onConflictDoNothing();
}

export async function connectEntities(deps: Deps, entity: EntityRow, view: RelationView, other: EntityRow): Promise<void> {
  await deps.db.transaction(async (tx) => connectIn(tx, entity.appUuid, edgesOf(entity, view, other), deps.now()));
}

/** @throws AppError `entity_not_found` (404) when the two are not connected that way. */
export async function disconnectEntities(deps: Deps, entity: EntityRow, view: RelationView, other: EntityRow): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const { connections } = schemaOf(tx);
    const [main, ...rest] = edgesOf(entity, view, other);
    if (!(await isConnectedIn(tx, main))) {
      throw EntityNotFound(`'${entity.name ?? entity.uuid}' has no '${view.relation}' connection to '${other.name ?? other.uuid}'`, {
        fields: { relation: view.relation },
      });
    }
    for (const edge of [main, ...rest]) {
      await tx
        .delete(connections)
        .where(and(eq(connections.sourceUuid, edge.sourceUuid), eq(connections.relation, edge.relation), eq(connections.targetUuid, edge.targetUuid)));
    }
  });
}

export async function isConnectedIn(tx: Tx, edge: Edge): Promise<boolean> {
  const { connections } = schemaOf(tx);
  return (
    (await first(
      tx
        .select({ relation: connections.relation })
        .from(connections)
        .where(and(eq(connections.sourceUuid, edge.sourceUuid), eq(connections.relation, edge.relation), eq(connections.targetUuid, edge.targetUuid))),
    )) !== undefined
  );
}

/** Whether `entity -view-> other` holds. */
export async function isRelatedIn(tx: Tx, entity: EntityRow, view: RelationView, other: EntityRow): Promise<boolean> {
  return isConnectedIn(tx, edgesOf(entity, view, other)[0]);
}
