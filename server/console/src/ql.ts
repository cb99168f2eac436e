/**
 * A column's sort as a ql `order by` (docs/api.md#queries-and-paging): the query the user typed
 * keeps its selection and its condition; its own `order by`, if it has one, gives way to the
 * column's. Words inside single-quoted strings are never taken for the clause.
 */

export type Direction = 'asc' | 'desc';

export interface Sort {
  property: string;
  direction: Direction;
}

/** Where the query's `order by` starts (outside quotes), or -1. */
function orderByAt(ql: string): number {
  const pattern = /\border\s+by\b/iy;
  let quoted = false;
  for (let index = 0; index < ql.length; index++) {
    if (ql[index] === "'") quoted = !quoted;
    if (quoted) continue;
    pattern.lastIndex = index;
    if (pattern.test(ql)) return index;
  }
  return -1;
}

/** `ql` ordered by `sort` alone: `name = 'x' order by age` → `name = 'x' order by modified desc`. */
export function withOrder(ql: string, sort: Sort): string {
  const at = orderByAt(ql);
  const rest = (at === -1 ? ql : ql.slice(0, at)).trim();
  const clause = `order by ${sort.property} ${sort.direction}`;
  return rest === '' ? clause : `${rest} ${clause}`;
}

/** The first term of the query's `order by`, if it has one. */
export function orderOf(ql: string): Sort | undefined {
  const at = orderByAt(ql);
  if (at === -1) return undefined;
  const match = /^order\s+by\s+([\w.-]+)(?:\s+(asc|desc))?/i.exec(ql.slice(at));
  if (match === null) return undefined;
  return { property: match[1], direction: (match[2]?.toLowerCase() as Direction | undefined) ?? 'asc' };
}
