/**
 * The compiled SQL, run on a real database — SQLite, or PostgreSQL when IDP_TEST_DATABASE_URL is
 * set — returns exactly what the in-memory reference (matchesQuery + compareEntities) returns:
 * same entities, same order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { SQLiteSyncDialect } from 'drizzle-orm/sqlite-core';
import { compileQuery } from '../../src/data/query/compile.js';
import { parseQuery } from '../../src/data/query/parse.js';
import type { EntityRecord } from '../../src/data/query/properties.js';
import { entitiesArbitrary, queryArbitrary, type GeneratedEntity } from './arbitraries.js';
import { openQueryDatabase, reference, type QueryDatabase } from './database.js';

let database: QueryDatabase;
// Hundreds of generated cases, each a round of statements on the database (PostgreSQL included).
const DATABASE_PROPERTY_TIMEOUT = 300_000;
beforeAll(async () => {
  database = await openQueryDatabase();
});
afterAll(async () => database.close());

const uuids = (records: readonly EntityRecord[]): string[] => records.map((record) => record.uuid);

describe('compiled SQL versus the reference evaluator', () => {
  it(
    'selects and orders exactly like matchesQuery + compareEntities, through the property index or not',
    async () => {
      await fc.assert(
        fc.asyncProperty(entitiesArbitrary, fc.array(queryArbitrary, { minLength: 1, maxLength: 6 }), async (entities, queries) => {
          await database.replaceEntities(entities);
          for (const query of queries) {
            const expected = reference(query, entities);
            for (let narrowing = 0; narrowing < database.narrowings(query); narrowing++) {
              expect(uuids(await database.select(query, { narrowing }))).toEqual(expected);
            }
            expect(uuids(await database.select(query, { index: false }))).toEqual(expected);
          }
        }),
        { numRuns: 400 },
      );
    },
    DATABASE_PROPERTY_TIMEOUT,
  );

  const fixture: GeneratedEntity[] = [
    { a: 1, name: 'Fred', title: 'The quick brown fox', location: { latitude: 37.7749, longitude: -122.4194 } },
    { a: '1', name: 'fred', title: 'quick-witted Foxes', location: { latitude: 37.8044, longitude: -122.2712 } },
    { a: true, name: 'FREDERICK', title: 'Über café', location: { latitude: 34.0522, longitude: -118.2437 } },
    { a: 2.5, name: 'alice', n: { x: 'deep' } },
    { name: 'Ünïcode', a: null },
  ].map((properties, i) => ({
    properties,
    record: { ...properties, uuid: `0000000${i}-0000-4000-8000-000000000000`, type: 'dog', created: 1000 * (i % 3), modified: 5 - i },
  }));

  const examples: { ql: string; expected: number[] }[] = [
    { ql: '', expected: [2, 4, 1, 3, 0] },
    { ql: 'a = 1', expected: [0] },
    { ql: "a = '1'", expected: [1] },
    { ql: 'a = true', expected: [2] },
    { ql: 'a > 0', expected: [3, 0] },
    { ql: "name = 'FRED'", expected: [1, 0] },
    { ql: "name = 'fre*'", expected: [2, 1, 0] },
    { ql: "name > 'f' order by name", expected: [0, 1, 2, 4] },
    { ql: "title contains 'QUICK'", expected: [1, 0] },
    { ql: "title contains 'fox'", expected: [0] },
    { ql: "title contains 'fox*'", expected: [1, 0] },
    { ql: "title contains 'brown fox'", expected: [0] },
    { ql: "title contains 'cafe'", expected: [] },
    { ql: "title contains 'CAFÉ'", expected: [2] },
    { ql: 'location within 20000 of 37.7749, -122.4194', expected: [1, 0] },
    { ql: 'location within 100 of 37.7749, -122.4194', expected: [0] },
    { ql: 'not a = 1', expected: [2, 4, 1, 3] },
    { ql: 'not n.x = 1', expected: [2, 4, 1, 3, 0] },
    { ql: "n.x = 'DEEP'", expected: [3] },
    { ql: 'a = 1 or a = true order by created asc', expected: [0, 2] },
    { ql: 'order by a', expected: [0, 3, 1, 2, 4] },
    { ql: 'order by a desc', expected: [3, 0, 1, 2, 4] },
    { ql: 'order by modified', expected: [4, 3, 2, 1, 0] },
    { ql: 'uuid = 00000003-0000-4000-8000-000000000000', expected: [3] },
    { ql: "type = 'DOG' and created >= 1000 order by created asc, name desc", expected: [4, 1, 2] },
  ];

  it.each(examples)('$ql', async ({ ql, expected }) => {
    await database.replaceEntities(fixture);
    const query = parseQuery(ql);
    const expectedUuids = expected.map((i) => fixture[i].record.uuid);
    expect(uuids(await database.select(query))).toEqual(expectedUuids);
    expect(reference(query, fixture)).toEqual(expectedUuids);
  });

  it('binds every user value as a parameter', () => {
    const hostile = "x') OR 1=1 --";
    const query = parseQuery(`name = '${hostile.replace(/'/g, "\\'")}' or title contains 'drop*' or a < 3 order by name`);
    const compiled = compileQuery(query, { dialect: 'sqlite' });
    const { sql: text, params } = new SQLiteSyncDialect().sqlToQuery(compiled.where);
    expect(text).not.toContain('OR 1=1');
    expect(text).not.toContain('drop');
    expect(params).toEqual(expect.arrayContaining([hostile.toLowerCase(), 'drop', 3]));
  });

  it('qualifies columns with the table alias given', () => {
    const compiled = compileQuery(parseQuery('created > 5 and a = 1'), { dialect: 'sqlite', table: 'e' });
    const dialect = new SQLiteSyncDialect();
    expect(dialect.sqlToQuery(compiled.where).sql).toContain('"e"."created"');
    expect(dialect.sqlToQuery(compiled.where).sql).toContain('"e"."properties"');
    expect(dialect.sqlToQuery(compiled.orderBy).sql).toBe('"e"."created" DESC, "e"."uuid" DESC');
  });

  it('stays within SQLite limits for the largest accepted query', async () => {
    await database.replaceEntities(fixture);
    const ql = `${'('.repeat(16)}${Array.from({ length: 999 }, (_, i) => `a = ${i}`).join(' or ')}${')'.repeat(16)} order by a, b, c, d, e, f, g, h`;
    const query = parseQuery(ql);
    expect(uuids(await database.select(query))).toEqual(reference(query, fixture));
  });

  it('stays within SQLite limits for a band of the most bounds a query accepts, read through the property index', async () => {
    await database.replaceEntities(fixture);
    // One band of 1,000 bounds on `a`: its array elements' candidates intersect a set per bound.
    const query = parseQuery(Array.from({ length: 1000 }, (_, i) => `a >= ${-i}`).join(' and '));
    expect(await database.narrowings(query)).toBe(1);
    expect(uuids(await database.select(query))).toEqual(reference(query, fixture));
  });
});
