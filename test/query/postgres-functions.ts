/**
 * Writes the SQL of src/db/migrations/postgres/0001_query_functions.sql: the PostgreSQL
 * functions behind the query language's string semantics (see the migration's comments), with the
 * tables that come from JavaScript — the word class of splitWords from this Node's Unicode data.
 * postgres.test.ts checks the migration is still what this writes. The migration is applied
 * history: when functions.ts (or Node's Unicode version) changes, add a new custom migration
 * (CREATE OR REPLACE) with what this prints:
 *
 *   npx tsx test/query/postgres-functions.ts
 *
 * CASE_PAIRS_AFTER_ICU_72 are the characters whose JavaScript lower case PostgreSQL's ICU 72
 * (Unicode 15) lower() leaves alone: the case pairs Unicode 16 and 17 added, found by comparing
 * every code point.
 */
import { pathToFileURL } from 'node:url';

const CASE_PAIRS_AFTER_ICU_72 = [
  0x1c89,
  0xa7cb,
  0xa7cc,
  0xa7ce,
  0xa7d2,
  0xa7d4,
  0xa7da,
  0xa7dc,
  ...Array.from({ length: 22 }, (_, i) => 0x10d50 + i),
  ...Array.from({ length: 25 }, (_, i) => 0x16ea0 + i),
];

function escape(codePoint: number): string {
  return codePoint <= 0xffff ? `\\u${codePoint.toString(16).padStart(4, '0')}` : `\\U${codePoint.toString(16).padStart(8, '0')}`;
}

function rangesOf(codePoints: readonly number[]): [number, number][] {
  const ranges: [number, number][] = [];
  for (const c of codePoints) {
    const last = ranges[ranges.length - 1];
    if (last !== undefined && last[1] === c - 1) last[1] = c;
    else ranges.push([c, c]);
  }
  return ranges;
}

/** A regular-expression bracket of the ranges, escapes with doubled backslashes (inside E''). */
function bracket(ranges: readonly [number, number][], negate: boolean): string {
  const items = ranges.map(([from, to]) => (from === to ? escape(from) : `${escape(from)}-${escape(to)}`));
  return `[${negate ? '^' : ''}${items.join('').replaceAll('\\', '\\\\')}]`;
}

function wordCodePoints(): number[] {
  const word = /^[\p{L}\p{M}\p{N}]$/u;
  const points: number[] = [];
  for (let c = 0; c < 0x110000; c++) if ((c < 0xd800 || c > 0xdfff) && word.test(String.fromCodePoint(c))) points.push(c);
  return points;
}

