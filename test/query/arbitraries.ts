/**
 * fast-check generators for the query tests: syntax trees (printed back to query text in
 * varied spellings) and entities whose values collide with the queries' literals often, so the
 * SQL-versus-reference comparison exercises matches, ties and type mismatches, not only misses.
 */
import fc from 'fast-check';
import type { ComparisonOperator, Condition, Literal, OrderKey, Query } from '../../src/data/query/ast.js';
import type { EntityRecord } from '../../src/data/query/properties.js';
import { TEST_DATABASE_URL } from '../database.js';

/** Deterministic lower-case UUIDs shared by entities and `uuid = …` literals. */
export const UUID_POOL: readonly string[] = Array.from({ length: 64 }, (_, i) => {
  const head = (Math.imul(i + 1, 2654435761) >>> 0).toString(16).padStart(8, '0');
  return `${head}-${(i * 7919).toString(16).padStart(4, '0').slice(-4)}-4abc-8def-${i.toString(16).padStart(12, '0')}`;
});

const NUMBERS = [-2, -1, 0, 0.5, 1, 1.5, 2, 3, 100, 1e21, -1e-7];
// Case variants, prefixes of each other, non-ASCII folding (Ü, ß, İ), NUL, astral and
// private-use characters (UTF-16 order differs from code point order there), the empty string.
// Longer than the property index keeps (200 characters, property-index.ts): equal there, different after.
const LONG = 'f'.repeat(199);
const STRINGS = [
  'fred',
  'Fred',
  'FRED',
  'fr',
  'frederick',
  'a b',
  'Ünïcode',
  'ünïcode',
  'ß',
  'İstanbul',
  '',
  'x\u0000y',
  '😀',
  '\uE000',
  'zed',
  '10',
  `${LONG}r`,
  `${LONG}Red`,
  `${LONG}RED`,
  `${LONG}re`,
  `${LONG}😀x`,
];
const WORDS = ['alpha', 'Beta', 'gamma', 'alphabet', 'BETA', 'ünï', 'fred', 'x1'];

/**
 * PostgreSQL text cannot hold NUL (jsonb refuses \u0000), so on PostgreSQL the entities' strings
 * carry U+0001 where the generators put NUL; query literals keep their NULs on both databases
 * (dialect.ts rewrites them exactly for NUL-free values).
 */
const storable = (text: string): string => (TEST_DATABASE_URL === undefined ? text : text.replaceAll('\u0000', '\u0001'));

const numberValue = fc.oneof(fc.constantFrom(...NUMBERS), fc.integer({ min: -5, max: 5 }), fc.double({ noNaN: true, noDefaultInfinity: true }));
const stringValue = fc.oneof(fc.constantFrom(...STRINGS), fc.string({ maxLength: 6, unit: 'grapheme' }));
const wordText = fc
  .array(fc.oneof(fc.constantFrom(...WORDS), fc.string({ maxLength: 4, unit: 'grapheme' })), { maxLength: 5 })
  .chain((words) => fc.constantFrom(' ', ', ', '-', '  ').map((separator) => words.join(separator)));

const scalarValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: numberValue.map(normaliseZero) },
  { weight: 4, arbitrary: stringValue.map(storable) },
  { weight: 2, arbitrary: fc.boolean() },
);

/**
 * A JSON value a property may hold: scalars of every type, values that never match (null, an
 * object), and arrays, which match by element: of scalars, repeated ones (in another case too),
 * and elements that match nothing (null, an object, an array inside).
 */
const jsonValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 10, arbitrary: scalarValue },
  { weight: 1, arbitrary: fc.constantFrom(null, { x: 1 }) },
  {
    weight: 2,
    arbitrary: fc.array(fc.oneof({ weight: 6, arbitrary: scalarValue }, { weight: 1, arbitrary: fc.constantFrom(null, { x: 1 }, [1, 'fred'], 'FRED') }), {
      maxLength: 4,
    }),
  },
);

const latitude = fc.oneof(fc.constantFrom(37.77, 37.78, -33.86, 0, 90), fc.double({ min: -90, max: 90, noNaN: true }));
const longitude = fc.oneof(fc.constantFrom(-122.41, -122.42, 151.2, 0, 180), fc.double({ min: -180, max: 180, noNaN: true }));
const location = fc.oneof(
  { weight: 4, arbitrary: fc.record({ latitude: latitude.map(normaliseZero), longitude: longitude.map(normaliseZero) }) },
  { weight: 1, arbitrary: fc.constantFrom({ latitude: '37.77', longitude: -122.41 }, { latitude: 37.77 }, null, 5) },
);

