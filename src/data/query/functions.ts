/**
 * The JavaScript behind the query language's string and geo semantics. The in-memory evaluator
 * calls these directly and src/db/functions.ts registers them as SQLite functions, so a query
 * gives the same answer in both places by construction, not by two implementations agreeing.
 * PostgreSQL has SQL ports (src/db/migrations/postgres/0001_query_functions.sql, and
 * 0020_builtin_distance.sql for distanceMeters), held to these by test/query/postgres.test.ts —
 * the strings exactly, distances within rounding: a change here needs the same change there.
 */

/** Case folding for Usergrid's case-insensitive string comparisons. */
export function foldCase(text: string): string {
  return text.toLowerCase();
}

/**
 * Orders strings by code point, which is the UTF-8 byte order SQLite's BINARY collation uses
 * (JavaScript's `<` compares UTF-16 code units, which puts U+E000–U+FFFF after astral characters).
 */
export function compareText(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) < codePointRank(y) ? -1 : 1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

// Moves surrogates (astral code points) above U+E000–U+FFFF; the relative order within each
// range is unchanged, so the first differing code unit decides as the code points would.
function codePointRank(unit: number): number {
  if (unit < 0xd800) return unit;
  return unit >= 0xe000 ? unit - 0x800 : unit + 0x2000;
}

const WORD = /[\p{L}\p{M}\p{N}]+/gu;

/** The words of a text for `contains`: runs of letters, marks and digits, case-folded. */
export function splitWords(text: string): string[] {
  return foldCase(text).match(WORD) ?? [];
}

/**
 * `contains`: the words of `term` occur consecutively among the words of `text`; with `prefix`
 * (`'pre*'`) the last of them only has to start a word. A term without words matches nothing,
 * except `'*'`, which matches any text that has a word.
 */
export function containsWords(text: string, term: string, prefix: boolean): boolean {
  const words = splitWords(text);
  const wanted = splitWords(term);
  if (wanted.length === 0) return prefix && words.length > 0;
  const last = wanted.length - 1;
  for (let i = 0; i + wanted.length <= words.length; i++) {
    let found = true;
    for (let j = 0; found && j <= last; j++) {
      const word = words[i + j];
      found = word === wanted[j] || (prefix && j === last && word.startsWith(wanted[j]));
    }
    if (found) return true;
  }
  return false;
}

// IUGG mean Earth radius; Usergrid's `within` is a great-circle distance in meters.
const EARTH_RADIUS_METERS = 6_371_008.8;

/** Great-circle (haversine) distance in meters between two points given in degrees. */
export function distanceMeters(latitude1: number, longitude1: number, latitude2: number, longitude2: number): number {
  const radians = Math.PI / 180;
  const halfLatitude = ((latitude2 - latitude1) * radians) / 2;
  const halfLongitude = ((longitude2 - longitude1) * radians) / 2;
  const h = Math.sin(halfLatitude) ** 2 + Math.cos(latitude1 * radians) * Math.cos(latitude2 * radians) * Math.sin(halfLongitude) ** 2;
  // Rounding can push h a hair above 1 for antipodal points; asin would return NaN.
  return 2 * EARTH_RADIUS_METERS * Math.asin(Math.sqrt(Math.min(1, h)));
}

/** `prop = 'pre*'` on folded strings; a function rather than SQL `instr`/`substr`, which stop at NUL. */
export function hasPrefix(text: string, prefix: string): boolean {
  return text.startsWith(prefix);
}
