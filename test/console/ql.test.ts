/** The console's column sort as a ql `order by` (server/console/src/ql.ts), checked against the server's own parser. */
import { describe, expect, it } from 'vitest';
import { orderOf, withOrder } from '../../server/console/src/ql.js';
import { parseQuery } from '../../src/data/query/index.js';

describe('a column sort added to the typed ql', () => {
  it('adds an order by to an empty query, a condition, or a select', () => {
    expect(withOrder('', { property: 'name', direction: 'asc' })).toBe('order by name asc');
    expect(withOrder("  name = 'rex' ", { property: 'modified', direction: 'desc' })).toBe("name = 'rex' order by modified desc");
    expect(withOrder('select name where age > 2', { property: 'uuid', direction: 'asc' })).toBe('select name where age > 2 order by uuid asc');
  });

  it("replaces the query's own order by, in any case, but never words inside a quoted string", () => {
    expect(withOrder('age > 2 ORDER  BY age desc, name', { property: 'name', direction: 'asc' })).toBe('age > 2 order by name asc');
    const quoted = "title = 'order by me' order by created";
    expect(withOrder(quoted, { property: 'name', direction: 'desc' })).toBe("title = 'order by me' order by name desc");
    expect(withOrder("title = 'order by me'", { property: 'name', direction: 'desc' })).toBe("title = 'order by me' order by name desc");
    expect(withOrder("title = 'it''s' and recorder = 1", { property: 'name', direction: 'asc' })).toBe("title = 'it''s' and recorder = 1 order by name asc");
  });

  it('reads the first term of the order by, ascending when unsaid', () => {
    expect(orderOf('')).toBeUndefined();
    expect(orderOf("title = 'order by name'")).toBeUndefined();
    expect(orderOf('age > 1 order by name')).toEqual({ property: 'name', direction: 'asc' });
    expect(orderOf('order by modified DESC, name')).toEqual({ property: 'modified', direction: 'desc' });
  });

  it('makes queries the server parses, ordered as the column says', () => {
    for (const ql of ['', "name = 'rex'", "title = 'order by me' order by age desc", 'select * where age > 2']) {
      const query = parseQuery(withOrder(ql, { property: 'name', direction: 'desc' }));
      expect(query.orderBy, ql).toEqual([{ property: 'name', direction: 'desc' }]);
    }
  });
});
