/**
 * Create batching, the fast path for creating entities on PostgreSQL
 * (docs/design.md#create-batching-on-postgresql): the single-entity inserts that run outside a
 * transaction and start in the same turn of the event loop (or while two statements are under
 * way) go to the database as one INSERT of all their rows. A statement of its own costs
 * PostgreSQL more than the entity's row and its indexes' rows together — a round trip, the
 * executor's start and end, and a commit, which waits for its WAL to reach the disk — and idp a
 * query and its answer; a batch pays them once.
 *
 * Each row's caller hears only of its own row: the statement is one transaction, so when it
 * fails, nothing of it is stored, and every row of the batch is inserted again alone, each
 * getting its own outcome (a name taken, a property PostgreSQL refuses) as if it had never been
 * batched (a batch of one row is not run again). The rows of a batch are inserted in the order of
 * `order`, so that two batches that both hold the same unique keys take them in the same order
 * and one waits for the other instead of deadlocking. A caller's promise settles after the
 * commit, as a statement of its own would.
 *
 * Measured on 2026-11-25 against one INSERT per entity, the create of `parse` under load (50
 * connections, four runs each, docs/benchmarks.md#creating-an-entity-on-postgresql): 457 → 213 µs
 * of idp's CPU and 613 → 359 µs of PostgreSQL's per create (medians), 937–1,114 → 1,258–3,003
 * req/s; at most two statements under way rather than one per turn, 301 → 230 µs of PostgreSQL's
 * and 176 → 158 µs of idp's (means of three pairs), 2,474 → 2,681 req/s. Nothing but this
 * module and `insertEntity`, which calls it, knows that inserts share a statement.
 */

/** Rows in one statement at most: 9 parameters each, far below PostgreSQL's 65,535. */
export const MAX_BATCH_ROWS = 100;

/**
 * Statements under way at once; the rows that come meanwhile wait for one to end and go together.
 * More only contend for the database's cores, and make each batch smaller.
 */
const MAX_RUNNING = 2;

interface Waiting<Row> {
  readonly row: Row;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/**
 * A function that inserts one row, batching it with the others of the same turn, or with those
 * that wait while MAX_RUNNING statements are under way: `insert` runs a statement of the given
 * rows (in their order) and resolves once it has committed.
 */
export function batchingInserts<Row>(insert: (rows: readonly Row[]) => Promise<unknown>, order: (a: Row, b: Row) => number): (row: Row) => Promise<void> {
  const waiting: Waiting<Row>[] = [];
  let running = 0;

  const alone = (entry: Waiting<Row>): Promise<void> => insert([entry.row]).then(entry.resolve, entry.reject);

  async function run(batch: Waiting<Row>[]): Promise<void> {
    if (batch.length === 1) return alone(batch[0]!);
    batch.sort((a, b) => order(a.row, b.row));
    try {
      await insert(batch.map((entry) => entry.row));
    } catch {
      // The statement stored nothing: each row again alone, for its own outcome.
      await Promise.all(batch.map(alone));
      return;
    }
    for (const entry of batch) entry.resolve();
  }

  function flush(): void {
    while (waiting.length > 0 && running < MAX_RUNNING) {
      running++;
      void run(waiting.splice(0, MAX_BATCH_ROWS)).finally(() => {
        running--;
        flush();
      });
    }
  }

  return (row) =>
    new Promise<void>((resolve, reject) => {
      waiting.push({ row, resolve, reject });
      if (waiting.length === 1) setImmediate(flush);
      else if (waiting.length >= MAX_BATCH_ROWS) flush();
    });
}
