/**
 * The total order of a query's results, shared by the SQL compiler, the in-memory evaluator and the
 * cursors. Without `order by` results are newest first (docs/api.md#queries-and-paging); `uuid` is
 * always the last key, in the direction of the key before it, so no two entities tie and keyset
 * paging never skips or repeats one.
 *
 * A property may hold different types in different entities. Its sort key is then a pair: a
 * type rank (numbers, then strings, then booleans, then everything else — missing, null, objects,
 * arrays — always in this order, so entities lacking the property come last in both directions)
 * and the value within the type, ordered in the requested direction. Strings order
 * case-insensitively, by code point of the folded text.
 */
import type { Direction, OrderKey, Query } from './ast.js';
import { compareText, foldCase } from './functions.js';
import { readProperty, resolveProperty, valueTypeOf, type EntityRecord, type PropertySource } from './properties.js';

export const DEFAULT_ORDER: readonly OrderKey[] = [{ property: 'created', direction: 'desc' }];

export const TYPE_RANK = { number: 1, string: 2, boolean: 3, none: 4 } as const;

export interface SortKey {
  readonly property: string;
  readonly direction: Direction;
  readonly source: PropertySource;
}

/**
 * Per sort key: a column's value (`type` folded; `uuid` as stored, since it is the unique
 * tie-breaker), or for a JSON property `[rank, value]` with the number, the folded string,
 * 0/1 for booleans, or null for the last rank.
 */
export type SortValue = number | string | readonly [rank: number, value: number | string | null];

export function sortKeys(query: Query): SortKey[] {
  const written = query.orderBy.length > 0 ? query.orderBy : DEFAULT_ORDER;
  const keys: SortKey[] = [];
  for (const key of written) {
    keys.push({ property: key.property, direction: key.direction, source: resolveProperty(key.property) });
    // uuid is unique: nothing after it can ever decide.
    if (key.property === 'uuid') return keys;
  }
  const last = keys[keys.length - 1];
  keys.push({ property: 'uuid', direction: last.direction, source: resolveProperty('uuid') });
  return keys;
}

/** Identifies an order, so a cursor is only ever applied to the order it was made for. */
export function orderSignature(keys: readonly SortKey[]): string {
  return keys.map((key) => `${key.property} ${key.direction}`).join(',');
}

export function sortValuesOf(entity: EntityRecord, keys: readonly SortKey[]): SortValue[] {
  return keys.map((key) => {
    if (key.source.kind === 'column') {
      const value = entity[key.source.column];
      return typeof value === 'string' && key.source.column !== 'uuid' ? foldCase(value) : value;
    }
    const value = readProperty(entity, key.property);
    switch (valueTypeOf(value)) {
      case 'number':
        return [TYPE_RANK.number, Number(value)];
      case 'string':
        return [TYPE_RANK.string, foldCase(String(value))];
      case 'boolean':
        return [TYPE_RANK.boolean, value === true ? 1 : 0];
      default:
        return [TYPE_RANK.none, null];
    }
  });
}

export function compareSortValues(keys: readonly SortKey[], a: readonly SortValue[], b: readonly SortValue[]): number {
  for (let i = 0; i < keys.length; i++) {
    const x = a[i];
    const y = b[i];
    let order: number;
    if (typeof x === 'object' && typeof y === 'object') {
      order = x[0] - y[0] || directed(keys[i].direction, compareScalars(x[1], y[1]));
    } else {
      order = directed(keys[i].direction, compareScalars(x, y));
    }
    if (order !== 0) return order;
  }
  return 0;
}

function directed(direction: Direction, order: number): number {
  return direction === 'asc' ? order : -order;
}

// Equal ranks hold values of one type; across types numbers sort first, as in SQLite.
function compareScalars(x: unknown, y: unknown): number {
  if (typeof x === 'number' && typeof y === 'number') return x < y ? -1 : x > y ? 1 : 0;
  if (typeof x === 'string' && typeof y === 'string') return compareText(x, y);
  return scalarRank(x) - scalarRank(y);
}

function scalarRank(value: unknown): number {
  if (value === null || value === undefined) return 0;
  return typeof value === 'number' ? 1 : 2;
}
