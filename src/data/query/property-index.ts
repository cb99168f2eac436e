/**
 * Finds a query's candidate entities through the property index (docs/design.md#the-property-index):
 * the table `entity_values` holds one row per scalar property of every entity — its path, type
 * rank (order.ts TYPE_RANK), number (1/0 for booleans) and case-folded text cut to
 * INDEXED_TEXT_LENGTH characters — and one per distinct scalar element of an array property
 * (under `elementsPath`), kept by triggers in the migrations
 * (src/db/migrations/*\/…_property_index.sql, …_array_elements.sql).
 *
 * `candidatesOf` turns a condition into a subquery of entity uuids that holds every entity the
 * condition matches, or null when the index cannot say (`not`, `type`, paths it does not hold);
 * a `within` on `location` has its candidates from the location index (location-index.ts), the
 * columns `uuid`, `created` and `modified` theirs from the entities' own indexes, a
 * `contains` from the word index (word-index.ts). compile.ts adds `uuid IN (candidates)` beside
 * the exact condition, which still decides: the index only narrows what the database reads, so an
 * answer through it is the reference's answer (evaluate.ts) by construction — what the subquery
 * must never do is miss a match, and each case below says why it does not.
 */
import { sql, type SQL } from 'drizzle-orm';
import type { ComparisonOperator, Condition, Literal } from './ast.js';
import type { Dialect, Operand } from './dialect.js';
import { balancedTree, joinBalanced } from './balanced.js';
import { foldCase } from './functions.js';
import { locationCandidates } from './location-index.js';
import { TYPE_RANK } from './order.js';
import { forEachIndexedValue, isIndexedPath, literalType, parseStoredProperties, resolveProperty } from './properties.js';
import { wordCandidates } from './word-index.js';

/** Strings are indexed by their folded text's first this many characters (code points). */
export const INDEXED_TEXT_LENGTH = 200;

/** The entities a query reads: one collection of one application. */
export interface IndexScope {
  readonly appUuid: string;
  readonly collection: string;
}

/**
 * The collection a compiled query reads (compile.ts): its condition on `entities` beside
 * candidates, `few` when they are known to be few (dialect.ts `filterOnly`), and that table's
 * uuid column.
 */
export interface CollectionScope extends IndexScope {
  readonly condition: (few: boolean) => SQL;
  readonly uuid: SQL;
}

export interface Candidates {
  /** `SELECT entity_uuid FROM entity_values …` (or `entity_words`): a superset of the matches. */
  readonly sql: SQL;
  /** The indexes looked up, for `explain` (docs/api.md#explain): `property PATH`, `spatial PATH`, `full-text PATH`. */
  readonly indexes: readonly string[];
  /**
   * Whether PostgreSQL's planner may weigh them by its statistics, where a page walks no order
   * (find.ts chooseNarrowing; dialect.ts `amongCandidates`): an equality's rows of the property
   * index, and the word index's, whose number it estimates, if roughly. Not a range's or a
   * prefix's: its statistics of the values are of every path together, so given `age >= 9990`
   * (10 of 10,000 people, among scores up to a million) it expected 616 and walked the whole
   * collection newest first (docs/benchmarks.md#ranges-on-postgresql). Nor the location index's
   * box overlap.
   */
  readonly estimated: boolean;
  /**
   * The same candidates as `SELECT entity_uuid, created …` from an index that keeps each
   * entity's `created` (the word index, word-index.ts; the entities' own for `modified`,
   * columnCandidates), so they can be read in created order (read-in-created-order.ts); absent
   * otherwise.
   */
  readonly created?: SQL;
}

/** Text cut as the index cuts it: the first INDEXED_TEXT_LENGTH code points. */
export function indexedText(text: string): string {
  // Every write of a string property comes here (indexRowsOf): count code points in place
  // rather than split the text into an array of them.
  if (text.length <= INDEXED_TEXT_LENGTH) return text;
  let end = 0;
  for (let points = 0; points < INDEXED_TEXT_LENGTH && end < text.length; points++) end += text.codePointAt(end)! > 0xffff ? 2 : 1;
  return text.slice(0, end);
}

// How `explain` names a lookup of the property index: this, then the path.
const PROPERTY_LABEL = 'property ';

export function propertyLabel(path: string): string {
  return `${PROPERTY_LABEL}${path}`;
}

/** The property paths among a narrowing's `indexes` labels (the ones collection settings can leave out). */
export function propertyPathsOf(indexes: readonly string[]): string[] {
  return indexes.filter((label) => label.startsWith(PROPERTY_LABEL)).map((label) => label.slice(PROPERTY_LABEL.length));
}

