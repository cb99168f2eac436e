import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseQuery } from '../../src/data/query/parse.js';
import type { Condition, Query } from '../../src/data/query/ast.js';
import { isAppError } from '../../src/errors.js';
import { printQuery, queryArbitrary, spellingArbitrary } from './arbitraries.js';

const eq = (property: string, value: number): Condition => ({
  kind: 'compare',
  property,
  operator: '=',
  value: { kind: 'number', value },
});

const where = (condition: Condition): Query => ({ select: null, where: condition, orderBy: [] });

const valid: { name: string; ql: string | undefined; expected: Query }[] = [
  { name: 'undefined', ql: undefined, expected: { select: null, where: null, orderBy: [] } },
  { name: 'empty', ql: '', expected: { select: null, where: null, orderBy: [] } },
  { name: 'blank', ql: ' \t\n ', expected: { select: null, where: null, orderBy: [] } },
  {
    name: 'bare condition',
    ql: "name = 'fred'",
    expected: where({ kind: 'compare', property: 'name', operator: '=', value: { kind: 'string', value: 'fred' } }),
  },
  { name: 'where', ql: 'where a = 1', expected: where(eq('a', 1)) },
  { name: 'select *', ql: 'select * where a = 1', expected: where(eq('a', 1)) },
  {
    name: 'select list',
    ql: 'select name, location.latitude where a = 1',
    expected: { select: ['name', 'location.latitude'], where: eq('a', 1), orderBy: [] },
  },
  { name: 'select list, where omitted as Usergrid allows', ql: 'select a a = 1', expected: { select: ['a'], where: eq('a', 1), orderBy: [] } },
  { name: 'select only', ql: 'select a', expected: { select: ['a'], where: null, orderBy: [] } },
  { name: 'order by only', ql: 'order by name', expected: { select: null, where: null, orderBy: [{ property: 'name', direction: 'asc' }] } },
  {
    name: 'order by several',
    ql: 'select * order by name desc, created ASC, a.b',
    expected: {
      select: null,
      where: null,
      orderBy: [
        { property: 'name', direction: 'desc' },
        { property: 'created', direction: 'asc' },
        { property: 'a.b', direction: 'asc' },
      ],
    },
  },
  {
    name: 'keywords in any case',
    ql: "SELECT * WHERE a EQ 1 And NOT b = 'x' ORDER BY c DESC",
    expected: {
      select: null,
      where: {
        kind: 'and',
        conditions: [eq('a', 1), { kind: 'not', condition: { kind: 'compare', property: 'b', operator: '=', value: { kind: 'string', value: 'x' } } }],
      },
      orderBy: [{ property: 'c', direction: 'desc' }],
    },
  },
  ...(
    [
      ['<', '<'],
      ['<=', '<='],
      ['>', '>'],
      ['>=', '>='],
      ['lt', '<'],
      ['lte', '<='],
      ['gt', '>'],
      ['gte', '>='],
      ['eq', '='],
      ['GtE', '>='],
    ] as const
  ).map(([written, operator]) => ({
    name: `operator ${written}`,
    ql: `age ${written} 3`,
    expected: where({ kind: 'compare', property: 'age', operator, value: { kind: 'number', value: 3 } }),
  })),
  {
    name: 'operators without spaces',
    ql: 'a<=-2.5',
    expected: where({ kind: 'compare', property: 'a', operator: '<=', value: { kind: 'number', value: -2.5 } }),
  },
  { name: 'decimal', ql: 'a = 0.25', expected: where(eq('a', 0.25)) },
  { name: 'leading dot decimal', ql: 'a = .5', expected: where(eq('a', 0.5)) },
  { name: 'negative integer', ql: 'a = -7', expected: where(eq('a', -7)) },
  { name: 'exponent', ql: 'a = 1e3', expected: where(eq('a', 1000)) },
  { name: 'true', ql: 'a = true', expected: where({ kind: 'compare', property: 'a', operator: '=', value: { kind: 'boolean', value: true } }) },
  { name: 'FALSE', ql: 'a = FALSE', expected: where({ kind: 'compare', property: 'a', operator: '=', value: { kind: 'boolean', value: false } }) },
  {
    name: 'unquoted uuid (lower-cased)',
    ql: 'uuid = 5F1C0A2E-1B2C-4D3E-8F40-0123456789AB',
    expected: where({ kind: 'compare', property: 'uuid', operator: '=', value: { kind: 'uuid', value: '5f1c0a2e-1b2c-4d3e-8f40-0123456789ab' } }),
  },
  {
    name: 'uuid starting with letters',
    ql: 'owner = abcdef01-1b2c-4d3e-8f40-0123456789ab',
    expected: where({ kind: 'compare', property: 'owner', operator: '=', value: { kind: 'uuid', value: 'abcdef01-1b2c-4d3e-8f40-0123456789ab' } }),
  },
  { name: 'escaped quote', ql: "a = 'it\\'s'", expected: where({ kind: 'compare', property: 'a', operator: '=', value: { kind: 'string', value: "it's" } }) },
  {
    name: 'escapes',
    ql: "a = '\\\\\\n\\u00e9'",
    expected: where({ kind: 'compare', property: 'a', operator: '=', value: { kind: 'string', value: '\\\né' } }),
  },
  { name: 'empty string', ql: "a = ''", expected: where({ kind: 'compare', property: 'a', operator: '=', value: { kind: 'string', value: '' } }) },
  { name: 'prefix equality', ql: "name = 'fr*'", expected: where({ kind: 'prefix', property: 'name', prefix: 'fr' }) },
  {
    name: 'star only on =',
    ql: "name > 'fr*'",
    expected: where({ kind: 'compare', property: 'name', operator: '>', value: { kind: 'string', value: 'fr*' } }),
  },
  { name: 'contains word', ql: "title contains 'word'", expected: where({ kind: 'contains', property: 'title', term: 'word', prefix: false }) },
  { name: 'contains prefix', ql: "title CONTAINS 'wor*'", expected: where({ kind: 'contains', property: 'title', term: 'wor', prefix: true }) },
  {
    name: 'within',
    ql: 'location within 1000 of 37.77, -122.41',
    expected: where({ kind: 'within', property: 'location', meters: 1000, latitude: 37.77, longitude: -122.41 }),
  },
  {
    name: 'within nested property',
    ql: 'home.location within 2.5 of 0,0',
    expected: where({ kind: 'within', property: 'home.location', meters: 2.5, latitude: 0, longitude: 0 }),
  },
  { name: 'dotted path', ql: 'a.b.c = 1', expected: where(eq('a.b.c', 1)) },
  {
    name: 'order is a property name unless followed by by',
    ql: 'order = 1 order by order',
    expected: { select: null, where: eq('order', 1), orderBy: [{ property: 'order', direction: 'asc' }] },
  },
  {
    name: 'and binds tighter than or',
    ql: 'a=1 or b=2 and c=3',
    expected: where({ kind: 'or', conditions: [eq('a', 1), { kind: 'and', conditions: [eq('b', 2), eq('c', 3)] }] }),
  },
  {
    name: 'and before or on the left',
    ql: 'a=1 and b=2 or c=3',
    expected: where({ kind: 'or', conditions: [{ kind: 'and', conditions: [eq('a', 1), eq('b', 2)] }, eq('c', 3)] }),
  },
  {
    name: 'not binds tighter than and',
    ql: 'not a=1 and b=2',
    expected: where({ kind: 'and', conditions: [{ kind: 'not', condition: eq('a', 1) }, eq('b', 2)] }),
  },
  {
    name: 'parentheses override precedence',
    ql: '(a=1 or b=2) and c=3',
    expected: where({ kind: 'and', conditions: [{ kind: 'or', conditions: [eq('a', 1), eq('b', 2)] }, eq('c', 3)] }),
  },
  {
    name: 'not of a group',
    ql: 'not (a=1 or b=2)',
    expected: where({ kind: 'not', condition: { kind: 'or', conditions: [eq('a', 1), eq('b', 2)] } }),
  },
  { name: 'double not', ql: 'not not a=1', expected: where({ kind: 'not', condition: { kind: 'not', condition: eq('a', 1) } }) },
  { name: 'or chains flatten', ql: 'a=1 or a=2 or a=3', expected: where({ kind: 'or', conditions: [eq('a', 1), eq('a', 2), eq('a', 3)] }) },
];