/** The properties of an entity; keys are optional so "missing" is common. */
export const entityProperties: fc.Arbitrary<Record<string, unknown>> = fc.record(
  {
    a: jsonValue,
    b: jsonValue,
    name: fc.oneof(stringValue.map(storable), numberValue.map(normaliseZero)),
    title: fc.oneof({ weight: 4, arbitrary: wordText }, { weight: 1, arbitrary: jsonValue }),
    order: jsonValue,
    first_name: jsonValue,
    location,
    // n.y.w.v is deeper than the property index goes (3 segments); `n.x` a name no query can
    // write (`n.x` is x inside n), which the index must not hold as that path.
    n: fc.record(
      {
        x: jsonValue,
        _y: jsonValue,
        y: fc.record({ z: jsonValue, w: fc.record({ v: jsonValue }, { requiredKeys: [] }) }, { requiredKeys: [] }),
      },
      { requiredKeys: [] },
    ),
    'n.x': jsonValue,
  },
  { requiredKeys: [] },
);

export interface GeneratedEntity {
  readonly record: EntityRecord;
  readonly properties: Record<string, unknown>;
}

export function entityArbitrary(uuids: fc.Arbitrary<string>): fc.Arbitrary<GeneratedEntity> {
  return fc
    .record({
      uuid: uuids,
      type: fc.constantFrom('dog', 'Dog', 'cat'),
      // Few distinct timestamps: the default order then depends on the uuid tie-breaker.
      created: fc.integer({ min: 0, max: 5 }).map((n) => n * 1000),
      modified: fc.integer({ min: 0, max: 1e12 }),
      properties: entityProperties,
    })
    .map(({ properties, ...columns }) => ({ record: { ...properties, ...columns }, properties }));
}

export const entitiesArbitrary = fc.uniqueArray(entityArbitrary(fc.constantFrom(...UUID_POOL)), {
  maxLength: 30,
  size: 'medium',
  selector: (entity) => entity.record.uuid,
});

// first_name and n._y: names SQLite's json_tree writes quoted (migrations/sqlite/…_property_index_compact_keys.sql).
const QUERY_PROPERTIES = [
  'a',
  'b',
  'name',
  'first_name',
  'title',
  'order',
  'n.x',
  'n._y',
  'n.y.z',
  'n.y.w.v',
  'location.latitude',
  'missing',
  'created',
  'modified',
  'uuid',
  'type',
];
const COLUMNS = ['created', 'modified', 'uuid', 'type'];
const property = fc.constantFrom(...QUERY_PROPERTIES);

const literal: fc.Arbitrary<Literal> = fc.oneof(
  { weight: 3, arbitrary: numberValue.map((value): Literal => ({ kind: 'number', value: normaliseZero(value) })) },
  { weight: 3, arbitrary: stringValue.map((value): Literal => ({ kind: 'string', value: value.endsWith('*') ? `${value}x` : value })) },
  { weight: 1, arbitrary: fc.boolean().map((value): Literal => ({ kind: 'boolean', value })) },
  { weight: 1, arbitrary: fc.constantFrom(...UUID_POOL.slice(0, 8)).map((value): Literal => ({ kind: 'uuid', value })) },
);

const leaf: fc.Arbitrary<Condition> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('compare' as const),
      property,
      operator: fc.constantFrom<ComparisonOperator>('=', '<', '<=', '>', '>='),
      value: literal,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('prefix' as const),
      property,
      prefix: fc.oneof(fc.constantFrom('fr', 'F', '', 'ü', 'x\u0000', 'İ', LONG, `${LONG}R`, `${LONG}re`), fc.string({ maxLength: 3, unit: 'grapheme' })),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('contains' as const),
      property: fc.constantFrom('title', 'name', 'a', 'type'),
      term: fc
        .oneof(fc.constantFrom(...WORDS, 'alpha beta', 'al', 'BET', '', 'ü'), fc.string({ maxLength: 4, unit: 'grapheme' }))
        .filter((term) => !/\*\s*$/.test(term)),
      prefix: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('within' as const),
      property: fc.constantFrom('location', 'n', 'a'),
      meters: fc.oneof(fc.constantFrom(0, 1000, 2000, 1e5, 1e7, 2.1e7), fc.double({ min: 0, max: 3e7, noNaN: true })).map(normaliseZero),
      latitude: latitude.map(normaliseZero),
      longitude: longitude.map(normaliseZero),
    }),
  },
);

export const conditionArbitrary: fc.Arbitrary<Condition> = fc.letrec<{ condition: Condition }>((tie) => ({
  condition: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.record({ kind: fc.constant('not' as const), condition: tie('condition') }),
    fc.record({ kind: fc.constant('and' as const), conditions: fc.array(tie('condition'), { minLength: 2, maxLength: 3 }) }),
    fc.record({ kind: fc.constant('or' as const), conditions: fc.array(tie('condition'), { minLength: 2, maxLength: 3 }) }),
  ),
})).condition;

const orderKey: fc.Arbitrary<OrderKey> = fc.record({ property, direction: fc.constantFrom('asc' as const, 'desc' as const) });

