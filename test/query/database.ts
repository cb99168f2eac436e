/**
 * A real database (real migrations, real SQL functions) holding one application's `dogs`
 * collection, for running compiled queries against the in-memory reference.
 */
import { sql } from 'drizzle-orm';
import { openDatabase, type Database_ } from '../../src/db/open.js';
import { compileQuery } from '../../src/data/query/compile.js';
import type { Query } from '../../src/data/query/ast.js';
import type { EntityRecord } from '../../src/data/query/properties.js';
import type { GeneratedEntity } from './arbitraries.js';

const ORG = '00000000-0000-4000-8000-00000000000a';
export const APP = '00000000-0000-4000-8000-00000000000b';
export const COLLECTION = 'dogs';

export interface QueryDatabase {
  readonly handle: Database_;
  replaceEntities(entities: readonly GeneratedEntity[]): void;
  insertEntity(entity: GeneratedEntity): void;
  deleteEntity(uuid: string): void;
  /** Runs the compiled query; `limit` adds LIMIT. Rows come back as entity records. */
  select(query: Query, options?: { cursor?: string; limit?: number }): EntityRecord[];
  close(): void;
}

interface Row {
  uuid: string;
  type: string;
  created: number;
  modified: number;
  properties: string;
}

export function openQueryDatabase(): QueryDatabase {
  const handle = openDatabase({ path: ':memory:' });
  handle.sqlite
    .prepare('INSERT INTO organizations (uuid, name, name_key, created, modified) VALUES (?, ?, ?, 0, 0)')
    .run(ORG, 'Org', 'org');
  handle.sqlite
    .prepare('INSERT INTO applications (uuid, org_uuid, name, name_key, created, modified) VALUES (?, ?, ?, ?, 0, 0)')
    .run(APP, ORG, 'App', 'app');
  const insert = handle.sqlite.prepare(
    'INSERT INTO entities (uuid, app_uuid, collection, type, properties, created, modified) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  // Another collection of the same app: a query must never see it.
  insert.run('ffffffff-0000-4000-8000-000000000000', APP, 'cats', 'cat', JSON.stringify({ a: 1, name: 'fred' }), 0, 0);
  const insertEntity = (entity: GeneratedEntity): void => {
    const { uuid, type, created, modified } = entity.record;
    insert.run(uuid, APP, COLLECTION, type, JSON.stringify(entity.properties), created, modified);
  };
  return {
    handle,
    replaceEntities(entities) {
      handle.sqlite.transaction(() => {
        handle.sqlite.prepare('DELETE FROM entities WHERE collection = ?').run(COLLECTION);
        entities.forEach(insertEntity);
      })();
    },
    insertEntity,
    deleteEntity(uuid) {
      handle.sqlite.prepare('DELETE FROM entities WHERE uuid = ?').run(uuid);
    },
    select(query, options = {}) {
      const compiled = compileQuery(query, { dialect: 'sqlite', cursor: options.cursor });
      const limit = options.limit === undefined ? sql`` : sql` LIMIT ${options.limit}`;
      const rows = handle.db.all<Row>(
        sql`SELECT uuid, type, created, modified, properties FROM entities WHERE app_uuid = ${APP} AND collection = ${COLLECTION} AND ${compiled.where} ORDER BY ${compiled.orderBy}${limit}`,
      );
      return rows.map((row) => {
        const properties: Record<string, unknown> = JSON.parse(row.properties);
        return { ...properties, uuid: row.uuid, type: row.type, created: row.created, modified: row.modified };
      });
    },
    close: () => handle.close(),
  };
}
