/**
 * `explain=true` on a collection read (docs/api.md#explain): which index found the entities and
 * how many entity rows the database read to answer, taken from the database's own account of
 * the query it ran, not from what the compiler hoped.
 *
 * - SQLite: `EXPLAIN QUERY PLAN` says how `entities` is searched — by uuid, which only the
 *   property index's candidates offer, or through the collection's own index (a scan of the
 *   collection in created order, or of all of it). The rows read are counted as the query runs:
 *   `countingRows` adds a condition SQLite evaluates first on every row it reads
 *   (idp_count_row, functions.ts).
 * - PostgreSQL: `EXPLAIN (ANALYZE, FORMAT JSON)` runs the query once more and reports, per plan
 *   node, the rows it returned and the rows its filter removed; the rows read from `entities` are
 *   their sum over every node that reads that table, times the node's loops.
 */
import { randomUUID } from 'node:crypto';
import { sql, type SQL } from 'drizzle-orm';
import { COLUMN_CANDIDATES } from '../data/query/property-index.js';
import { countedRows } from './functions.js';
import { clientOf, dialectOf, type Tx } from './open.js';

export interface Explanation {
  /** `property NAME`, `spatial location` or `full-text NAME` (several joined by `, `) when an index found the entities; null for a read of the collection. */
  readonly index: string | null;
  readonly rows_read: number;
  /** Why the property index was not used though it has candidates for the query. */
  readonly skipped?: string;
  /** `property NAME` when the entities were read in the query's order from the property index rather than sorted. */
  readonly order?: string;
}

/** A statement as run: its SQL text and parameters. */
export interface Statement {
  readonly sql: string;
  readonly params: unknown[];
}

/** A page being explained: run its statements with `condition` among their conditions, then ask `explain`. */
export interface RowCount {
  /** A condition that always holds; on SQLite it counts the rows read. */
  readonly condition: SQL | undefined;
  /**
   * The explanation of the statements that read the page, as run: the first says how the
   * entities were found, and whether in the order of `ordered` (an index's label) without a
   * sort; the rows read are all of theirs. Ends the count.
   */
  explain(statements: readonly Statement[], indexed: readonly string[], ordered?: string): Promise<Explanation>;
}

export function countingRows(tx: Tx): RowCount {
  if (dialectOf(tx) === 'postgres')
    return { condition: undefined, explain: (statements, indexed, ordered) => explainPostgres(tx, statements, indexed, ordered) };
  const token = randomUUID();
  countedRows.set(token, 0);
  return {
    condition: sql`idp_count_row(${token})`,
    async explain(statements, indexed, ordered) {
      try {
        if (statements.length === 0) return foundNone(indexed);
        const [first] = statements;
        const plan = await clientOf(tx).query<{ detail: string }>(`EXPLAIN QUERY PLAN ${first.sql}`, first.params);
        // The candidates drive the plan when the entities are searched by uuid.
        const byUuid = plan.some((step) => /^SEARCH entities USING (INDEX sqlite_autoindex_entities_1|PRIMARY KEY) \(uuid=\?\)/.test(step.detail));
        // In index order: the index rows are walked and nothing is sorted (a sort of a part of the order is only ever of a tie).
        const inOrder =
          plan.some((step) => /^(SCAN|SEARCH) entity_values\b/.test(step.detail)) && !plan.some((step) => step.detail === 'USE TEMP B-TREE FOR ORDER BY');
        return {
          index: byUuid ? describeIndex(indexed) : null,
          rows_read: countedRows.get(token) ?? 0,
          ...(ordered !== undefined && inOrder && { order: ordered }),
        };
      } finally {
        countedRows.delete(token);
      }
    },
  };
}
/** A page for which no statement read entities: the index gave no candidate. */
function foundNone(indexed: readonly string[]): Explanation {
  return { index: describeIndex(indexed), rows_read: 0 };
}

function describeIndex(indexed: readonly string[]): string | null {
  return indexed.length === 0 ? null : indexed.join(', ');
}

interface PlanNode {
  readonly 'Node Type': string;
  readonly 'Relation Name'?: string;
  readonly Alias?: string;
  readonly 'Index Name'?: string;
  readonly 'Actual Rows'?: number;
  readonly 'Actual Loops'?: number;
  readonly 'Rows Removed by Filter'?: number;
  readonly 'Rows Removed by Index Recheck'?: number;
  readonly Plans?: readonly PlanNode[];
}

async function explainPostgres(tx: Tx, statements: readonly Statement[], indexed: readonly string[], ordered: string | undefined): Promise<Explanation> {
  if (statements.length === 0) return foundNone(indexed);
  const plans: PlanNode[] = [];
  for (const statement of statements) {
    const [row] = await clientOf(tx).query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${statement.sql}`, statement.params);
    // The driver may hand json over as its text.
    const document = typeof row['QUERY PLAN'] === 'string' ? JSON.parse(row['QUERY PLAN']) : row['QUERY PLAN'];
    plans.push((document as [{ Plan: PlanNode }])[0].Plan);
  }
  // The entities read for a page, not the columns' candidates looked up in their indexes.
  const readsOf = (plan: PlanNode): PlanNode[] => nodesOf(plan).filter((node) => node['Relation Name'] === 'entities' && node.Alias !== COLUMN_CANDIDATES);
  // The counts are per loop (averages), as EXPLAIN prints them.
  const rowsRead = plans
    .flatMap(readsOf)
    .reduce(
      (sum, node) =>
        sum + ((node['Actual Rows'] ?? 0) + (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0)) * (node['Actual Loops'] ?? 1),
      0,
    );
  const reads = readsOf(plans[0]);
  const byUuid = reads.length > 0 && reads.every(readsByUuid);
  // In index order: an index scan of the index rows, and no sort but an incremental one (of ties).
  const nodes = nodesOf(plans[0]);
  const inOrder =
    nodes.some((node) => node['Relation Name'] === 'entity_values' && node['Node Type'].startsWith('Index')) &&
    !nodes.some((node) => node['Node Type'] === 'Sort');
  return { index: byUuid ? describeIndex(indexed) : null, rows_read: Math.round(rowsRead), ...(ordered !== undefined && inOrder && { order: ordered }) };
}

/** Whether a node reads `entities` by uuid: through its primary key, directly or by a bitmap of it. */
function readsByUuid(node: PlanNode): boolean {
  if (node['Index Name'] !== undefined) return node['Index Name'] === 'entities_pkey';
  const bitmaps = (node.Plans ?? []).flatMap(nodesOf).filter((inner) => inner['Node Type'] === 'Bitmap Index Scan');
  return node['Node Type'] === 'Bitmap Heap Scan' && bitmaps.length > 0 && bitmaps.every((inner) => inner['Index Name'] === 'entities_pkey');
}

function nodesOf(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(nodesOf)];
}
