/**
 * Compiles a parsed query to SQL fragments for the `entities` table, with the semantics of
 * evaluate.ts (the reference the tests hold it to) and the order of order.ts:
 *
 *   SELECT … FROM entities
 *   WHERE app_uuid = ? AND collection = ? AND ${where}
 *   ORDER BY ${orderBy} LIMIT ${limit + 1}
 *
 * Every user value is a bound parameter. Each condition compiles to an expression that is
 * never NULL — a type guard ANDed with the comparison — so `not` is plain boolean negation.
 * What differs between SQLite and PostgreSQL is in dialect.ts; `dialect` names the database the
 * SQL will run on (open.ts `dialectOf(handle)`).
 */
import { sql, type SQL } from 'drizzle-orm';
import type { Condition, Direction, Literal, PropertyPath, Query } from './ast.js';
import { decodeCursor } from './cursor.js';
import { dialects, type Dialect, type DialectName, type Operand, type SortValueColumn } from './dialect.js';
import { foldCase } from './functions.js';
import { joinBalanced } from './balanced.js';
import { alternativesOf, type CollectionScope, type IndexScope } from './property-index.js';
import { indexOrderOf, type IndexOrder } from './index-order.js';
import { sortKeys, type SortKey, type SortValue } from './order.js';
import { literalType, resolveProperty, type ValueType } from './properties.js';

export interface CompileOptions {
  readonly dialect: DialectName;
  /** A cursor from `encodeCursor` for the same order: only entities after it are selected. */
  readonly cursor?: string;
  /** The name (or alias) qualifying the entity columns; default `entities`. */
  readonly table?: string;
  /**
   * The collection the query reads, when it reads one: conditions on properties then find their
   * candidates through the property index (property-index.ts) where they can.
   */
  readonly index?: IndexScope;
}

export interface CompiledQuery {
  /** A parenthesised condition, cursor included; the dialect's true (`1`, `TRUE`) when the query selects everything. */
  readonly where: SQL;
  /** The ORDER BY list (without the keywords): total, ending with the uuid tie-breaker. */
  readonly orderBy: SQL;
  /** The selected property paths for `projectEntity`; `null` for all properties. */
  readonly select: readonly PropertyPath[] | null;
  /**
   * With `index`, the ways the property index can narrow the query (property-index.ts), any one
   * of which is right, in the order to prefer them; empty when it cannot. `where` still decides.
   */
  readonly narrowed: readonly Narrowed[];
  /** With `index`, the walk of the property index that gives the order (index-order.ts); null when it cannot. */
  readonly ordered: IndexOrder | null;
  /** The order, when it is by `created` (read-in-created-order.ts); null otherwise. */
  readonly created: CreatedOrder | null;
}

export interface Narrowed {
  /** `SELECT entity_uuid …`: every entity `where` matches, and maybe others. */
  readonly candidates: SQL;
  /** The indexes looked up, for `explain`: `property PATH`, `spatial PATH`, `full-text PATH` (property-index.ts). */
  readonly indexes: readonly string[];
  /** Whether PostgreSQL's planner may weigh the candidates by its statistics where a page walks no order (property-index.ts `Candidates`). */
  readonly estimated: boolean;
  /**
   * The collection's condition and `uuid IN (candidates)`, written so the plan starts from the
   * candidates (dialect.ts `filterOnly`, `amongCandidates`); use it in place of selecting the collection.
   */
  readonly scope: SQL;
  /**
   * The same, written so that the plan starts from the candidates whatever PostgreSQL's planner
   * believes (as `scope` is for candidates it cannot estimate), for reading them once they are
   * counted and found few (find.ts chooseNarrowing).
   */
  readonly fewScope: SQL;
  /** The same candidates in created order, when their index keeps `created` (property-index.ts `Candidates`). */
  readonly created?: CreatedCandidates;
}

