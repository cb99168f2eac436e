/**
 * Where a property named in a query lives and what type its value has. `uuid`, `type`,
 * `created` and `modified` are columns of `entities`; every other path — `name` included, which
 * the entity layer also keeps in `properties` — is read from the JSON `properties`. Shared by
 * the compiler and the in-memory evaluator so both read the same place.
 */
import type { Literal, PropertyPath } from './ast.js';

/** The types a query compares; a value of another type (null, object) matches nothing, an array by its elements (evaluate.ts). */
export type ValueType = 'number' | 'string' | 'boolean';

export type ColumnName = 'uuid' | 'type' | 'created' | 'modified';

export type PropertySource =
  { readonly kind: 'column'; readonly column: ColumnName; readonly type: 'number' | 'string' } | { readonly kind: 'json'; readonly path: readonly string[] };

const COLUMNS: ReadonlyMap<string, PropertySource> = new Map<string, PropertySource>([
  ['uuid', { kind: 'column', column: 'uuid', type: 'string' }],
  ['type', { kind: 'column', column: 'type', type: 'string' }],
  ['created', { kind: 'column', column: 'created', type: 'number' }],
  ['modified', { kind: 'column', column: 'modified', type: 'number' }],
]);

export function resolveProperty(property: PropertyPath): PropertySource {
  return COLUMNS.get(property) ?? { kind: 'json', path: property.split('.') };
}

/** An entity as the evaluator sees it: the columns plus the JSON properties at the top level. */
export interface EntityRecord {
  readonly uuid: string;
  readonly type: string;
  readonly created: number;
  readonly modified: number;
  readonly [property: string]: unknown;
}

/** The value at a dotted path, descending through plain objects only, as JSON paths do. */
export function readProperty(entity: Readonly<Record<string, unknown>>, property: PropertyPath): unknown {
  let value: unknown = entity;
  for (const segment of property.split('.')) {
    if (!isPlainObject(value) || !Object.hasOwn(value, segment)) return undefined;
    value = value[segment];
  }
  return value;
}

export function valueTypeOf(value: unknown): ValueType | null {
  if (typeof value === 'number') return Number.isFinite(value) ? 'number' : null;
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'boolean';
  return null;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The paths the property and word indexes hold (docs/design.md#the-property-index): identifiers
 * joined by dots through objects, at most INDEXED_DEPTH deep and INDEXED_PATH_LENGTH characters.
 */
const INDEXED_SEGMENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
export const INDEXED_DEPTH = 3;
export const INDEXED_PATH_LENGTH = 128;

/** Whether the indexes hold `path` (a property path as a query names it, dotted): the paths `forEachIndexedValue` visits. */
export function isIndexedPath(path: string): boolean {
  if (path.length > INDEXED_PATH_LENGTH) return false;
  const segments = path.split('.');
  return segments.length <= INDEXED_DEPTH && segments.every((segment) => INDEXED_SEGMENT.test(segment));
}

/** An entity's stored properties (JSON text) as an object; null when the text is not a JSON object (such an entity has no index rows). */
export function parseStoredProperties(text: string): Record<string, unknown> | null {
  try {
    const parsed: unknown = JSON.parse(text);
    return isPlainObject(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

/**
 * Calls `visit` with each value of `properties` at a path the indexes hold, objects excepted,
 * which are descended instead: scalars, arrays and nulls.
 */
export function forEachIndexedValue(properties: Record<string, unknown>, visit: (path: string, value: unknown) => void): void {
  const descend = (object: Record<string, unknown>, prefix: string, depth: number): void => {
    for (const name of Object.keys(object)) {
      if (!INDEXED_SEGMENT.test(name)) continue;
      const path = prefix === '' ? name : `${prefix}.${name}`;
      const value = object[name];
      if (isPlainObject(value)) {
        if (depth < INDEXED_DEPTH) descend(value, path, depth + 1);
      } else if (path.length <= INDEXED_PATH_LENGTH) {
        visit(path, value);
      }
    }
  };
  descend(properties, '', 1);
}

/** The type a literal compares as: an unquoted UUID is a string. */
export function literalType(literal: Literal): ValueType {
  return literal.kind === 'uuid' ? 'string' : literal.kind;
}
