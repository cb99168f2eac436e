/**
 * Indexing a group's new entities at once, on SQLite (docs/design.md#indexing-at-the-end-of-a-group).
 * An entity created on its own (a POST of one entity, outside any transaction) is a unit of one
 * statement in a group commit (group-commit.ts `atomicStatement`) whose insert the triggers leave
 * unindexed (functions.ts `deferIndexing`). Before any other unit of the group runs, and before its
 * commit, `settle` writes the property, word and location index rows of every entity inserted
 * since the last: one statement per index, in the index's key order, one word index segment for all of
 * them — the bulk import's way (entity-import-store.ts). No statement but those inserts runs
 * while entities wait, and nothing outside the group sees them before the commit, so no query
 * ever finds an entity without its index rows.
 */
import type Database from 'better-sqlite3';
import { deferIndexing } from './functions.js';

/**
 * The start of the statement numbering the paths of the property index rows that
 * `entity_values_source` gives, up to its WHERE: rows name their path by number
 * (migrations/sqlite/…_property_index_compact_keys.sql), and a new path needs one first.
 */
export const NUMBERING_PATHS_WHERE =
  'INSERT OR IGNORE INTO entity_value_paths (app_uuid, collection, path) SELECT DISTINCT app_uuid, collection, path FROM entity_values_source WHERE';

/**
 * The entities of a bulk import's batch whose paths are numbered before its property index rows
 * are written (`indexEntitiesAfter` `numberFirstPaths`). The statement writing them sorts all of a
 * batch's rows before it inserts the first, so a path with no number failed it only after that
 * work: importing 100,000 people into a new collection, 4.9 s of 23.9 s went to the failed
 * statement and 2.4 s to numbering every entity's paths after it
 * (docs/benchmarks.md#the-first-batch-of-an-import). Numbering the paths of the first 100 first
 * costs a thousandth of that numbering, about 2.4 ms; a batch whose later entities bring new
 * paths still takes the long way.
 */
const FIRST_NUMBERED = 100;

/** The statements writing the three indexes' rows of the entities after a rowid, each index's in its key order. */
function indexStatementsOf(sqlite: Database.Database) {
  return {
    // The property index's rows name their path by number (migrations/sqlite/…_property_index_compact_keys.sql):
    // `paths` numbers the paths of the entities' rows. ON CONFLICT, unlike OR IGNORE, lets a row
    // whose path has no number yet fail the statement (NOT NULL) rather than be left out.
    values: sqlite.prepare(
      `INSERT INTO entity_values SELECT path_id, kind, value, entity_uuid FROM entity_values_source WHERE entity_rowid > ? ORDER BY 1, 2, 3, 4 ON CONFLICT DO NOTHING`,
    ),
    paths: sqlite.prepare(`${NUMBERING_PATHS_WHERE} entity_rowid > ?`),
    firstPaths: sqlite.prepare(`${NUMBERING_PATHS_WHERE} entity_rowid IN (SELECT rowid FROM entities WHERE rowid > ? ORDER BY rowid LIMIT ${FIRST_NUMBERED})`),
    // MATERIALIZED: idp_entity_words runs once per entity, not once more for the WHERE.
    words: sqlite.prepare(
      `WITH words AS MATERIALIZED (SELECT uuid, created, idp_entity_words(uuid, app_uuid, collection, properties) AS words FROM entities WHERE rowid > ?)
       INSERT INTO entity_words (entity_uuid, created, words) SELECT uuid, created, words FROM words WHERE words IS NOT NULL`,
    ),
    // Only an entity whose text names "location" (or escapes a character) can have one: the
    // insert triggers' test (migrations/sqlite/…_cheaper_index_triggers.sql), which spares the
    // others' JSON a parse.
    locations: sqlite.prepare(
      `INSERT INTO entity_locations SELECT * FROM entity_locations_source WHERE entity_uuid IN (
         SELECT uuid FROM entities WHERE rowid > ? AND (properties GLOB '*"location"*' OR properties GLOB '*\\*')
       ) ORDER BY min_latitude`,
    ),
  };
}

const indexStatements = new WeakMap<Database.Database, ReturnType<typeof indexStatementsOf>>();

/**
 * Writes the index rows of the entities inserted after rowid `last` while the insert triggers left
 * them alone (`deferIndexing`): they must be the only entities after it. Their property index
 * rows are written at once when each of their paths has its number, as the paths of a
 * collection's entities mostly have; when one has not, the statement fails, writing nothing, and
 * the paths are numbered first (another walk of the entities' JSON, about 9 µs an entity).
 * `numberFirstPaths`, for a large batch: the paths of its first FIRST_NUMBERED entities are
 * numbered before, so that a batch of entities alike does not fail.
 */
export function indexEntitiesAfter(sqlite: Database.Database, last: number, { numberFirstPaths = false } = {}): void {
  let statements = indexStatements.get(sqlite);
  if (statements === undefined) indexStatements.set(sqlite, (statements = indexStatementsOf(sqlite)));
  if (numberFirstPaths) statements.firstPaths.run(last);
  try {
    statements.values.run(last);
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'SQLITE_CONSTRAINT_NOTNULL') throw error;
    statements.paths.run(last);
    statements.values.run(last);
  }
  statements.words.run(last);
  statements.locations.run(last);
}

/** The largest rowid of `entities` (0 when it is empty): entities inserted after it have larger ones. */
export function lastEntityRowid(sqlite: Database.Database): number {
  let statement = lastRowids.get(sqlite);
  if (statement === undefined) lastRowids.set(sqlite, (statement = sqlite.prepare('SELECT max(rowid) FROM entities').pluck()));
  return (statement.get() as number | null) ?? 0;
}

const lastRowids = new WeakMap<Database.Database, Database.Statement>();

export interface GroupIndexing {
  /** Runs `insert`, which inserts entities, leaving their index rows to `settle`. */
  leaving<T>(insert: () => T): T;
  /** Writes the index rows of the entities `leaving` inserted since the last settle. */
  settle(): void;
}

export function groupIndexing(sqlite: Database.Database): GroupIndexing {
  // The rowid after which every entity waits for its index rows; null when none waits. Entities
  // are the table's newest rows: their rowids are larger than any other's.
  let waitingAfter: number | null = null;
  return {
    leaving(insert) {
      waitingAfter ??= lastEntityRowid(sqlite);
      deferIndexing(sqlite, true);
      try {
        return insert();
      } finally {
        deferIndexing(sqlite, false);
      }
    },
    settle() {
      if (waitingAfter === null) return;
      const after = waitingAfter;
      waitingAfter = null;
      indexEntitiesAfter(sqlite, after);
    },
  };
}
