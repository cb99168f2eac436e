/**
 * The syntax tree of a Usergrid query (docs/api.md#queries-and-paging):
 * `[select * | select a, b.c] [where] condition [order by p [asc|desc], …]`.
 * `parseQuery` builds it; `compileQuery` turns it into SQL and `matchesQuery` evaluates it in
 * memory, so the tree carries meaning, not spelling: `eq` and `=` are the same operator, and
 * `name = 'fr*'` is already a `prefix` condition.
 */

/** A property path as written, segments joined by dots: `name`, `location.latitude`. */
export type PropertyPath = string;

export type Literal =
  | { readonly kind: 'number'; readonly value: number }
  | { readonly kind: 'string'; readonly value: string }
  | { readonly kind: 'boolean'; readonly value: boolean }
  // An unquoted UUID, lower-cased. It compares as a string, as a quoted UUID would.
  | { readonly kind: 'uuid'; readonly value: string };

export type ComparisonOperator = '=' | '<' | '<=' | '>' | '>=';

export type Condition =
  | {
      readonly kind: 'compare';
      readonly property: PropertyPath;
      readonly operator: ComparisonOperator;
      readonly value: Literal;
    }
  // `prop = 'abc*'`: the string property starts with `prefix` (case-insensitive), as in Usergrid.
  | { readonly kind: 'prefix'; readonly property: PropertyPath; readonly prefix: string }
  // `prop contains 'some words'` / `'wor*'`: the words of `term` occur in the string property
  // in this order; with `prefix` the last one only needs to start a word.
  | { readonly kind: 'contains'; readonly property: PropertyPath; readonly term: string; readonly prefix: boolean }
  // `prop within METERS of LAT, LON`: `prop.latitude` / `prop.longitude` lie within the circle.
  | {
      readonly kind: 'within';
      readonly property: PropertyPath;
      readonly meters: number;
      readonly latitude: number;
      readonly longitude: number;
    }
  | { readonly kind: 'not'; readonly condition: Condition }
  | { readonly kind: 'and'; readonly conditions: readonly Condition[] }
  | { readonly kind: 'or'; readonly conditions: readonly Condition[] };

export type Direction = 'asc' | 'desc';

export interface OrderKey {
  readonly property: PropertyPath;
  readonly direction: Direction;
}

export interface Query {
  /** The selected property paths; `null` for `select *` or no select clause. */
  readonly select: readonly PropertyPath[] | null;
  /** `null` when the query has no condition: every entity matches. */
  readonly where: Condition | null;
  /** As written; empty means the default order (see `sortKeys` in order.ts). */
  readonly orderBy: readonly OrderKey[];
}