describe('parseQuery', () => {
  it.each(valid)('$name: $ql', ({ ql, expected }) => {
    expect(parseQuery(ql)).toEqual(expected);
  });

  const invalid: { ql: string; message: string }[] = [
    { ql: "name != 'x'", message: "unexpected '!=' at position 6" },
    { ql: 'name = "x"', message: `unexpected '"' at position 8` },
    { ql: 'a =', message: 'unexpected end of query at position 4' },
    { ql: '(a=1', message: "unexpected end of query at position 5 (missing ')')" },
    { ql: 'a=1)', message: "unexpected ')' at position 4" },
    { ql: 'a ~ 1', message: "unexpected '~' at position 3" },
    { ql: 'select from', message: "unexpected 'from' at position 8" },
    { ql: 'select * from dogs', message: "unexpected 'from' at position 10" },
    { ql: 'order by', message: 'unexpected end of query at position 9' },
    { ql: 'a = 1 b', message: "unexpected 'b' at position 7" },
    { ql: 'a = 1 and', message: 'unexpected end of query at position 10' },
    { ql: 'a = fred', message: "unexpected 'fred' at position 5" },
    { ql: '= 1', message: "unexpected '=' at position 1" },
    { ql: "a = 'abc", message: 'unterminated string starting at position 5' },
    { ql: 'a = 1 order by', message: 'unexpected end of query at position 15' },
    { ql: 'a contains 1', message: "unexpected '1' at position 12" },
    { ql: 'select', message: 'unexpected end of query at position 7' },
    { ql: 'where', message: 'unexpected end of query at position 6' },
    { ql: "a = 'x\\q'", message: "unknown escape '\\q' at position 7" },
    { ql: 'not', message: 'unexpected end of query at position 4' },
    { ql: 'a = 1 and and = 2', message: "unexpected 'and' at position 11" },
    { ql: 'a == 1', message: "unexpected '=' at position 4" },
    { ql: 'a <> 1', message: "unexpected '>' at position 4" },
    { ql: 'a = 1 order by b sideways', message: "unexpected 'sideways' at position 18" },
    { ql: 'location within 10 of 100, 0', message: '100 is out of range at position 23' },
    { ql: 'location within -1 of 0, 0', message: '-1 is out of range at position 17' },
    { ql: 'location within 10 of 1 2', message: "unexpected '2' at position 25" },
    { ql: 'location within 10 at 1, 2', message: "unexpected 'at' at position 20" },
    { ql: 'a = 1e999', message: "number '1e999' out of range at position 5" },
    { ql: "a = 'x' or (b = 1", message: 'unexpected end of query at position 18' },
    { ql: 'a.= 1', message: "unexpected '.' at position 2" },
    { ql: '😀 = 1', message: "unexpected '😀' at position 1" },
    { ql: "'😀' = 1", message: "unexpected ''😀'' at position 1" },
    { ql: 'a = 1 😀', message: "unexpected '😀' at position 7" },
    { ql: 'select *, a', message: "unexpected ',' at position 9" },
    { ql: 'a = -', message: "unexpected '-' at position 5" },
    { ql: `${'('.repeat(40)}a = 1${')'.repeat(40)}`, message: 'conditions nested too deeply at position 33' },
    { ql: `${'not '.repeat(40)}a = 1`, message: 'conditions nested too deeply at position 129' },
    { ql: Array.from({ length: 1001 }, () => 'a = 1').join(' or '), message: 'too many conditions at position 9001' },
    { ql: 'order by a, b, c, d, e, f, g, h, i', message: 'too many order by properties at position 34' },
  ];

  it.each(invalid)('rejects $ql', ({ ql, message }) => {
    const error = catchError(() => parseQuery(ql));
    expect(isAppError(error)).toBe(true);
    if (!isAppError(error)) return;
    expect(error.error).toBe('query_parse');
    expect(error.status).toBe(400);
    expect(error.message.slice(0, message.length)).toBe(message);
    expect(error.fields.ql).toBe(error.message);
  });

  it('accepts the limits themselves', () => {
    expect(() => parseQuery(`${'('.repeat(32)}a = 1${')'.repeat(32)}`)).not.toThrow();
    expect(() => parseQuery(Array.from({ length: 1000 }, () => 'a = 1').join(' or '))).not.toThrow();
    expect(() => parseQuery('order by a, b, c, d, e, f, g, h')).not.toThrow();
  });
});