/**
 * Queries ordered by a JSON property, which the property index can walk in order
 * (index-order.ts) — except `n.y.w.v`, deeper than it goes — alone or followed by up to two more
 * keys of any kind, with a condition or none.
 */
export const propertyOrderArbitrary: fc.Arbitrary<Query> = fc.record({
  select: fc.constant(null),
  where: fc.option(conditionArbitrary, { nil: null, freq: 2 }),
  orderBy: fc
    .tuple(
      fc.record({
        property: fc.constantFrom(...QUERY_PROPERTIES.filter((name) => !COLUMNS.includes(name) && name !== 'n.y.w.v')),
        direction: fc.constantFrom('asc' as const, 'desc' as const),
      }),
      fc.oneof({ weight: 1, arbitrary: fc.constant([]) }, { weight: 2, arbitrary: fc.array(orderKey, { minLength: 1, maxLength: 2 }) }),
    )
    .map(([first, more]) => [first, ...more]),
});

export const queryArbitrary: fc.Arbitrary<Query> = fc.record({
  select: fc.option(fc.uniqueArray(property, { minLength: 1, maxLength: 3 }), { nil: null }),
  where: fc.option(conditionArbitrary, { nil: null, freq: 8 }),
  orderBy: fc.array(orderKey, { maxLength: 3 }),
});

/** How a query is spelled: the parser must not care. */
export interface Spelling {
  readonly upperKeywords: boolean;
  readonly wordOperators: boolean;
  readonly explicitWhere: boolean;
  readonly explicitStar: boolean;
  readonly space: string;
}

export const spellingArbitrary: fc.Arbitrary<Spelling> = fc.record({
  upperKeywords: fc.boolean(),
  wordOperators: fc.boolean(),
  explicitWhere: fc.boolean(),
  explicitStar: fc.boolean(),
  space: fc.constantFrom(' ', '  ', '\t', '\n '),
});

const WORD_OPERATORS: Readonly<Record<ComparisonOperator, string>> = { '=': 'eq', '<': 'lt', '<=': 'lte', '>': 'gt', '>=': 'gte' };

/** Query text that parses back to `query` (the tree shapes the parser builds). */
export function printQuery(query: Query, spelling: Spelling): string {
  const s = spelling.space;
  const keyword = (word: string): string => (spelling.upperKeywords ? word.toUpperCase() : word);
  const parts: string[] = [];
  if (query.select !== null) parts.push(`${keyword('select')}${s}${query.select.join(`,${s}`)}`);
  else if (spelling.explicitStar) parts.push(`${keyword('select')}${s}*`);
  if (query.where !== null) {
    if (spelling.explicitWhere || query.select !== null) parts.push(keyword('where'));
    parts.push(printCondition(query.where, spelling, keyword));
  }
  if (query.orderBy.length > 0) {
    const keys = query.orderBy.map((key) => `${key.property}${s}${keyword(key.direction)}`);
    parts.push(`${keyword('order')}${s}${keyword('by')}${s}${keys.join(`,${s}`)}`);
  }
  return parts.join(s);
}

function printCondition(condition: Condition, spelling: Spelling, keyword: (word: string) => string): string {
  const s = spelling.space;
  const nested = (child: Condition): string => {
    const text = printCondition(child, spelling, keyword);
    return child.kind === 'and' || child.kind === 'or' || child.kind === 'not' ? `(${text})` : text;
  };
  switch (condition.kind) {
    case 'and':
    case 'or':
      return condition.conditions.map(nested).join(`${s}${keyword(condition.kind)}${s}`);
    case 'not':
      return `${keyword('not')}${s}${nested(condition.condition)}`;
    case 'compare': {
      const operator = spelling.wordOperators ? keyword(WORD_OPERATORS[condition.operator]) : condition.operator;
      return `${condition.property}${s}${operator}${s}${printLiteral(condition.value, keyword)}`;
    }
    case 'prefix':
      return `${condition.property}${s}=${s}${quote(`${condition.prefix}*`)}`;
    case 'contains':
      return `${condition.property}${s}${keyword('contains')}${s}${quote(condition.prefix ? `${condition.term}*` : condition.term)}`;
    case 'within':
      return `${condition.property}${s}${keyword('within')}${s}${condition.meters}${s}${keyword('of')}${s}${condition.latitude},${s}${condition.longitude}`;
  }
}

function printLiteral(literal: Literal, keyword: (word: string) => string): string {
  switch (literal.kind) {
    case 'string':
      return quote(literal.value);
    case 'number':
      return String(literal.value);
    case 'boolean':
      return keyword(String(literal.value));
    case 'uuid':
      return literal.value;
  }
}

export function quote(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

// -0 prints as "0"; keep generated trees equal to what their text parses back to.
function normaliseZero(value: number): number {
  return value === 0 ? 0 : value;
}
