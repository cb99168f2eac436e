/**
 * The lowest layer of entity storage, shared by every module that reads or writes entity rows
 * (the data API, access checks, default roles of a new application, sign-in, fixtures). Keeps two
 * rules in one place: the entity's unique name lives both in its column (for uniqueness and
 * lookup) and in its naming property (for queries) — `name` for most collections, `username` for
 * users, `path` for groups — and writing an entity registers its collection (the first entity of
 * a type creates it, as in Usergrid).
 */
import { and, eq, getTableColumns, inArray, or, sql, type Column, type SQL, type SQLWrapper } from 'drizzle-orm';
import { noteEntitiesWritten } from './planner-statistics.js';
import { preparedFor } from './prepared.js';
import { clientOf, dialectOf, rememberedRow, type Tx, schemaOf } from './open.js';
import { placeholder, type DialectName, type Driver } from './driver.js';
import { batchingInserts, MAX_BATCH_ROWS } from './create-batching.js';
// Only SQLite can hold JSON its functions cannot read, so the guard below is written in its tables.
import { entities as sqliteEntities, type entities } from './schema.js';
import { newUuid } from '../ids.js';
import { prepare } from './run.js';
import type { SqliteDriver } from './sqlite.js';

export type EntityRow = typeof entities.$inferSelect;

export interface NewEntity {
  appUuid: string;
  collection: string;
  type: string;
  /** The collection's row is known to exist (CollectionRef.stored): no insert of it is tried. */
  collectionStored?: boolean;
  name?: string | null;
  /** The property that mirrors `name`; `name` unless the collection names entities otherwise. */
  nameProperty?: string;
  properties: Record<string, unknown>;
  now: number;
  uuid?: string;
}

export function nameKeyOf(name: string | null | undefined): string | null {
  return name === undefined || name === null ? null : name.toLowerCase();
}

const entityWrites = preparedFor((db) => {
  const { collections, entities } = schemaOf(db);
  return {
    collection: prepare(
      db
        .insert(collections)
        .values({ appUuid: sql.placeholder('app'), name: sql.placeholder('name'), type: sql.placeholder('type'), created: sql.placeholder('now') })
        .onConflictDoNothing(),
    ),
    entity: prepare(
      db.insert(entities).values({
        uuid: sql.placeholder('uuid'),
        appUuid: sql.placeholder('appUuid'),
        collection: sql.placeholder('collection'),
        type: sql.placeholder('type'),
        name: sql.placeholder('name'),
        nameKey: sql.placeholder('nameKey'),
        properties: sql.placeholder('properties'),
        created: sql.placeholder('created'),
        modified: sql.placeholder('modified'),
      }),
    ),
  };
});

/** The row `entity` is stored as. */
function rowOf(entity: NewEntity): EntityRow {
  const name = entity.name ?? null;
  return {
    uuid: entity.uuid ?? newUuid(),
    appUuid: entity.appUuid,
    collection: entity.collection,
    type: entity.type,
    name,
    nameKey: nameKeyOf(name),
    properties: name === null ? entity.properties : { ...entity.properties, [entity.nameProperty ?? 'name']: name },
    created: entity.now,
    modified: entity.now,
  };
}

export async function insertEntity(tx: Tx, entity: NewEntity): Promise<EntityRow> {
  const row = rowOf(entity);
  const statements = entityWrites(tx);
  if (!entity.collectionStored) await statements.collection.run({ app: entity.appUuid, name: entity.collection, type: entity.type, now: entity.now });
  const driver = clientOf(tx);
  // Outside a transaction the insert is a unit of its own: on PostgreSQL the row may share its
  // statement (create-batching.ts), on SQLite its indexing (group-indexing.ts).
  if (!driver.inTransaction()) {
    if (driver.dialect === 'postgres') await batchedInsertOf(driver, schemaOf(tx).entities)(row);
    else await (driver as SqliteDriver).insertEntitiesAlone(sqliteInsert.text(1), sqliteInsert.params([row]));
  } else await statements.entity.run(row);
  noteEntitiesWritten(tx, 1);
  return row;
}

