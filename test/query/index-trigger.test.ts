/**
 * PostgreSQL's one index trigger (migration …_index_entity_trigger.sql,
 * docs/design.md#keeping-the-indexes-on-postgresql) on a database the three triggers before it
 * indexed: the migration keeps the rows they wrote, and the trigger writes the same rows again for
 * the same entities — property rows, words and boxes alike — and removes them with the entity,
 * whether it is deleted itself or with its application. Since …_index_entities_per_statement.sql
 * the rows of an INSERT's entities are written once per statement: the same rows, for entities of
 * several collections in one statement too.
 */
import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Database_ } from '../../src/db/open.js';
import { execute } from '../../src/db/run.js';
import { APP } from './database.js';
import { entityProperties, UUID_POOL } from './arbitraries.js';
import { acrossMigration } from './older-database.js';
import { selectRows, TEST_DATABASE_URL } from '../database.js';

/**
 * Every row of the three indexes, as text, in one order; not the rows of arrays' elements, which
 * the triggers before …_array_elements.sql did not write (property-index.test.ts checks them).
 */
async function indexRows(handle: Database_): Promise<string[]> {
  const rows = await selectRows<{ row: string }>(
    handle.db,
    sql`SELECT 'value ' || entity_uuid || ' ' || path || ' ' || collection || ' ' || kind || ' ' || coalesce(num::text, '-') || ' ' || coalesce(text, '-') AS row FROM entity_values
        WHERE right(path, 2) <> '[]'
        UNION ALL SELECT 'words ' || entity_uuid || ' ' || words::text FROM entity_words
        UNION ALL SELECT 'box ' || entity_uuid || ' ' || collection || ' ' || bounds::text FROM entity_locations`,
  );
  return rows.map((row) => row.row).sort();
}

// Every kind of property the query tests write — nested, non-ASCII, NUL-free strings, locations — and
// one left out of the property index by the collection's settings.
const PROPERTIES = [
  ...fc.sample(entityProperties, { numRuns: 40, seed: 24 }),
  { name: 'Zoë', about: 'ÜBER straße and İstanbul', secret: 'hidden', nested: { secret: 1, deep: { deeper: { deepest: 'x' } } } },
  { location: { latitude: 59.91, longitude: 10.75 }, title: 'Oslo' },
  { location: { latitude: 91, longitude: 0 } },
  {},
];

describe.skipIf(TEST_DATABASE_URL === undefined)('the index trigger of PostgreSQL', () => {
  it('keeps the index of an older database, and writes the rows the triggers before it wrote', async () => {
    let before: string[] = [];
    const insert = (handle: Database_, uuid: string, properties: Record<string, unknown>) =>
      execute(
        handle.db,
        sql`INSERT INTO entities (uuid, app_uuid, collection, type, properties, created, modified) VALUES (${uuid}, ${APP}, 'dogs', 'dog', ${JSON.stringify(properties)}, 0, 0)`,
      );
    await acrossMigration(
      '_index_entity_trigger',
      async (older) => {
        await execute(older.db, sql`INSERT INTO unindexed_paths (app_uuid, collection, path) VALUES (${APP}, 'dogs', 'secret')`);
        for (const [i, properties] of PROPERTIES.entries()) await insert(older, UUID_POOL[i], properties);
        before = await indexRows(older);
      },
      async (after) => {
        const located = PROPERTIES.length - 3;
        expect(before.filter((row) => row.startsWith(`box ${UUID_POOL[located]} `) || row.startsWith(`box ${UUID_POOL[located + 1]} `))).toHaveLength(2);
        expect(before.some((row) => row.includes(' secret '))).toBe(false);
        expect(await indexRows(after)).toEqual(before);
        // Written again by the new trigger: the same rows.
        await execute(after.db, sql`UPDATE entities SET properties = properties || '{}'::jsonb`);
        expect(await indexRows(after)).toEqual(before);
        await execute(after.db, sql`DELETE FROM entities`);
        expect(await indexRows(after)).toEqual([]);
        for (const [i, properties] of PROPERTIES.entries()) await insert(after, UUID_POOL[i], properties);
        expect(await indexRows(after)).toEqual(before);
        // An application's deletion takes its entities (a foreign key cascades), and they their rows.
        await execute(after.db, sql`DELETE FROM applications WHERE uuid = ${APP}`);
        expect(await indexRows(after)).toEqual([]);
      },
    );
  });

  it('indexes the entities of one INSERT together, with the rows the trigger of each row wrote', async () => {
    // The same properties in `cats`, whose settings leave nothing out, beside `dogs`, which leave out `secret`.
    const entities = PROPERTIES.flatMap((properties, i) => [
      { uuid: UUID_POOL[i]!, collection: 'dogs', properties, created: i },
      { uuid: `cat-${i}`, collection: 'cats', properties, created: 1000 + i },
    ]);
    const values = (list: typeof entities) =>
      sql.join(
        list.map(({ uuid, collection, properties, created }) => sql`(${uuid}, ${APP}, ${collection}, 'pet', ${JSON.stringify(properties)}, ${created}, 0)`),
        sql`, `,
      );
    const insert = (handle: Database_, list: typeof entities) =>
      execute(handle.db, sql`INSERT INTO entities (uuid, app_uuid, collection, type, properties, created, modified) VALUES ${values(list)}`);
    let before: string[] = [];
    await acrossMigration(
      '_index_entities_per_statement',
      async (older) => {
        await execute(older.db, sql`INSERT INTO unindexed_paths (app_uuid, collection, path) VALUES (${APP}, 'dogs', 'secret')`);
        for (const entity of entities) await insert(older, [entity]);
        before = await indexRows(older);
      },
      async (after) => {
        const secrets = before.filter((row) => row.startsWith('value ') && row.includes(' secret '));
        expect(secrets.length).toBeGreaterThan(0);
        expect(secrets.every((row) => row.startsWith('value cat-'))).toBe(true);
        const oslo = PROPERTIES.length - 3;
        expect(before.filter((row) => row.startsWith(`box cat-${oslo} `) || row.startsWith(`box cat-${oslo + 1} `))).toHaveLength(2);
        expect(before.filter((row) => row.startsWith('words cat-')).length).toBeGreaterThan(10);
        expect(await indexRows(after)).toEqual(before);
        await execute(after.db, sql`DELETE FROM entities`);
        expect(await indexRows(after)).toEqual([]);
        // All of them in one statement, and then in statements of a few each.
        await insert(after, entities);
        expect(await indexRows(after)).toEqual(before);
        await execute(after.db, sql`DELETE FROM entities`);
        for (let from = 0; from < entities.length; from += 7) await insert(after, entities.slice(from, from + 7));
        expect(await indexRows(after)).toEqual(before);
        // An INSERT of no row, and updates of every entity, leave the same rows.
        await execute(after.db, sql`INSERT INTO entities SELECT * FROM entities WHERE false`);
        await execute(after.db, sql`UPDATE entities SET properties = properties || '{}'::jsonb`);
        expect(await indexRows(after)).toEqual(before);
        // An INSERT that fails writes no index row.
        await expect(insert(after, [entities[0]!, { ...entities[1]!, uuid: 'new-cat' }])).rejects.toThrow();
        expect(await indexRows(after)).toEqual(before);
      },
    );
  });
});