export function candidatesOf(condition: Condition, scope: IndexScope, dialect: Dialect): Candidates | null {
  switch (condition.kind) {
    case 'compare': {
      if (resolveProperty(condition.property).kind === 'column') return columnCandidates([condition], scope, dialect);
      const path = indexedPath(condition.property);
      return path === null ? null : lookup(scope, path, compareTest(condition.operator, condition.value, dialect), dialect, condition.operator === '=');
    }
    case 'prefix': {
      const path = indexedPath(condition.property);
      return path === null ? null : lookup(scope, path, prefixTest(foldCase(condition.prefix), dialect), dialect, false);
    }
    case 'and': {
      // Any one part's candidates hold every match of the whole.
      return alternativesOf(condition, scope, dialect)[0] ?? null;
    }
    case 'or': {
      // A match of the whole matches some part: the union, when every part has candidates.
      const parts = condition.conditions.map((part) => candidatesOf(part, scope, dialect));
      return parts.some((part) => part === null) ? null : union(parts as Candidates[]);
    }
    case 'within':
      return locationCandidates(condition, scope, dialect);
    case 'contains': {
      // The word index (word-index.ts) holds every entity whose words can match.
      const words = wordCandidates(condition, scope.appUuid, scope.collection, dialect);
      if (words === null) return null;
      return { sql: words.sql, indexes: [`full-text ${condition.property}`], estimated: true, created: words.created };
    }
    case 'not':
      return null;
  }
}

/**
 * Candidates of `condition` that each hold all its matches, for the caller to pick from: for an
 * `and`, each part's that has some, equalities first (they tend to narrow most), then the band of
 * each path that ranges bound two or more times (bandsOf) in place of its bounds' own, which hold
 * every row of the band and more; else its own.
 */
export function alternativesOf(condition: Condition, scope: IndexScope, dialect: Dialect): Candidates[] {
  if (condition.kind !== 'and') {
    const candidates = candidatesOf(condition, scope, dialect);
    return candidates === null ? [] : [candidates];
  }
  const isEquality = (part: Condition): boolean => part.kind === 'compare' && part.operator === '=';
  const others = condition.conditions.filter((part) => !isEquality(part));
  const bands = bandsOf(others);
  const banded = new Set<Condition>(bands.flat());
  return [
    ...condition.conditions.filter(isEquality).map((part) => candidatesOf(part, scope, dialect)),
    ...bands.map((band) => bandCandidates(band, scope, dialect)),
    ...others.filter((part) => !banded.has(part)).map((part) => candidatesOf(part, scope, dialect)),
  ].filter((part) => part !== null);
}

type Comparison = Extract<Condition, { kind: 'compare' }>;

/**
 * The range parts of an `and` that bound one path with literals of one type, two or more to a
 * path (`age >= 30 and age < 40`): each such group is looked up as one band of the index, which
 * reads only the rows between the bounds where either bound alone reads every row on its side.
 * A band is null only where its bounds' own lookups are (a path the index does not hold).
 */
function bandsOf(parts: readonly Condition[]): Comparison[][] {
  const groups = new Map<string, Comparison[]>();
  for (const part of parts) {
    if (part.kind !== 'compare' || part.operator === '=') continue;
    const key = `${literalType(part.value)} ${part.property}`;
    groups.set(key, [...(groups.get(key) ?? []), part]);
  }
  return [...groups.values()].filter((group) => group.length > 1);
}

/**
 * The entities with one row of the path that passes every bound, and those with rows of its
 * array's elements that pass each bound. A scalar property has one row per path, and a value that
 * satisfies each bound has a row that passes each bound's test (compareTest). An array matches
 * each bound by an element of its own, maybe each by another (`[1, 10]` is `> 5 and < 3`), so
 * it has an element row passing each bound: the band holds every match of the parts together.
 */
function bandCandidates(parts: readonly Comparison[], scope: IndexScope, dialect: Dialect): Candidates | null {
  if (resolveProperty(parts[0].property).kind === 'column') return columnCandidates(parts, scope, dialect);
  const path = indexedPath(parts[0].property);
  if (path === null) return null;
  const rowsOf = (of: string): SQL => dialect.indexRowsOf(scope.appUuid, scope.collection, of);
  const tests = parts.map((part) => compareTest(part.operator, part.value, dialect));
  const elements = compound(
    tests.map((test) => rowsPassing(rowsOf(elementsPath(path)), test)),
    INTERSECT,
  );
  return {
    sql: sql`SELECT ${COMPOUND}.entity_uuid FROM (${rowsPassing(rowsOf(path), joinBalanced(tests, sql` AND `))} UNION ALL ${elements}) AS ${COMPOUND}`,
    indexes: [propertyLabel(path)],
    estimated: false,
  };
}

/** The parts' union (`compound`). */
function union(parts: readonly Candidates[]): Candidates {
  return {
    sql: compound(
      parts.map((part) => part.sql),
      UNION,
    ),
    indexes: [...new Set(parts.flatMap((part) => part.indexes))],
    estimated: parts.every((part) => part.estimated),
  };
}

