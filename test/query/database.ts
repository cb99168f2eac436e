/**
 * A real database (real migrations, real SQL functions) holding one application's `dogs`
 * collection, for running compiled queries against the in-memory reference: SQLite :memory:, or
 * a fresh PostgreSQL schema when IDP_TEST_DATABASE_URL is set (test/database.ts).
 */
import { sql } from 'drizzle-orm';
import type { Database_ } from '../../src/db/open.js';
import { dialectOf } from '../../src/db/open.js';
import { execute, sqlOf } from '../../src/db/run.js';
import { compileQuery } from '../../src/data/query/compile.js';
import type { Query } from '../../src/data/query/ast.js';
import { compareEntities, matchesQuery } from '../../src/data/query/evaluate.js';
import { readInIndexOrder } from '../../src/data/read-in-index-order.js';
import { readInCreatedOrder } from '../../src/data/read-in-created-order.js';
import type { EntityRow } from '../../src/db/entity-store.js';
import type { EntityRecord } from '../../src/data/query/properties.js';
import { openTestDatabase } from '../database.js';
import type { GeneratedEntity } from './arbitraries.js';

const ORG = '00000000-0000-4000-8000-00000000000a';
export const APP = '00000000-0000-4000-8000-00000000000b';
export const COLLECTION = 'dogs';

export interface QueryDatabase {
  readonly handle: Database_;
  replaceEntities(entities: readonly GeneratedEntity[]): Promise<void>;
  insertEntity(entity: GeneratedEntity): Promise<void>;
  deleteEntity(uuid: string): Promise<void>;
  /**
   * Runs the compiled query; `limit` adds LIMIT. Rows come back as entity records. Conditions
   * find candidates through the property index whenever it has some (a collection read does
   * where they are few) — the `narrowing`th way, the first by default — unless `index` is false
   * (as a read of related entities does). `inIndexOrder` reads by walking the property index in
   * the order of the query's property instead (read-in-index-order.ts), with the exact condition;
   * `inCreatedOrder` reads the `narrowing`th way's candidates in created order
   * (read-in-created-order.ts), `limit` of them or all. `sharedByMany`: how many entities sharing
   * a value of the walked key are read by walking the next key, and `walkBudget` how far a walk
   * among fewer may go (read-in-index-order.ts).
   */
  select(
    query: Query,
    options?: {
      cursor?: string;
      limit?: number;
      index?: boolean;
      narrowing?: number;
      inIndexOrder?: boolean;
      inCreatedOrder?: boolean;
      sharedByMany?: number;
      walkBudget?: (sharing: number, wanted: number) => number | undefined;
    },
  ): Promise<EntityRecord[]>;
  /** How many ways the property index has to narrow `query` (compile.ts `narrowed`). */
  narrowings(query: Query): number;
  close(): Promise<void>;
}

interface Row {
  uuid: string;
  type: string;
  created: number;
  modified: number;
  properties: string;
}

const INSERT = sql`INSERT INTO entities (uuid, app_uuid, collection, type, properties, created, modified) VALUES `;

