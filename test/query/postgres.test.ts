/**
 * The PostgreSQL side of the query language: the SQL functions of migration
 * 0001_query_functions.sql give the results of src/data/query/functions.ts (which SQLite runs
 * itself), 0020_builtin_distance.sql its distances within rounding, and the PostgreSQL dialect
 * writes what dialect.ts says.
 * The tables in the migration are checked against JavaScript's Unicode data everywhere; the
 * functions themselves when IDP_TEST_DATABASE_URL names a PostgreSQL server.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { PgDialect } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { compileQuery } from '../../src/data/query/compile.js';
import { latitudeBand } from '../../src/data/query/dialect.js';
import { containsWords, distanceMeters, foldCase, hasPrefix, splitWords } from '../../src/data/query/functions.js';
import { parseQuery } from '../../src/data/query/parse.js';
import type { Database_ } from '../../src/db/open.js';
import { openTestDatabase, TEST_DATABASE_URL } from '../database.js';
import { queryFunctionsSql } from './postgres-functions.js';

const MIGRATION = readFileSync(new URL('../../src/db/migrations/postgres/0001_query_functions.sql', import.meta.url), 'utf8');

/** The body of `CREATE … FUNCTION name(` up to the statement's end. */
function functionSource(name: string): string {
  const start = MIGRATION.indexOf(`FUNCTION ${name}(`);
  expect(start).toBeGreaterThan(0);
  return MIGRATION.slice(start, MIGRATION.indexOf('--> statement-breakpoint', start));
}

/** The code points of a regular-expression bracket written with \\uXXXX / \\UXXXXXXXX escapes, backslashes doubled (an E'' string). */
function bracketCodePoints(bracket: string): Set<number> {
  const points = new Set<number>();
  const escape = String.raw`\\\\(?:u([0-9a-f]{4})|U([0-9a-f]{8}))`;
  const item = new RegExp(`${escape}(?:-${escape})?`, 'gy');
  let match: RegExpExecArray | null;
  let end = 0;
  while ((match = item.exec(bracket)) !== null) {
    const from = parseInt(match[1] ?? match[2], 16);
    const to = (match[3] ?? match[4]) ? parseInt(match[3] ?? match[4], 16) : from;
    for (let c = from; c <= to; c++) points.add(c);
    end = item.lastIndex;
  }
  expect(end).toBe(bracket.length);
  return points;
}

function* allCodePoints(): Generator<number> {
  for (let c = 0; c < 0x110000; c++) if (c < 0xd800 || c > 0xdfff) yield c;
}

describe('the tables of the PostgreSQL functions', () => {
  it('are what postgres-functions.ts writes from JavaScript', () => {
    // A difference after a Node upgrade means JavaScript's Unicode data moved: SQLite (which runs
    // functions.ts) and PostgreSQL would disagree until a new migration brings the functions along.
    expect(MIGRATION).toBe(queryFunctionsSql());
  });

  it('idp_words splits on exactly the characters outside [\\p{L}\\p{M}\\p{N}], as splitWords does', () => {
    const source = functionSource('idp_words');
    const bracket = /E'\[\^((?:\\\\[uU][0-9a-f]+|-)+)\]\+'/.exec(source);
    expect(bracket).not.toBeNull();
    const words = bracketCodePoints(bracket![1]);
    const word = /^[\p{L}\p{M}\p{N}]$/u;
    const differing = [...allCodePoints()].filter((c) => word.test(String.fromCodePoint(c)) !== words.has(c));
    expect(differing).toEqual([]);
    // The ASCII branch: [0-9a-z] after folding.
    expect(source).toContain(`'[^0-9a-z]+'`);
    for (let c = 0; c < 128; c++) expect(word.test(foldCase(String.fromCharCode(c)))).toBe(/[0-9a-z]/.test(foldCase(String.fromCharCode(c))));
  });

  it("idp_fold's translate maps each character to its JavaScript lower case, where its bracket finds one", () => {
    const source = functionSource('idp_fold');
    const translate = /translate\(lower\(value COLLATE "und-x-icu"\), E'([^']*)', E'([^']*)'\)/.exec(source);
    const check = /~ E'\[((?:\\\\[uU][0-9a-f]+|-)+)\]'/.exec(source);
    expect(translate).not.toBeNull();
    expect(check).not.toBeNull();
    const decode = (text: string): string[] =>
      text
        .split(/\\u|\\U/)
        .slice(1)
        .map((hex) => String.fromCodePoint(parseInt(hex, 16)));
    const from = decode(translate![1]);
    const to = decode(translate![2]);
    expect(to).toEqual(from.map((character) => character.toLowerCase()));
    expect(to.every((character, i) => character !== from[i])).toBe(true);
    expect([...bracketCodePoints(check![1])].sort((a, b) => a - b)).toEqual(from.map((character) => character.codePointAt(0)));
  });
});