const UNION = sql.raw(' UNION ');
const INTERSECT = sql.raw(' INTERSECT ');

/** The union or intersection of `SELECT entity_uuid …` parts, as a balanced tree (balanced.ts). */
function compound(parts: readonly SQL[], operator: SQL): SQL {
  return balancedTree(parts, (left, right) => sql`SELECT ${COMPOUND}.entity_uuid FROM (${left}${operator}${right}) AS ${COMPOUND}`);
}

const COMPOUND = sql.identifier('candidates');

/** The path as the index names it, or null when the index does not hold it. */
export function indexedPath(property: string): string | null {
  return resolveProperty(property).kind === 'column' || !isIndexedPath(property) ? null : property;
}

/** A row of the property index, as SQLite's index triggers and batches read it (idp_index_rows, src/db/functions.ts). */
export interface IndexRow {
  /** The path the row is under: the property's, or `elementsPath` of it for an array's element. */
  readonly path: string;
  /** The property's path, as a collection's settings name it (docs/api.md#collection-settings). */
  readonly property: string;
  /** TYPE_RANK of the value's type. */
  readonly kind: number;
  /** A number; a boolean as 1 or 0; a string folded and cut (`indexedText`). */
  readonly value: number | string;
}

/**
 * The property index's rows of an entity's stored JSON: one for each scalar at a path the index
 * holds (properties.ts `forEachIndexedValue`), and one for each distinct scalar element of an
 * array there, under `elementsPath`; none when it does not parse. `null`, and the objects and
 * arrays inside an array, have none: the query language compares none of them (evaluate.ts).
 */
export function indexRowsOf(properties: string): IndexRow[] {
  const parsed = parseStoredProperties(properties);
  if (parsed === null) return [];
  const rows: IndexRow[] = [];
  forEachIndexedValue(parsed, (property, value) => {
    if (!Array.isArray(value)) {
      const row = scalarRow(property, property, value);
      if (row !== null) rows.push(row);
      return;
    }
    const path = elementsPath(property);
    const seen = new Set<string>();
    for (const element of value) {
      const row = scalarRow(path, property, element);
      if (row === null) continue;
      const key = `${row.kind}:${row.value}`;
      if (seen.has(key)) continue;
      seen.add(key);
      rows.push(row);
    }
  });
  return rows;
}

function scalarRow(path: string, property: string, value: unknown): IndexRow | null {
  switch (typeof value) {
    case 'number':
      return { path, property, kind: TYPE_RANK.number, value };
    case 'string':
      return { path, property, kind: TYPE_RANK.string, value: indexedText(foldCase(value)) };
    case 'boolean':
      return { path, property, kind: TYPE_RANK.boolean, value: value ? 1 : 0 };
    default:
      return null;
  }
}

/**
 * The path under which the index holds the elements of an array at `path` (the migrations'
 * …_array_elements.sql): apart from the path's own rows, which a walk in the property's order
 * reads (index-order.ts), as an array sorts with the values that are not scalars.
 */
export function elementsPath(path: string): string {
  return `${path}[]`;
}

/**
 * The rows of `path`, and of its array's elements, that pass `test`; `equality` when the test is
 * `=` (`Candidates.estimated`). A comparison or prefix matches an array by element
 * (evaluate.ts), each element with a row of its own.
 */
function lookup(scope: IndexScope, path: string, test: SQL, dialect: Dialect, equality: boolean): Candidates {
  return {
    sql: rowsPassing(dialect.indexRowsOfAny(scope.appUuid, scope.collection, [path, elementsPath(path)]), test),
    indexes: [propertyLabel(path)],
    estimated: equality,
  };
}

/** `SELECT entity_uuid` of the property index's rows that `rows` names (dialect.ts `indexRowsOf`) and that pass `test`. */
function rowsPassing(rows: SQL, test: SQL): SQL {
  return sql`SELECT ${VALUES}.entity_uuid FROM ${VALUES} WHERE ${rows} AND ${test}`;
}

/**
 * A comparison of a column of `entities`, or the bounds of a band on one (bandsOf), has its
 * candidates from that table's own indexes: `uuid = …` names its one candidate, the literal
 * folded as the exact test folds it (entity uuids are stored lowercase, made by idp or a device's
 * lowercased, so the one a folded literal matches is that literal itself); numbers compared with
 * `created` or `modified` the collection's entities that pass the same tests on that column (each
 * has an index by application, collection and the column), exactly the matches. Others (`type`,
 * the uuid's ranges, other literals) have none.
 */
