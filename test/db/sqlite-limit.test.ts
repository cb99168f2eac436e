/**
 * The SQLite driver keeps compiled statements by their text (src/db/sqlite.ts), so one statement
 * with a `LIMIT ?` runs with every limit it is given: each run returns as many rows as it asks for.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { asc } from 'drizzle-orm';
import { openDatabase, type Database_ } from '../../src/db/open.js';
import { organizations } from '../../src/db/schema.js';

let database: Database_;

beforeEach(async () => {
  database = await openDatabase({ path: ':memory:' });
  const rows = Array.from({ length: 30 }, (_, i) => {
    const name = `org${String(i).padStart(2, '0')}`;
    return {
      uuid: `01a20000-0000-7000-8000-0000000000${String(i).padStart(2, '0')}`,
      name,
      nameKey: name,
      activated: true,
      disabled: false,
      properties: {},
      created: i,
      modified: i,
    };
  });
  await database.db.insert(organizations).values(rows).run();
});

afterEach(async () => {
  await database.close();
});

describe('LIMIT parameters on SQLite', () => {
  it('returns as many rows as each run asks for, through one compiled statement', async () => {
    const page = (limit: number, offset = 0) =>
      database.db.select({ name: organizations.name }).from(organizations).orderBy(asc(organizations.created)).limit(limit).offset(offset).all();
    for (const limit of [1, 7, 30, 5, 100, 0]) expect(await page(limit)).toHaveLength(Math.min(limit, 30));
    expect((await page(3, 10)).map((row) => row.name)).toEqual(['org10', 'org11', 'org12']);
  });
});