export async function openQueryDatabase(): Promise<QueryDatabase> {
  const handle = await openTestDatabase();
  const { driver, db } = handle;
  await execute(db, sql`INSERT INTO organizations (uuid, name, name_key, created, modified) VALUES (${ORG}, 'Org', 'org', 0, 0)`);
  await execute(db, sql`INSERT INTO applications (uuid, org_uuid, name, name_key, created, modified) VALUES (${APP}, ${ORG}, 'App', 'app', 0, 0)`);
  // Another collection of the same app: a query must never see it.
  await execute(db, sql`${INSERT}('ffffffff-0000-4000-8000-000000000000', ${APP}, 'cats', 'cat', ${JSON.stringify({ a: 1, name: 'fred' })}, 0, 0)`);
  const values = ({ record, properties }: GeneratedEntity) =>
    sql`(${record.uuid}, ${APP}, ${COLLECTION}, ${record.type}, ${JSON.stringify(properties)}, ${record.created}, ${record.modified})`;
  const insertEntity = async (entity: GeneratedEntity): Promise<void> => {
    await execute(db, sql`${INSERT}${values(entity)}`);
  };
  return {
    handle,
    async replaceEntities(entities) {
      await db.transaction(async () => {
        await execute(db, sql`DELETE FROM entities WHERE collection = ${COLLECTION}`);
        if (entities.length === 0) return;
        // One statement for all rows: a round trip each would dominate the property tests on PostgreSQL.
        await execute(db, sql`${INSERT}${sql.join(entities.map(values), sql`, `)}`);
      });
    },
    insertEntity,
    async deleteEntity(uuid) {
      await execute(db, sql`DELETE FROM entities WHERE uuid = ${uuid}`);
    },
    async select(query, options = {}) {
      const index = options.index === false ? undefined : { appUuid: APP, collection: COLLECTION };
      const compiled = compileQuery(query, { dialect: dialectOf(db), cursor: options.cursor, index });
      const record = (row: EntityRow): EntityRecord => ({ ...row.properties, uuid: row.uuid, type: row.type, created: row.created, modified: row.modified });
      if (options.inCreatedOrder === true) {
        const candidates = compiled.narrowed[options.narrowing ?? 0]?.created;
        if (candidates === undefined || compiled.created === null) throw new Error('the candidates of this query cannot be read in created order');
        const rows = await readInCreatedOrder(
          db,
          {
            candidates,
            order: compiled.created,
            where: compiled.where,
            orderBy: compiled.orderBy,
            count: options.limit ?? Number.MAX_SAFE_INTEGER,
            counting: undefined,
            ran: [],
          },
          (condition) => condition,
        );
        return rows.map(record);
      }
      if (options.inIndexOrder === true) {
        if (compiled.ordered === null) throw new Error('the property index cannot give the order of this query');
        const compare = compareEntities(query);
        const rows = await readInIndexOrder(
          db,
          {
            order: compiled.ordered,
            compare: (a, b) => compare(record(a), record(b)),
            where: compiled.where,
            orderBy: compiled.orderBy,
            collection: sql`app_uuid = ${APP} AND collection = ${COLLECTION}`,
            count: options.limit ?? Number.MAX_SAFE_INTEGER,
            counting: undefined,
            ran: [],
            sharedByMany: options.sharedByMany,
            walkBudget: options.walkBudget,
          },
          (condition) => condition,
        );
        return rows.map(record);
      }
      const limit = options.limit === undefined ? sql`` : sql` LIMIT ${options.limit}`;
      const scope = compiled.narrowed[options.narrowing ?? 0]?.scope ?? sql`app_uuid = ${APP} AND collection = ${COLLECTION}`;
      const statement = sqlOf(
        db,
        sql`SELECT uuid, type, created, modified, properties FROM entities WHERE ${scope} AND ${compiled.where} ORDER BY ${compiled.orderBy}${limit}`,
      );
      const rows = await driver.query<Row>(statement.sql, statement.params);
      return rows.map((row) => {
        const properties: Record<string, unknown> = JSON.parse(row.properties);
        return { ...properties, uuid: row.uuid, type: row.type, created: row.created, modified: row.modified };
      });
    },
    narrowings: (query) => compileQuery(query, { dialect: dialectOf(db), index: { appUuid: APP, collection: COLLECTION } }).narrowed.length,
    close: () => handle.close(),
  };
}

/** The reference's answer (evaluate.ts): the uuids of the matching entities, in the query's order. */
export function reference(query: Query, entities: Iterable<GeneratedEntity>): string[] {
  return [...entities]
    .map((entity) => entity.record)
    .filter((record) => matchesQuery(query, record))
    .sort(compareEntities(query))
    .map((record) => record.uuid);
}