/** Candidates that can be ordered by `created` before their entities are read (read-in-created-order.ts). */
export interface CreatedCandidates {
  /** `SELECT entity_uuid, created …`: the candidates. */
  readonly candidates: SQL;
  /** The collection's condition, written so the plan starts from the uuids it is given (as `scope`'s). */
  readonly collection: SQL;
}

/** The query's order when it is `created` then `uuid`, in one direction (the default, newest first), and where its cursor left off. */
export interface CreatedOrder {
  readonly direction: Direction;
  readonly after: { readonly created: number; readonly uuid: string } | null;
}

/** Throws IllegalArgument when `cursor` is malformed or belongs to another order. */
export function compileQuery(query: Query, options: CompileOptions): CompiledQuery {
  const createDialect = dialects.get(options.dialect);
  if (createDialect === undefined) throw new TypeError(`unknown SQL dialect ${options.dialect}`);
  const dialect = createDialect(options.table ?? 'entities');
  const keys = sortKeys(query);
  const conditions: SQL[] = [];
  const table = sql`${sql.identifier(options.table ?? 'entities')}`;
  const index = options.index;
  const collection = index === undefined ? undefined : collectionOf(index, table, dialect);
  const narrowed = query.where === null || collection === undefined ? [] : narrowingsOf(query.where, collection, dialect).filter(readsAnotherOrder(keys));
  if (query.where !== null) conditions.push(compileCondition(query.where, dialect));
  const after = options.cursor === undefined ? undefined : decodeCursor(options.cursor, keys);
  if (after !== undefined) conditions.push(compileAfter(keys, after, dialect));
  return {
    where: conditions.length > 0 ? sql`(${joinBalanced(conditions, AND)})` : dialect.true,
    orderBy: sql.join(
      keys.flatMap((key) => sortComponents(key, dialect)).map(({ operand, direction, nullable }) => dialect.orderTerm(operand, direction, nullable)),
      sql`, `,
    ),
    select: query.select,
    narrowed,
    ordered: collection === undefined ? null : indexOrderOf(query, collection, dialect, options.cursor),
    created: createdOrderOf(keys, after),
  };
}

/**
 * Whether a narrowing can help a page read in the order of `keys`: not the candidates of a
 * comparison of `created` or `modified` where the order starts with that column, as the page then
 * walks the column's own index from the bound (property-index.ts columnCandidates).
 */
function readsAnotherOrder(keys: readonly SortKey[]): (narrowing: Narrowed) => boolean {
  const first = keys[0]?.source;
  if (first?.kind !== 'column' || (first.column !== 'created' && first.column !== 'modified')) return () => true;
  return (narrowing) => !(narrowing.indexes.length === 1 && narrowing.indexes[0] === first.column);
}

/** `keys`' order as a CreatedOrder, when it is `created` then `uuid` in one direction. */
function createdOrderOf(keys: readonly SortKey[], after: readonly SortValue[] | undefined): CreatedOrder | null {
  const [created, uuid] = keys;
  const isColumn = (key: SortKey, column: string): boolean => key.source.kind === 'column' && key.source.column === column;
  if (keys.length !== 2 || !isColumn(created, 'created') || !isColumn(uuid, 'uuid') || created.direction !== uuid.direction) return null;
  return { direction: created.direction, after: after === undefined ? null : { created: after[0] as number, uuid: after[1] as string } };
}

/**
 * The collection a query reads, its condition written so that a plan starts from the property
 * index's rows rather than from the collection's own index (dialect.ts `filterOnly`; on
 * PostgreSQL only for candidates known to be few, as its planner weighs the others), and the
 * entities' uuid column as stored (so its index serves the lookup of an index row's entity).
 */
function collectionOf(index: IndexScope, table: SQL, dialect: Dialect): CollectionScope {
  const column = (name: string): SQL => sql`${table}.${sql.identifier(name)}`;
  return {
    ...index,
    condition: (few) =>
      sql`${dialect.filterOnly(column('app_uuid'), index.appUuid, few)} AND ${dialect.filterOnly(column('collection'), index.collection, few)}`,
    uuid: column('uuid'),
  };
}

