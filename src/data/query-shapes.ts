/**
 * The statements of a collection read, rendered once per shape of query and run again with the
 * numbers of the next query of that shape (docs/design.md#statements-by-query-shape): `where
 * age = 7` and `where age = 8` share one entry. Compiling a query and having drizzle build and
 * render its statements cost more than SQLite takes to answer a selective one. Measured on
 * `where age = 7` over 10,000 entities, 50 connections, in interleaved pairs against the same
 * code without it: SQLite 509–557 → 323–398 µs CPU per request, PostgreSQL 423–501 → 251–421
 * (docs/benchmarks.md#selective-queries-statements-by-query-shape).
 *
 * Which parameter of a statement is which number of the query is not assumed but observed: a
 * shape's statements are built twice, from the query and from a copy whose numbers are moved
 * each by a distinct step (`neighbour`). The texts must be equal; a parameter that is a query's
 * number in the first and its moved number in the second is that number, every other one must be
 * equal in both and stays fixed. Anything else (a number turned into another value, as
 * PostgreSQL's `@>` hint writes it into a JSON document) leaves the shape uncached, read the
 * plain way. What compiling may branch on, besides the written query, is in the key: whether a
 * number is whole and its sign, and a bound on its size (PostgreSQL compares whole numbers with
 * integer columns differently, and very large ones as doubles; dialect.ts). A dialect that starts
 * to branch on anything else of a number's value must add it to `numberClass`.
 */
import type { Condition, Query } from './query/ast.js';
import type { DialectName } from './query/dialect.js';
import { TextCache } from '../db/driver.js';

/** A rendered statement: its SQL text and parameters. */
export interface Rendered {
  readonly sql: string;
  readonly params: readonly unknown[];
}

/** A rendered statement of a shape: its parameters either fixed or the query's `slot`th number. */
export interface ShapedStatement {
  readonly sql: string;
  readonly params: readonly ({ readonly value: unknown } | { readonly slot: number })[];
}

/** A query's shape: the cache key, its numbers in the order of the key's slots, and the copy with moved numbers. */
export interface QueryShape {
  readonly key: string;
  readonly numbers: readonly number[];
  readonly moved: Query;
}

// Numbers this large and larger stay written in the key: adding a step to one may round, and PostgreSQL compares integers from 2^53 on as doubles.
const SLOT_BOUND = 2 ** 52;

/** What compiling may branch on in a number (see above); null when the number stays written in the key. */
function numberClass(value: number): string | null {
  if (value === 0 || !Number.isFinite(value) || Math.abs(value) >= SLOT_BOUND) return null;
  return `${Number.isInteger(value) ? 'whole' : 'fraction'}${value < 0 ? '-' : '+'}`;
}

/** The `slot`th number moved away from zero by slot + 1: distinct from every other number moved so, of the same sign and class. */
function neighbour(value: number, slot: number): number {
  return value + Math.sign(value) * (slot + 1);
}

/**
 * The shape of `query` read in `scope` (the collection) with a LIMIT of `limit` on `dialect`:
 * the numbers compared with are its slots, everything else is written in the key.
 */
export function shapeOf(query: Query, dialect: DialectName, scope: string, limit: number): QueryShape {
  const numbers: number[] = [];
  // In the key a slot's number is written as its class, an object where the tree has only numbers.
  const where =
    query.where === null
      ? null
      : mapNumbers(query.where, (value) => {
          const slot = numberClass(value);
          // JSON writes -0 as 0.
          if (slot === null) return Object.is(value, -0) ? { written: '-0' } : value;
          numbers.push(value);
          return { slot };
        });
  let slot = 0;
  const moved =
    query.where === null
      ? query
      : { ...query, where: mapNumbers(query.where, (value) => (numberClass(value) === null ? value : neighbour(value, slot++))) as Condition };
  return { key: JSON.stringify([dialect, scope, limit, query.select, query.orderBy, where]), numbers, moved };
}

/** `condition` with the number of each comparison replaced by `map` of it, left to right. */
function mapNumbers(condition: Condition, map: (value: number) => unknown): unknown {
  switch (condition.kind) {
    case 'compare':
      return condition.value.kind === 'number' ? { ...condition, value: { kind: 'number', value: map(condition.value.value) } } : condition;
    case 'not':
      return { ...condition, condition: mapNumbers(condition.condition, map) };
    case 'and':
    case 'or':
      return { ...condition, conditions: condition.conditions.map((part) => mapNumbers(part, map)) };
    default:
      return condition;
  }
}

/**
 * One statement of a shape from its renderings for the query (`actual`) and for the moved copy
 * (`moved`) of `shape`; null when they do not show each number as a parameter of its own.
 */
export function shapeStatement(shape: QueryShape, actual: Rendered, moved: Rendered): ShapedStatement | null {
  if (actual.sql !== moved.sql || actual.params.length !== moved.params.length) return null;
  const params: ShapedStatement['params'][number][] = [];
  for (const [i, value] of actual.params.entries()) {
    const other = moved.params[i];
    if (typeof value === 'object' && value !== null) return null;
    if (Object.is(value, other)) {
      params.push({ value });
      continue;
    }
    const slot = shape.numbers.findIndex((number, n) => Object.is(number, value) && Object.is(neighbour(number, n), other));
    if (slot < 0) return null;
    params.push({ slot });
  }
  return { sql: actual.sql, params };
}

/** A shaped statement's parameters for a query of its shape with `numbers`. */
export function paramsOf(statement: ShapedStatement, numbers: readonly number[]): unknown[] {
  return statement.params.map((param) => ('slot' in param ? numbers[param.slot] : param.value));
}

/** Shapes kept per database; beyond this the oldest is dropped. */
const SHAPES_KEPT = 500;

/**
 * The shapes of one database (`owner`: its driver), each with what `make` built for it from the
 * query that met it first, or null when it is not cached.
 */
export function shapeCache<T>(): (owner: object, key: string, make: () => T | null) => T | null {
  const caches = new WeakMap<object, TextCache<T | null>>();
  return (owner, key, make) => {
    let cache = caches.get(owner);
    if (cache === undefined) caches.set(owner, (cache = new TextCache<T | null>(SHAPES_KEPT)));
    return cache.get(key, make);
  };
}