describe('parseQuery properties', () => {
  it('parses printed syntax trees back to the same tree, in any spelling', () => {
    fc.assert(
      fc.property(queryArbitrary, spellingArbitrary, (query, spelling) => {
        expect(parseQuery(printQuery(query, spelling))).toEqual(query);
      }),
      { numRuns: 500 },
    );
  });

  it('either returns a query or throws query_parse, for any string', () => {
    const anyString = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 60 }),
      fc.string({ unit: 'grapheme-ascii', maxLength: 60 }),
      fc
        .array(
          fc.constantFrom(
            'select',
            '*',
            'where',
            'a',
            'b.c',
            '=',
            '<',
            '>=',
            'eq',
            "'x'",
            "'",
            '1',
            '-2.5',
            'true',
            'and',
            'or',
            'not',
            '(',
            ')',
            ',',
            'order',
            'by',
            'asc',
            'contains',
            'within',
            'of',
            '!',
            '"',
            '\\',
            ' ',
            '5f1c0a2e-1b2c-4d3e-8f40-0123456789ab',
          ),
          { maxLength: 20 },
        )
        .map((words) => words.join(' ')),
    );
    fc.assert(fc.property(anyString, expectParsesOrQueryParse), { numRuns: 3000 });
  });

  it('either returns a query or throws query_parse, for mutations of valid queries', () => {
    const mutation = fc.record({
      at: fc.nat(),
      remove: fc.nat({ max: 3 }),
      insert: fc.oneof(
        fc.string({ maxLength: 3, unit: 'binary' }),
        fc.constantFrom('(', ')', "'", '\\', '!=', '"', ' ', 'not ', ' and', '.', ',', '-', '*', 'by'),
      ),
    });
    fc.assert(
      fc.property(queryArbitrary, spellingArbitrary, fc.array(mutation, { minLength: 1, maxLength: 4 }), (query, spelling, mutations) => {
        let ql = printQuery(query, spelling);
        for (const { at, remove, insert } of mutations) {
          const index = ql.length === 0 ? 0 : at % (ql.length + 1);
          ql = ql.slice(0, index) + insert + ql.slice(index + remove);
        }
        expectParsesOrQueryParse(ql);
      }),
      { numRuns: 3000 },
    );
  });
});

function expectParsesOrQueryParse(ql: string): void {
  const error = catchError(() => parseQuery(ql));
  if (error === undefined) return;
  if (!isAppError(error) || error.error !== 'query_parse' || !/ at position \d+/.test(error.message)) {
    throw new Error(`parseQuery(${JSON.stringify(ql)}) threw ${String(error)}`);
  }
}

function catchError(run: () => unknown): unknown {
  try {
    run();
    return undefined;
  } catch (error) {
    return error;
  }
}