export function queryFunctionsSql(): string {
  const characters = CASE_PAIRS_AFTER_ICU_72.map((c) => String.fromCodePoint(c));
  const lowered = characters.map((character) => character.toLowerCase());
  if (lowered.some((character, i) => [...character].length !== 1 || character === characters[i])) throw new Error('not a 1:1 case pair');
  const single = (text: readonly string[]): string => text.map((character) => escape(character.codePointAt(0)!)).join('');
  const upper = single(characters);
  const lower = single(lowered);
  const nonWord = bracket(rangesOf(wordCodePoints()), true);
  const rare = bracket(rangesOf(CASE_PAIRS_AFTER_ICU_72), false);
  const B = '--> statement-breakpoint';
  return `-- SQL functions the query language (src/data/query/dialect.ts, PostgreSQL dialect) calls, with
-- the results of the JavaScript in src/data/query/functions.ts that SQLite runs (src/db/functions.ts),
-- and the index property queries use. Unqualified names: each instance (each test) may work in a
-- schema of its own (search_path).
--
-- Why each function gives JavaScript's answer is argued next to it; test/query/postgres.test.ts
-- checks them against functions.ts on generated inputs. Written by test/query/postgres-functions.ts
-- (the tables from Node's Unicode data).
DO $check$
BEGIN
  IF current_setting('server_encoding') <> 'UTF8' THEN
    RAISE EXCEPTION 'idp needs a UTF8 database (this one is %)', current_setting('server_encoding');
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_collation WHERE collname = 'und-x-icu') THEN
    RAISE EXCEPTION 'idp needs PostgreSQL built with ICU (collation "und-x-icu" is missing): case-insensitive queries fold Unicode case with it';
  END IF;
END
$check$;
${B}
-- foldCase: String.prototype.toLowerCase, ICU's full default lower-casing (root locale). ICU's
-- lower() does the same — context-sensitive final sigma, İ → i̇ — for every character its Unicode
-- version knows; translate() adds the case pairs of Unicode 16 and 17, which JavaScript (Node 20,
-- ICU 78) knows and PostgreSQL's ICU may not (a no-op where it does), only where one of those
-- characters occurs, as translate is slow. ASCII text folds to ASCII text, A-Z to a-z, in both.
CREATE OR REPLACE FUNCTION idp_fold(value text) RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
BEGIN
  IF octet_length(value) = char_length(value) THEN RETURN lower(value COLLATE "C"); END IF;
  IF value COLLATE "C" ~ E'${rare}' THEN
    RETURN translate(lower(value COLLATE "und-x-icu"), E'${upper}', E'${lower}');
  END IF;
  RETURN lower(value COLLATE "und-x-icu");
END
$$;
${B}
-- hasPrefix (String.prototype.startsWith) on folded text: code-point equality of the prefix.
-- FALSE, not NULL, for a NULL argument, as SQLite's idp_starts_with gives 0.
CREATE OR REPLACE FUNCTION idp_starts_with(value text, prefix text) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT coalesce(starts_with(value COLLATE "C", prefix COLLATE "C"), false) $$;
${B}
-- splitWords(text).join(' '): the text folded, then every run of characters outside
-- [\\p{L}\\p{M}\\p{N}] becomes one space, trimmed at both ends. The bracket lists that class's
-- code-point ranges as JavaScript's /u regular expressions know it (Unicode 17.0); in ASCII it is
-- [0-9A-Za-z], after folding [0-9a-z], a much cheaper expression. Words never contain a space,
-- so the words are exactly the space-separated parts.
CREATE OR REPLACE FUNCTION idp_words(value text) RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
DECLARE
  folded text := idp_fold(value) COLLATE "C";
BEGIN
  IF octet_length(folded) = char_length(folded) THEN
    RETURN btrim(regexp_replace(folded, '[^0-9a-z]+', ' ', 'g'), ' ');
  END IF;
  RETURN btrim(regexp_replace(folded, E'${nonWord}+', ' ', 'g'), ' ');
END
$$;
${B}
-- containsWords(value, term, prefix), given the term's words as splitWords(term).join(' ') —
-- computed by the caller in JavaScript (dialect.ts), once per query rather than once per row.
-- With the words of value as ' w1 w2 … wn ' and the term's as 't1 … tm', the term's words occur
-- consecutively among value's exactly when ' t1 … tm ' is a substring (a match starts and ends
-- at word boundaries, since words hold no spaces); with prefix the last term word only has to
-- start a word: ' t1 … tm' without the trailing space. No words (m = 0) matches, with prefix
-- only, any value that has a word. Every word of value is a substring of the folded value, so
-- a folded value without t1 is refused before it is split.
CREATE OR REPLACE FUNCTION idp_contains_words(value text, words text, prefix boolean) RETURNS boolean
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $$
DECLARE
  found text;
BEGIN
  IF value IS NULL OR words IS NULL OR prefix IS NULL THEN RETURN false; END IF;
  IF words = '' THEN RETURN prefix AND idp_words(value) <> ''; END IF;
  IF strpos(idp_fold(value) COLLATE "C", split_part(words, ' ', 1) COLLATE "C") = 0 THEN RETURN false; END IF;
  found := ' ' || idp_words(value) || ' ';
  IF prefix THEN RETURN strpos(found COLLATE "C", (' ' || words) COLLATE "C") > 0; END IF;
  RETURN strpos(found COLLATE "C", (' ' || words || ' ') COLLATE "C") > 0;
END
$$;
${B}
-- Containment (properties @> '{"a": 1}') is what a query's \`=\` on a number or boolean adds for
-- this index to serve (see dialect.ts).
CREATE INDEX IF NOT EXISTS "entities_properties" ON "entities" USING gin ("properties" jsonb_path_ops);
`;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) process.stdout.write(queryFunctionsSql());
