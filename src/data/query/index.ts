/**
 * The Usergrid query language (docs/api.md#queries-and-paging): parse → AST → SQL, plus the same
 * semantics in memory. Pure: no I/O, no database handle.
 *
 * A collection read (GET /{org}/{app}/{collection}?ql=…&limit=…&cursor=…):
 *
 *   const query = parseQuery(ql);                                   // 400 query_parse
 *   const { where, orderBy, select } = compileQuery(query, { dialect: dialectOf(db), cursor }); // 400 illegal_argument
 *   const rows = await db.all(sql`SELECT … FROM entities WHERE app_uuid = ${app} AND collection = ${name}
 *                            AND ${where} ORDER BY ${orderBy} LIMIT ${limit + 1}`);
 *   const page = rows.slice(0, limit).map(toEntityRecord);          // {uuid, type, created, modified, ...properties}
 *   const next = rows.length > limit ? encodeCursor(query, page[page.length - 1]) : undefined;
 *   const entities = page.map((entity) => projectEntity(entity, select));
 */
export type { PropertyPath, Query } from './ast.js';
export { parseQuery } from './parse.js';
export { compileQuery } from './compile.js';
export { encodeCursor } from './cursor.js';
export { projectEntity } from './evaluate.js';
export type { EntityRecord } from './properties.js';
