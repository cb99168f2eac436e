/**
 * The query language evaluated in memory over entity objects. It is the reference the SQL
 * compiler is tested against (test/query/), and serves filtering where no SQL is involved.
 *
 * Comparisons follow Usergrid: a number only compares with numbers, a string only with strings
 * (case-insensitively), a boolean only with booleans; any other pairing — or a missing, null or
 * object value — does not match, and `not` of a non-match matches. An array is compared by
 * element: a comparison or a prefix matches an array when it matches one of the array's own
 * elements (docs/api.md#arrays), each on its own, so `tags = 'a' and tags = 'b'` is an array
 * holding both.
 */
import type { ComparisonOperator, Condition, Literal, PropertyPath, Query } from './ast.js';
import { compareText, containsWords, distanceMeters, foldCase, hasPrefix } from './functions.js';
import { compareSortValues, sortKeys, sortValuesOf } from './order.js';
import { isPlainObject, literalType, readProperty, valueTypeOf, type EntityRecord } from './properties.js';

export function matchesQuery(query: Query, entity: EntityRecord): boolean {
  return query.where === null || matchesCondition(query.where, entity);
}

/** The comparator of the query's order (order.ts): total, so sorting with it is deterministic. */
export function compareEntities(query: Query): (a: EntityRecord, b: EntityRecord) => number {
  const keys = sortKeys(query);
  return (a, b) => compareSortValues(keys, sortValuesOf(a, keys), sortValuesOf(b, keys));
}

/**
 * Applies a select list: a copy holding only the selected paths that exist, nested as in the
 * entity (`select location.latitude` gives `{location: {latitude}}`). `null` (`select *`) keeps
 * the whole entity.
 */
export function projectEntity(entity: Readonly<Record<string, unknown>>, select: readonly PropertyPath[] | null): Record<string, unknown> {
  if (select === null) return { ...entity };
  const paths = new Set(select);
  const projection: Record<string, unknown> = {};
  for (const path of paths) {
    const segments = path.split('.');
    // A selected ancestor already carries this path; descending into it would write into the
    // entity's own object.
    if (segments.some((_, i) => i > 0 && paths.has(segments.slice(0, i).join('.')))) continue;
    const value = readProperty(entity, path);
    if (value !== undefined) writePath(projection, segments, value);
  }
  return projection;
}

function writePath(target: Record<string, unknown>, segments: readonly string[], value: unknown): void {
  let node = target;
  for (const segment of segments.slice(0, -1)) {
    const child = Object.hasOwn(node, segment) ? node[segment] : undefined;
    if (isPlainObject(child)) {
      node = child;
    } else {
      const created: Record<string, unknown> = {};
      defineField(node, segment, created);
      node = created;
    }
  }
  defineField(node, segments[segments.length - 1], value);
}

// A plain assignment to `__proto__` would replace the prototype instead of adding a field.
function defineField(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function matchesCondition(condition: Condition, entity: EntityRecord): boolean {
  switch (condition.kind) {
    case 'and':
      return condition.conditions.every((part) => matchesCondition(part, entity));
    case 'or':
      return condition.conditions.some((part) => matchesCondition(part, entity));
    case 'not':
      return !matchesCondition(condition.condition, entity);
    case 'compare':
      return someValue(readProperty(entity, condition.property), (value) => compareMatches(value, condition.operator, condition.value));
    case 'prefix': {
      const prefix = foldCase(condition.prefix);
      return someValue(readProperty(entity, condition.property), (value) => typeof value === 'string' && hasPrefix(foldCase(value), prefix));
    }
    case 'contains': {
      const value = readProperty(entity, condition.property);
      return typeof value === 'string' && containsWords(value, condition.term, condition.prefix);
    }
    case 'within': {
      const latitude = readProperty(entity, `${condition.property}.latitude`);
      const longitude = readProperty(entity, `${condition.property}.longitude`);
      return (
        valueTypeOf(latitude) === 'number' &&
        valueTypeOf(longitude) === 'number' &&
        distanceMeters(Number(latitude), Number(longitude), condition.latitude, condition.longitude) <= condition.meters
      );
    }
  }
}

/** Whether `test` holds of the value, or of one element of it when it is an array (`test` matches no array, so arrays inside are not descended). */
function someValue(value: unknown, test: (value: unknown) => boolean): boolean {
  return Array.isArray(value) ? value.some(test) : test(value);
}

function compareMatches(value: unknown, operator: ComparisonOperator, literal: Literal): boolean {
  if (valueTypeOf(value) !== literalType(literal)) return false;
  return OPERATOR_TESTS[operator](compareTyped(value, literal.value));
}

function compareTyped(value: unknown, operand: number | string | boolean): number {
  if (typeof value === 'string' && typeof operand === 'string') return compareText(foldCase(value), foldCase(operand));
  const x = Number(value);
  const y = Number(operand);
  return x < y ? -1 : x > y ? 1 : 0;
}

const OPERATOR_TESTS: Readonly<Record<ComparisonOperator, (order: number) => boolean>> = {
  '=': (order) => order === 0,
  '<': (order) => order < 0,
  '<=': (order) => order <= 0,
  '>': (order) => order > 0,
  '>=': (order) => order >= 0,
};