/**
 * The property index's ways to narrow `condition` (property-index.ts `alternativesOf`). Candidates
 * PostgreSQL's planner cannot estimate are read only when counted and found few (find.ts
 * chooseNarrowing), and a page read in created order names its few entities: both are written so
 * that the plan starts from them, whatever the planner believes.
 */
function narrowingsOf(condition: Condition, collection: CollectionScope, dialect: Dialect): Narrowed[] {
  return alternativesOf(condition, collection, dialect).map((candidates) => {
    const scope = (few: boolean): SQL => sql`${collection.condition(few)} AND ${dialect.amongCandidates(collection.uuid, candidates.sql, few)}`;
    return {
      candidates: candidates.sql,
      indexes: candidates.indexes,
      estimated: candidates.estimated,
      scope: scope(!candidates.estimated),
      fewScope: scope(true),
      ...(candidates.created !== undefined && { created: { candidates: candidates.created, collection: collection.condition(true) } }),
    };
  });
}

const AND = sql.raw(' AND ');
const OR = sql.raw(' OR ');

function compileCondition(condition: Condition, dialect: Dialect): SQL {
  switch (condition.kind) {
    case 'and':
      return joinBalanced(
        condition.conditions.map((part) => compileCondition(part, dialect)),
        AND,
      );
    case 'or':
      return joinBalanced(
        condition.conditions.map((part) => compileCondition(part, dialect)),
        OR,
      );
    case 'not':
      return sql`(NOT ${compileCondition(condition.condition, dialect)})`;
    case 'compare': {
      const type = literalType(condition.value);
      const typed = typedProperty(condition.property, type, dialect);
      if (typed === null) return dialect.false;
      const literal = condition.value;
      const test = (value: Operand): SQL => dialect.compare(type === 'string' ? dialect.fold(value) : value, condition.operator, operand(literal));
      // An index-friendly condition the exact one implies (dialect.ts), for `=` on numbers and booleans.
      const hint =
        typed.path !== null && condition.operator === '=' && (literal.kind === 'number' || literal.kind === 'boolean')
          ? dialect.jsonEquals(typed.path, literal.value)
          : null;
      const exact = valueOrElement(typed, type, test, dialect);
      return hint === null ? exact : sql`(${hint} AND ${exact})`;
    }
    case 'prefix': {
      const typed = typedProperty(condition.property, 'string', dialect);
      if (typed === null) return dialect.false;
      const prefix = foldCase(condition.prefix);
      return valueOrElement(typed, 'string', (value) => dialect.hasPrefix(dialect.fold(value), prefix), dialect);
    }
    case 'contains': {
      const typed = typedProperty(condition.property, 'string', dialect);
      if (typed === null) return dialect.false;
      return guarded(typed.guard, dialect.contains(typed.value, condition.term, condition.prefix));
    }
    case 'within': {
      const latitude = typedProperty(`${condition.property}.latitude`, 'number', dialect);
      const longitude = typedProperty(`${condition.property}.longitude`, 'number', dialect);
      if (latitude === null || longitude === null) return dialect.false;
      const distance = dialect.distance(latitude.value, longitude.value, condition.latitude, condition.longitude);
      // The types first, then the dialect's cheap necessary condition, then the distance.
      const guards = [latitude.guard, longitude.guard, dialect.nearLatitude(latitude.value, condition.latitude, condition.meters)].filter(
        (guard) => guard !== null,
      );
      return guarded(guards.length > 0 ? joinBalanced(guards, AND) : null, dialect.compare(distance, '<=', condition.meters));
    }
  }
}

interface TypedProperty {
  /** What must hold for `value` to be of the wanted type; null when it always is (a column). */
  readonly guard: SQL | null;
  readonly value: Operand;
  /** The JSON path; null for a column. */
  readonly path: readonly string[] | null;
}