/** The row order of a batch: by the unique key of names, so that batches take names in one order. */
function byNameKey(a: EntityRow, b: EntityRow): number {
  const left = `${a.appUuid}\u0000${a.collection}\u0000${a.nameKey ?? ''}`;
  const right = `${b.appUuid}\u0000${b.collection}\u0000${b.nameKey ?? ''}`;
  return left < right ? -1 : left > right ? 1 : 0;
}

const batchedInserts = new WeakMap<Driver, (row: EntityRow) => Promise<void>>();

/** The batching insert into one PostgreSQL database's `entities` (create-batching.ts); `table` is its drizzle table. */
function batchedInsertOf(driver: Driver, table: typeof entities): (row: EntityRow) => Promise<void> {
  let insert = batchedInserts.get(driver);
  if (insert === undefined) {
    const statement = postgresInsertInto(table);
    insert = batchingInserts((rows: readonly EntityRow[]) => driver.run(statement.text(rows.length), statement.params(rows)), byNameKey);
    batchedInserts.set(driver, insert);
  }
  return insert;
}

/**
 * Entities per INSERT of insertEntities: 9 parameters each, so a statement stays far below either
 * database's limit of parameters (SQLite 32,766, PostgreSQL 65,535) however many a body holds.
 */
const ROWS_PER_INSERT = 1000;

/**
 * Inserts new entities of one collection, many to a statement: the bulk path of a POST of an
 * array (docs/design.md#the-property-index). What a statement costs besides its rows — on SQLite
 * its statement journal, and the word index's flush to disk at each statement's savepoint
 * (FTS5) — is then paid once per statement rather than once per entity, and PostgreSQL gets one
 * round trip instead of one per entity. The triggers still index every row. A unique name taken
 * fails the whole statement without saying whose; the caller finds out with insertEntity.
 */
export async function insertEntities(tx: Tx, list: readonly NewEntity[]): Promise<EntityRow[]> {
  const rows = list.map(rowOf);
  const statements = entityWrites(tx);
  const [first] = list;
  if (first !== undefined && !first.collectionStored)
    await statements.collection.run({ app: first.appUuid, name: first.collection, type: first.type, now: first.now });
  const { entities } = schemaOf(tx);
  const statement = dialectOf(tx) === 'sqlite' ? sqliteInsert : postgresInsertInto(entities);
  const driver = clientOf(tx);
  for (let from = 0; from < rows.length; from += ROWS_PER_INSERT) {
    const part = rows.slice(from, from + ROWS_PER_INSERT);
    await driver.run(statement.text(part.length), statement.params(part));
  }
  noteEntitiesWritten(tx, rows.length);
  return rows;
}

/**
 * INSERTs of `count` rows into `entities` by SQL text made once per row count rather than by
 * drizzle's builder, which took 15–20 µs per entity to build the statement on SQLite (a bulk
 * import of 100,000 people, load 4: 20–27 µs per entity inserted, 6 µs this way;
 * docs/benchmarks.md#the-bulk-import), and half of idp's CPU in an import on PostgreSQL
 * (docs/benchmarks.md#the-bulk-import-on-postgresql). The values are mapped by the table's own
 * columns, as drizzle's insert maps them (properties as JSON text), with `dialect`'s placeholders.
 */
function insertsInto(table: typeof entities, dialect: DialectName) {
  const columns = Object.entries(getTableColumns(table)) as [keyof EntityRow, Column][];
  const texts = new Map<number, string>();
  return {
    text(count: number): string {
      let text = texts.get(count);
      if (text === undefined) {
        const values = Array.from({ length: count }, (_, row) => `(${columns.map((_, i) => placeholder(dialect, row * columns.length + i + 1)).join(',')})`);
        text = `INSERT INTO entities (${columns.map(([, column]) => column.name).join(', ')}) VALUES ${values.join(',')}`;
        // Kept: a batch's (create-batching.ts) and a full statement of the bulk path's.
        if (count <= MAX_BATCH_ROWS || count === ROWS_PER_INSERT) texts.set(count, text);
      }
      return text;
    },
    params(rows: readonly EntityRow[]): unknown[] {
      const params: unknown[] = [];
      for (const row of rows) for (const [field, column] of columns) params.push(row[field] === null ? null : column.mapToDriverValue(row[field]));
      return params;
    },
  };
}

const sqliteInsert = insertsInto(sqliteEntities, 'sqlite');

