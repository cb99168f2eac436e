/**
 * The SQLite driver turns a bare `LIMIT ?` into `LIMIT ?+0` (src/db/sqlite.ts), so that SQLite does
 * not compile the statement again on every run; the rows a statement returns must not change.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { asc } from 'drizzle-orm';
import { openDatabase, type Database_ } from '../../src/db/open.js';
import { organizations } from '../../src/db/schema.js';
import { withLimitExpression } from '../../src/db/sqlite.js';

let database: Database_;

beforeEach(async () => {
  database = await openDatabase({ path: ':memory:' });
  const rows = Array.from({ length: 30 }, (_, i) => {
    const name = `org${String(i).padStart(2, '0')}`;
    return { uuid: `01a20000-0000-7000-8000-0000000000${String(i).padStart(2, '0')}`, name, nameKey: name, activated: true, disabled: false, properties: {}, created: i, modified: i };
  });
  await database.db.insert(organizations).values(rows).run();
});

afterEach(async () => {
  await database.close();
});

describe('LIMIT parameters on SQLite', () => {
  it('rewrites only a bare limit parameter', () => {
    expect(withLimitExpression('select id from t where a = ? limit ?')).toBe('select id from t where a = ? limit ?+0');
    expect(withLimitExpression('select id from (select id from t LIMIT ?) limit ? offset ?')).toBe('select id from (select id from t limit ?+0) limit ?+0 offset ?');
    for (const unchanged of ['select id from t limit 10', 'select id from t limit ?+0', 'select id from t where unlimit ? = 1']) expect(withLimitExpression(unchanged)).toBe(unchanged);
  });

  it('returns as many rows as each run asks for, through one compiled statement', async () => {
    const page = (limit: number, offset = 0) =>
      database.db.select({ name: organizations.name }).from(organizations).orderBy(asc(organizations.created)).limit(limit).offset(offset).all();
    for (const limit of [1, 7, 30, 5, 100, 0]) expect(await page(limit)).toHaveLength(Math.min(limit, 30));
    expect((await page(3, 10)).map((row) => row.name)).toEqual(['org10', 'org11', 'org12']);
  });
});