/** The property as a value of `type`, or null when it can never hold one (a column of another type). */
function typedProperty(property: PropertyPath, type: ValueType, dialect: Dialect): TypedProperty | null {
  const source = resolveProperty(property);
  if (source.kind === 'column') return source.type === type ? { guard: null, value: dialect.column(source.column), path: null } : null;
  return { guard: dialect.jsonTypeIs(source.path, type), value: dialect.jsonValue(source.path, type), path: source.path };
}

/** `test` of the property's value, or of an element of it where a JSON property is an array (dialect.ts `jsonElement`). */
function valueOrElement(typed: TypedProperty, type: ValueType, test: (value: Operand) => SQL, dialect: Dialect): SQL {
  const value = guarded(typed.guard, test(typed.value));
  return typed.path === null ? value : sql`(${value} OR ${dialect.jsonElement(typed.path, type, test)})`;
}

function guarded(guard: SQL | null, test: SQL): SQL {
  return guard === null ? test : sql`(${guard} AND ${test})`;
}

function operand(literal: Literal): number | string {
  switch (literal.kind) {
    case 'number':
      return literal.value;
    case 'boolean':
      // JSON true/false read as 1/0.
      return literal.value ? 1 : 0;
    case 'string':
    case 'uuid':
      return foldCase(literal.value);
  }
}

interface SortComponent {
  readonly operand: Operand;
  readonly direction: Direction;
  readonly nullable: boolean;
  /** For a JSON property's value columns: the cursor values it compares (dialect.ts SortValueColumn). */
  readonly holds?: SortValueColumn['holds'];
}

/** The ORDER BY expressions of one key (order.ts): a column, or a JSON property's rank and value(s). */
function sortComponents(key: SortKey, dialect: Dialect): SortComponent[] {
  const source = key.source;
  if (source.kind === 'column') {
    const column = dialect.column(source.column);
    const folded = source.type === 'string' && source.column !== 'uuid';
    return [{ operand: folded ? dialect.fold(column) : column, direction: key.direction, nullable: false }];
  }
  return [
    { operand: { sql: dialect.jsonSortRank(source.path), type: 'integer' }, direction: 'asc', nullable: false },
    ...dialect.jsonSortValues(source.path).map(({ operand, holds }) => ({ operand, direction: key.direction, nullable: true, holds })),
  ];
}

/**
 * "Sorts after the cursor": c1 beyond v1 OR (c1 = v1 AND (c2 beyond v2 OR (…))). A JSON
 * property with a NULL value (last rank) contributes only its rank: within that rank all values
 * are NULL and tie, and comparing with NULL would never be true. Where a dialect splits the
 * value into columns by type, only the one holding the cursor value's type is compared: within
 * the rank the others are all NULL and tie.
 */
function compileAfter(keys: readonly SortKey[], values: readonly SortValue[], dialect: Dialect): SQL {
  const bounds: { component: SortComponent; value: number | string }[] = [];
  keys.forEach((key, i) => {
    const components = sortComponents(key, dialect);
    const value = values[i];
    if (typeof value !== 'object') {
      bounds.push({ component: components[0], value });
      return;
    }
    bounds.push({ component: components[0], value: value[0] });
    const inner = value[1];
    if (inner === null) return;
    const holds = typeof inner === 'number' ? 'number' : 'string';
    const component = components.slice(1).find((candidate) => candidate.holds === holds || candidate.holds === 'any');
    if (component === undefined) throw new TypeError(`no sort column holds a ${holds}`);
    bounds.push({ component, value: inner });
  });
  let after: SQL | null = null;
  for (const { component, value } of bounds.reverse()) {
    const beyond = dialect.compare(component.operand, component.direction === 'asc' ? '>' : '<', value);
    after = after === null ? beyond : sql`(${beyond} OR (${dialect.compare(component.operand, '=', value)} AND ${after}))`;
  }
  if (after === null) throw new RangeError('an order has at least one key');
  return after;
}