function columnCandidates(parts: readonly Comparison[], scope: IndexScope, dialect: Dialect): Candidates | null {
  const [{ property, operator, value }] = parts;
  // An equality is never in a band: alone.
  if (property === 'uuid' && operator === '=' && literalType(value) === 'string') {
    const uuid = foldCase(String(value.value));
    // No uuid holds a NUL, which PostgreSQL refuses in any text it is sent (dialect.ts).
    const one = uuid.includes('\u0000') ? sql`SELECT CAST(NULL AS TEXT) AS entity_uuid WHERE 1 = 0` : sql`SELECT CAST(${uuid} AS TEXT) AS entity_uuid`;
    return { sql: one, indexes: ['uuid'], estimated: true };
  }
  if ((property !== 'created' && property !== 'modified') || parts.some((part) => part.value.kind !== 'number')) return null;
  const column: Operand = { sql: sql`${COLUMNS}.${sql.identifier(property)}`, type: 'integer' };
  const tests = parts.map((part) => dialect.compare(column, part.operator, part.value.value as number));
  const from = sql`FROM entities AS ${COLUMNS} WHERE ${COLUMNS}.app_uuid = ${scope.appUuid} AND ${COLUMNS}.collection = ${scope.collection} AND ${sql.join(tests, sql` AND `)}`;
  return {
    sql: sql`SELECT ${COLUMNS}.uuid AS entity_uuid ${from}`,
    indexes: [property],
    // Counted before they are read, as a range's (chooseNarrowing): where they are many, the
    // collection in created order, or the column's own test, reads it as before.
    estimated: false,
    // Those of `modified` in created order: a page of them is read, not all
    // (read-in-created-order.ts). They are few (counted) and sorted: SQLite, given `+created`,
    // cannot take the order from the created index instead and walk the collection (`modified =
    // …`, 300 among 100,000 people: 14 ms that way, 2 ms sorted). Those of `created` are not used
    // there: the page walks that index from the bound (compile.ts readsAnotherOrder).
    ...(property === 'modified' && { created: sql`SELECT ${COLUMNS}.uuid AS entity_uuid, +${COLUMNS}.created AS created ${from}` }),
  };
}

/** The name of `entities` where the columns' candidates are read, apart from the query's own read (explain.ts tells them apart). */
export const COLUMN_CANDIDATES = 'idp_columns';
const COLUMNS = sql.identifier(COLUMN_CANDIDATES);

const VALUES = sql.identifier('entity_values');
const column = (name: string): SQL => sql`${VALUES}.${sql.identifier(name)}`;

/**
 * A number or boolean compares with `num` among the rows of its type, as evaluate.ts compares
 * them (doubles; 1/0); the index holds the same doubles the exact test reads. A string compares
 * with the cut text: cutting keeps order (x <= y implies cut(x) <= cut(y)) and equality, but not
 * strictness — x < y may cut to equal texts — so `<` and `>` widen to `<=` and `>=`.
 */
function compareTest(operator: ComparisonOperator, literal: Literal, dialect: Dialect): SQL {
  const type = literalType(literal);
  const kind = sql`${column('kind')} = ${sql.raw(String(TYPE_RANK[type]))}`;
  if (type === 'string') {
    const text = dialect.indexColumn('text');
    return sql`${kind} AND ${dialect.compare(text, WIDENED[operator], indexedText(foldCase(String(literal.value))))}`;
  }
  const num = dialect.indexColumn('number');
  const value = literal.kind === 'boolean' ? (literal.value ? 1 : 0) : Number(literal.value);
  return sql`${kind} AND ${dialect.compare(num, operator, value)}`;
}

const WIDENED: Readonly<Record<ComparisonOperator, ComparisonOperator>> = { '=': '=', '<': '<=', '<=': '<=', '>': '>=', '>=': '>=' };

/**
 * A folded text starting with `prefix` cuts to a text starting with the cut prefix, and every
 * text starting with that lies in [cut, successor(cut)) in code-point order, the order of the
 * index (SQLite BINARY, PostgreSQL COLLATE "C").
 */
function prefixTest(prefix: string, dialect: Dialect): SQL {
  const text = dialect.indexColumn('text');
  const from = indexedText(prefix);
  const lower = sql`${column('kind')} = ${sql.raw(String(TYPE_RANK.string))} AND ${dialect.compare(text, '>=', from)}`;
  const upper = successor(from);
  return upper === null ? lower : sql`${lower} AND ${dialect.compare(text, '<', upper)}`;
}

/**
 * The least text after every text that starts with `prefix`: its last code point that can be
 * incremented, incremented (skipping the surrogates, which no stored text holds), the rest
 * dropped; null when there is none (empty, or all U+10FFFF).
 */
export function successor(prefix: string): string | null {
  const points = Array.from(prefix, (character) => character.codePointAt(0)!);
  while (points.length > 0) {
    const last = points.pop()!;
    if (last < 0x10ffff) {
      points.push(last === 0xd7ff ? 0xe000 : last + 1);
      return String.fromCodePoint(...points);
    }
  }
  return null;
}