const postgresInserts = new WeakMap<typeof entities, ReturnType<typeof insertsInto>>();

/** The INSERTs into PostgreSQL's `entities`, `table` (its tables are loaded only on PostgreSQL, open.ts, so its texts are made here). */
function postgresInsertInto(table: typeof entities): ReturnType<typeof insertsInto> {
  let statement = postgresInserts.get(table);
  if (statement === undefined) postgresInserts.set(table, (statement = insertsInto(table, 'postgres')));
  return statement;
}

const entityBy = preparedFor((db) => {
  const { entities } = schemaOf(db);
  return {
    name: prepare(
      db
        .select()
        .from(entities)
        .where(
          and(
            eq(entities.appUuid, sql.placeholder('app')),
            eq(entities.collection, sql.placeholder('collection')),
            eq(entities.nameKey, sql.placeholder('key')),
          ),
        ),
    ),
    uuid: prepare(
      db
        .select()
        .from(entities)
        .where(and(eq(entities.appUuid, sql.placeholder('app')), eq(entities.uuid, sql.placeholder('uuid')))),
    ),
  };
});

// An entity addressed by name or uuid is remembered until the entities table changes
// (read-cache.ts), frozen: a GET of an entity nobody writes meanwhile runs no query (get-entity:
// 14,800 → 20,800 req/s). Rows are never changed in place. Each is one row by a unique key
// (`rememberedRow`): on PostgreSQL new entities are not reported to other instances. The
// collection's length keeps (`a:b`, `c`) and (`a`, `b:c`) apart.
export async function findEntityByName(tx: Tx, appUuid: string, collection: string, name: string): Promise<EntityRow | undefined> {
  const { entities } = schemaOf(tx);
  const key = name.toLowerCase();
  return await rememberedRow(tx, `entity-name:${appUuid}:${collection.length}:${collection}:${key}`, [entities], () =>
    entityBy(tx).name.get({ app: appUuid, collection, key }),
  );
}

export async function findEntityByUuid(tx: Tx, appUuid: string, uuid: string): Promise<EntityRow | undefined> {
  const { entities } = schemaOf(tx);
  const key = uuid.toLowerCase();
  return await rememberedRow(tx, `entity-uuid:${appUuid}:${key}`, [entities], () => entityBy(tx).uuid.get({ app: appUuid, uuid: key }));
}

/** Whether any application holds an entity with this uuid (entity uuids are unique server-wide). */
export async function isEntityUuidTaken(tx: Tx, uuid: string): Promise<boolean> {
  const { entities } = schemaOf(tx);
  const [row] = await tx.select({ uuid: entities.uuid }).from(entities).where(eq(entities.uuid, uuid.toLowerCase())).limit(1);
  return row !== undefined;
}

/** Writes new properties (and the name they carry) of an existing entity. */
export async function updateEntityRow(tx: Tx, row: EntityRow, properties: Record<string, unknown>, name: string | null, now: number): Promise<EntityRow> {
  const { entities } = schemaOf(tx);
  const updated: EntityRow = { ...row, properties, name, nameKey: nameKeyOf(name), modified: now };
  await tx.update(entities).set({ properties, name, nameKey: updated.nameKey, modified: now }).where(eq(entities.uuid, row.uuid));
  return updated;
}

/** Deletes entities with every connection to or from them. */
export async function deleteEntityRows(tx: Tx, uuids: readonly string[]): Promise<void> {
  const { connections, entities } = schemaOf(tx);
  if (uuids.length === 0) return;
  await tx.delete(connections).where(or(inArray(connections.sourceUuid, [...uuids]), inArray(connections.targetUuid, [...uuids])));
  await tx.delete(entities).where(inArray(entities.uuid, [...uuids]));
}