describe('the PostgreSQL dialect', () => {
  const builder = new PgDialect();
  const compile = (ql: string, cursor?: string) => compileQuery(parseQuery(ql), { dialect: 'postgres', table: 'e', cursor });

  it('binds every user value as a parameter', () => {
    const hostile = "x') OR 1=1 --";
    const compiled = compile(`name = '${hostile.replace(/'/g, "\\'")}' or title contains 'drop*' or a < 3 or location within 5 of 1, 2 order by name`);
    const { sql: text, params } = builder.sqlToQuery(compiled.where);
    expect(text).not.toContain('OR 1=1');
    expect(text).not.toContain('drop');
    expect(params).toEqual(expect.arrayContaining([hostile.toLowerCase(), 'drop', 3, 5, 1, 2]));
  });

  it('reads jsonb, compares text by code point, and orders NULL as SQLite does', () => {
    const compiled = compile("n.x = 'A' and a > 1 and created > 1.5 order by a desc");
    const where = builder.sqlToQuery(compiled.where);
    expect(where.sql).toContain(`jsonb_typeof(("e"."properties" #> '{n,x}'))`);
    expect(where.sql).toContain('CAST(("e"."properties" #> \'{a}\') AS double precision)');
    expect(where.sql).toMatch(/\(idp_fold\(\("e"\."properties" #>> '\{n,x\}'\)\) COLLATE "C"\) = \$\d+/);
    // created is an integer column: > 1.5 is > 1, which its index serves.
    expect(where.sql).toMatch(/"e"\."created" > \$\d+/);
    expect(where.params).toEqual(expect.arrayContaining(['a', 1]));
    expect(where.params).not.toContain(1.5);
    const order = builder.sqlToQuery(compiled.orderBy).sql;
    expect(order).toMatch(
      /^CASE jsonb_typeof\(.* END ASC, CASE .* END DESC NULLS LAST, \(CASE .* END COLLATE "C"\) DESC NULLS LAST, \("e"\."uuid" COLLATE "C"\) DESC$/,
    );
    expect(builder.sqlToQuery(compile('').orderBy).sql).toBe('"e"."created" DESC, ("e"."uuid" COLLATE "C") DESC');
    expect(builder.sqlToQuery(compile('').where).sql).toBe('TRUE');
  });

  it('adds index-served containment to = on numbers and booleans, not strings', () => {
    const params = (ql: string) => builder.sqlToQuery(compile(ql).where).params;
    // The document around the value, which stays a parameter of its own (query-shapes.ts).
    expect(builder.sqlToQuery(compile('n.y.z = 1').where).sql).toMatch(/"e"\."properties" @> CAST\(CAST\(\$\d+ AS text\) \|\| CAST\(\$\d+ AS text\)/);
    expect(params('n.y.z = 1')).toEqual(expect.arrayContaining(['{"n":{"y":{"z":', 1, '}}}']));
    expect(params('a = true')).toEqual(expect.arrayContaining(['{"a":', true, '}']));
    expect(builder.sqlToQuery(compile("a = 'x'").where).sql).not.toContain('@>');
    expect(builder.sqlToQuery(compile('a < 1').where).sql).not.toContain('@>');
  });

  it('rewrites literals with NUL, which PostgreSQL text cannot hold, exactly for values without one', () => {
    const text = (ql: string) => builder.sqlToQuery(compile(ql).where);
    // The value's test and its elements' are both FALSE.
    const never = /^\(\(\(coalesce\(jsonb_typeof[^$]* AND FALSE\) OR \(coalesce[^$]* AND FALSE\)\)\)\)$/;
    expect(text("a = 'x\\u0000y'").sql).toMatch(never);
    expect(text("a < 'x\\u0000y'").sql).toMatch(/<= \$\d+/);
    expect(text("a < 'x\\u0000y'").params).toContain('x');
    expect(text("a >= 'x\\u0000y'").sql).toMatch(/\) COLLATE "C"\) > \$\d+/);
    expect(text("a = 'x\\u0000*'").sql).toMatch(never);
    expect(text("a contains 'x\\u0000y'").params).toContain('x y');
    for (const { params } of [text("a = 'x\\u0000y'"), text("a < 'x\\u0000y'"), text("a contains 'x\\u0000y*'")]) {
      expect(params.some((param) => typeof param === 'string' && param.includes('\u0000'))).toBe(false);
    }
  });

  it('keeps every point within a distance inside the latitude band it tests first', () => {
    // Points at exactly the distance limit, where the band is tightest: any point the band left
    // out would be a match lost.
    const tiny = fc.double({ min: -1e-130, max: 1e-130, noNaN: true });
    const lat = fc.oneof(latitude, tiny, fc.constantFrom(90, -90, 89.99999999, -89.99999999));
    fc.assert(
      fc.property(lat, longitude, lat, longitude, (latitude1, longitude1, latitude2, longitude2) => {
        const meters = distanceMeters(latitude1, longitude1, latitude2, longitude2);
        expect(Math.abs(latitude1 - latitude2)).toBeLessThanOrEqual(latitudeBand(meters) ?? Infinity);
      }),
      { numRuns: 20_000 },
    );
    expect(latitudeBand(2.1e7)).toBeNull();
    expect(builder.sqlToQuery(compile('location within 1000 of 10, 20').where).sql).toMatch(
      /OR abs\(.* <= CAST\(\$\d+ AS double precision\)+ AND idp_distance/,
    );
  });

  it('refuses property paths the grammar cannot produce, rather than write them into SQL', () => {
    const query = {
      select: null,
      where: { kind: 'compare' as const, property: "a'b", operator: '=' as const, value: { kind: 'number' as const, value: 1 } },
      orderBy: [],
    };
    expect(() => compileQuery(query, { dialect: 'postgres' })).toThrow(TypeError);
  });
});

// Inputs like the property tests' (arbitraries.ts), and wider.
const WORDS = ['alpha', 'Beta', 'gamma', 'alphabet', 'BETA', 'ünï', 'fred', 'x1'];
const text = fc.oneof(
  fc.string({ maxLength: 12, unit: 'grapheme' }),
  fc
    .array(fc.oneof(fc.constantFrom(...WORDS), fc.string({ maxLength: 4, unit: 'grapheme' })), { maxLength: 5 })
    .chain((words) => fc.constantFrom(' ', ', ', '-', '  ').map((separator) => words.join(separator))),
  // Final sigma depends on the letters around it; İ and ß fold to two characters.
  fc
    .array(fc.constantFrom('Σ', 'Α', 'a', ' ', '.', "'", '\u0301', '\u00ad', 'ʰ', '1', 'ς', 'İ', 'ß', 'ǅ', 'Ω', '\u200d'), { maxLength: 8 })
    .map((parts) => parts.join('')),
  fc.string({ maxLength: 8, unit: 'binary' }).filter((value) => !value.includes('\u0000') && !/\p{Cs}/u.test(value)),
);
const term = fc.oneof(fc.constantFrom(...WORDS, 'alpha beta', 'al', 'BET', '', 'ü', 'σ'), fc.string({ maxLength: 4, unit: 'grapheme' }), text);
const latitude = fc.oneof(fc.constantFrom(37.77, 37.78, -33.86, 0, 90, -90), fc.double({ min: -90, max: 90, noNaN: true }));
const longitude = fc.oneof(fc.constantFrom(-122.41, -122.42, 151.2, 0, 180, -180), fc.double({ min: -180, max: 180, noNaN: true }));
// Stored coordinates can be anything; the within query's are checked by the parser.
const stored = fc.oneof(
  latitude,
  longitude,
  fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e7, max: 1e7 }),
  fc.double({ min: -1e-300, max: 1e-300, noNaN: true }),
);
const BATCH = { minLength: 1, maxLength: 400 } as const;

/**
 * Where idp_distance may lie for a distanceMeters of these points: the same haversine, whose sin,
 * cos and asin may differ from JavaScript's in the last bit. That moves h = sin²(Δφ/2) +
 * cos φ1 cos φ2 sin²(Δλ/2) by a few parts in 1e16 of its terms, and the distance 2R·asin(√h) by
 * about as much relative to it — except near the antipode (h near 1), where asin is steep and
 * the same error in h moves the distance by up to 2R·√(error): centimeters. docs/api.md#distances
 * says so.
 */
function distanceBounds(latitude1: number, longitude1: number, latitude2: number, longitude2: number): [number, number] {
  const radius = 6_371_008.8;
  const radians = Math.PI / 180;
  const terms =
    Math.sin(((latitude2 - latitude1) * radians) / 2) ** 2 +
    Math.abs(Math.cos(latitude1 * radians) * Math.cos(latitude2 * radians)) * Math.sin(((longitude2 - longitude1) * radians) / 2) ** 2;
  const meters = distanceMeters(latitude1, longitude1, latitude2, longitude2);
  const h = Math.sin(meters / (2 * radius)) ** 2;
  const error = 4e-15 * terms + 1e-300;
  const at = (value: number): number => 2 * radius * Math.asin(Math.sqrt(Math.min(1, Math.max(0, value))));
  return [at(h - error) * (1 - 1e-12) - 1e-9, at(h + error) * (1 + 1e-12) + 1e-9];
}

describe.skipIf(TEST_DATABASE_URL === undefined)(
  `the PostgreSQL functions give functions.ts's results${TEST_DATABASE_URL === undefined ? ' (skipped: set IDP_TEST_DATABASE_URL)' : ''}`,
  () => {
    let database: Database_;
    beforeAll(async () => {
      database = await openTestDatabase({ poolSize: 1 });
    });
    afterAll(async () => database?.close());

    it('idp_fold is foldCase, idp_words is splitWords, idp_starts_with is hasPrefix', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(fc.tuple(text, text), BATCH), async (pairs) => {
          const rows = await database.driver.query<{ folded: string; words: string; starts: boolean }>(
            `SELECT idp_fold(a) AS folded, idp_words(a) AS words, idp_starts_with(idp_fold(a), idp_fold(b)) AS starts
             FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS input(a, b, n) ORDER BY n`,
            [pairs.map(([a]) => a), pairs.map(([, b]) => b)],
          );
          expect(rows).toEqual(pairs.map(([a, b]) => ({ folded: foldCase(a), words: splitWords(a).join(' '), starts: hasPrefix(foldCase(a), foldCase(b)) })));
        }),
        { numRuns: 60 },
      );
    }, 120_000);

    it('idp_contains_words is containsWords', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(fc.tuple(text, term, fc.boolean()), BATCH), async (inputs) => {
          const rows = await database.driver.query<{ found: boolean }>(
            `SELECT idp_contains_words(a, b, c) AS found
             FROM unnest($1::text[], $2::text[], $3::boolean[]) WITH ORDINALITY AS input(a, b, c, n) ORDER BY n`,
            [inputs.map(([a]) => a), inputs.map(([, b]) => splitWords(b).join(' ')), inputs.map(([, , c]) => c)],
          );
          expect(rows.map((row) => row.found)).toEqual(inputs.map(([a, b, c]) => containsWords(a, b, c)));
        }),
        { numRuns: 60 },
      );
    }, 120_000);

    it('idp_distance is distanceMeters within rounding', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(fc.tuple(stored, stored, latitude, longitude), BATCH), async (inputs) => {
          const rows = await database.driver.query<{ meters: number }>(
            `SELECT idp_distance(a, b, c, d) AS meters
             FROM unnest($1::float8[], $2::float8[], $3::float8[], $4::float8[]) WITH ORDINALITY AS input(a, b, c, d, n) ORDER BY n`,
            [0, 1, 2, 3].map((k) => inputs.map((input) => String(input[k]))),
          );
          inputs.forEach(([a, b, c, d], i) => {
            const [low, high] = distanceBounds(a, b, c, d);
            expect(rows[i].meters, `idp_distance(${a}, ${b}, ${c}, ${d})`).toBeGreaterThanOrEqual(low);
            expect(rows[i].meters, `idp_distance(${a}, ${b}, ${c}, ${d})`).toBeLessThanOrEqual(high);
          });
        }),
        { numRuns: 60 },
      );
      // Where products underflow — PostgreSQL reports an error where IEEE arithmetic rounds to
      // zero — exactly JavaScript's answer, zero or not: the edge of a `within 0`.
      for (const point of [
        [5e-324, 1e-300, 0, 0],
        [0, 0, 0, -1.801067372138143e-160],
        [1e-200, 0, 0, 1e-170],
      ]) {
        const [row] = await database.driver.query<{ meters: number }>('SELECT idp_distance($1, $2, $3, $4) AS meters', point.map(String));
        expect(row.meters + 0, `idp_distance(${point})`).toBe(distanceMeters(point[0], point[1], point[2], point[3]) + 0);
      }
    }, 120_000);

    it('serves = on a number from the GIN index on properties', async () => {
      const { db, driver } = database;
      const compiled = compileQuery(parseQuery('n.x = 5'), { dialect: 'postgres' });
      const query = new PgDialect().sqlToQuery(sql`SELECT uuid FROM entities WHERE ${compiled.where}`);
      expect(db).toBeDefined();
      await db.transaction(async () => {
        await driver.run('SET LOCAL enable_seqscan = off');
        const plan = await driver.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${query.sql}`, query.params);
        expect(plan.map((line) => line['QUERY PLAN']).join('\n')).toContain('entities_properties');
      });
    });
  },
);