// The uuids go in as one JSON array, so one statement serves a page of any size; both directions
// in one statement. An entity's outgoing relation names are found by a loose index scan (the
// recursive part seeks the next relation name after the last in the primary key), not by reading
// every connection: a notification has one connection per receipt, and listing its one relation
// name by DISTINCT over 100,000 of them took 10 ms. Parameters: the uuids, twice.
const RELATIONS: { readonly [Dialect in DialectName]: string } = {
  sqlite: `with recursive outgoing(uuid, relation) as (
      select seed.value, (select min(c.relation) from connections c where c.source_uuid = seed.value) from json_each(?) as seed
      union all
      select o.uuid, (select min(c.relation) from connections c where c.source_uuid = o.uuid and c.relation > o.relation)
      from outgoing o where o.relation is not null)
    select 1 as outgoing, uuid, relation, null as "sourceCollection" from outgoing where relation is not null
    union all
    select distinct 0, c.target_uuid, c.relation, e.collection from connections c join entities e on e.uuid = c.source_uuid
    where c.target_uuid in (select value from json_each(?))`,
  postgres: `with recursive outgoing(uuid, relation) as (
      select seed.value, (select min(c.relation) from connections c where c.source_uuid = seed.value) from jsonb_array_elements_text($1::jsonb) as seed(value)
      union all
      select o.uuid, (select min(c.relation) from connections c where c.source_uuid = o.uuid and c.relation > o.relation)
      from outgoing o where o.relation is not null)
    select 1 as outgoing, uuid, relation, null::text as "sourceCollection" from outgoing where relation is not null
    union all
    select distinct 0, c.target_uuid, c.relation, e.collection from connections c join entities e on e.uuid = c.source_uuid
    where c.target_uuid in (select jsonb_array_elements_text($2::jsonb))`,
};

/**
 * One relation name of one entity: from it (`outgoing` 1) or into it (0, from an entity of
 * `sourceCollection`).
 */
export interface RelationRow {
  readonly outgoing: number;
  readonly uuid: string;
  readonly relation: string;
  readonly sourceCollection: string | null;
}

/** The relation names of each of the entities `uuids`, both directions, in one statement. */
export async function findRelationNames(tx: Tx, uuids: readonly string[]): Promise<RelationRow[]> {
  const json = JSON.stringify(uuids);
  return await clientOf(tx).query<RelationRow>(RELATIONS[dialectOf(tx)], [json, json]);
}

// Entities whose stored JSON the database's JSON functions refuse to read. Writes are guarded
// (docs/api.md#limits), but a database written by an older version may hold one: SQLite's JSON
// functions stop at 1,000 levels of nesting and answer "malformed JSON" (older SQLite: "JSON
// nested too deep"), as they do for text that is not JSON, and one such row failed every query
// whose condition reads properties. PostgreSQL's jsonb holds deep documents and its functions
// read them, and it never holds text that is not JSON: there the first query is the only one.

const UNREADABLE_JSON = new Set(['malformed JSON', 'JSON nested too deep']);

/** Whether a query failed because a stored row's JSON could not be read (maybe under drizzle's error). */
export function isUnreadableJsonError(error: unknown): boolean {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause ?? (error as { code?: unknown; message?: unknown });
  return cause?.code === 'SQLITE_ERROR' && UNREADABLE_JSON.has(String(cause.message));
}

/**
 * `condition`, read only for rows whose properties (`column`: entities.properties, or that column
 * under another name) are JSON the database can read, and false for the others: a CASE, because
 * SQLite may evaluate the terms of an AND in any order.
 */
function onReadableProperties(condition: SQL | undefined, column: SQLWrapper = sqliteEntities.properties): SQL {
  return sql`(case when json_valid(${column}) then ${condition ?? sql`1`} else 0 end)`;
}

/** Keeps a condition on entity properties to the rows whose JSON the database can read. */
export type Guard = (condition: SQL | undefined, column?: SQLWrapper) => SQL | undefined;

/**
 * Runs `query` with its conditions on entity properties as they are; when SQLite cannot read a
 * stored row's JSON, once more with `guard` keeping those conditions to the rows it can read.
 * `skipped`: the second run was needed, so unreadable rows were passed over.
 */
export async function skippingUnreadable<T>(query: (guard: Guard) => Promise<T>): Promise<{ result: T; skipped: boolean }> {
  try {
    return { result: await query((condition) => condition), skipped: false };
  } catch (error) {
    if (!isUnreadableJsonError(error)) throw error;
    return { result: await query(onReadableProperties), skipped: true };
  }
}

/** The condition matching rows whose properties the database cannot read. */
export const unreadableProperties = (): SQL => sql`not json_valid(${sqliteEntities.properties})`;
