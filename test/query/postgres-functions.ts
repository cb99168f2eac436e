/**
 * Writes the SQL of src/db/migrations/postgres/0001_query_functions.sql: the PostgreSQL
 * functions behind the query language (see the migration's comments), with the tables and
 * constants that come from JavaScript — the word class of splitWords from this Node's Unicode
 * data, fdlibm's constants as exact doubles. postgres.test.ts checks the migration is still
 * what this writes. The migration is applied history: when functions.ts (or Node's Unicode
 * version) changes, add a new custom migration (CREATE OR REPLACE) with what this prints:
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

// fdlibm's __ieee754_rem_pio2: high words of n·pi/2, n = 1 … 32.
const NPIO2_HW = [
  0x3ff921fb, 0x400921fb, 0x4012d97c, 0x401921fb, 0x401f6a7a, 0x4022d97c, 0x4025fdbb, 0x402921fb, 0x402c463a, 0x402f6a7a, 0x4031475c, 0x4032d97c, 0x40346b9c,
  0x4035fdbb, 0x40378fdb, 0x403921fb, 0x403ab41b, 0x403c463a, 0x403dd85a, 0x403f6a7a, 0x40407e4c, 0x4041475c, 0x4042106c, 0x4042d97c, 0x4043a28c, 0x40446b9c,
  0x404534ac, 0x4045fdbb, 0x4046c6cb, 0x40478fdb, 0x404858eb, 0x404921fb,
];

// fdlibm's constants (k_sin.c, k_cos.c, e_rem_pio2.c, e_asin.c).
const S = {
  S1: -1.66666666666666324348e-1,
  S2: 8.33333333332248946124e-3,
  S3: -1.98412698298579493134e-4,
  S4: 2.75573137070700676789e-6,
  S5: -2.50507602534068634195e-8,
  S6: 1.58969099521155010221e-10,
};
const C = {
  C1: 4.16666666666666019037e-2,
  C2: -1.38888888888741095749e-3,
  C3: 2.48015872894767294178e-5,
  C4: -2.75573143513906633035e-7,
  C5: 2.0875723212981748279e-9,
  C6: -1.13596475577881948265e-11,
};
const R = {
  invpio2: 6.36619772367581382433e-1,
  pio2_1: 1.57079632673412561417,
  pio2_1t: 6.07710050650619224932e-11,
  pio2_2: 6.0771005063039659766e-11,
  pio2_2t: 2.02226624879595063154e-21,
  pio2_3: 2.0222662487111664558e-21,
  pio2_3t: 8.47842766036889956997e-32,
};
const A = {
  pio2_hi: 1.570796326794896558,
  pio2_lo: 6.12323399573676603587e-17,
  pio4_hi: 7.85398163397448278999e-1,
  pS0: 1.66666666666666657415e-1,
  pS1: -3.25565818622400915405e-1,
  pS2: 2.01212532134862925881e-1,
  pS3: -4.00555345006794114027e-2,
  pS4: 7.91534994289814532176e-4,
  pS5: 3.4793310759602116757e-5,
  qS1: -2.40339491173441421878,
  qS2: 2.02094576023350569471,
  qS3: -6.8828397160545329303e-1,
  qS4: 7.70381505559019352791e-2,
};

/** The double whose high 32 bits are `high` and low 32 bits zero. */
function fromHi(high: number): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setUint32(0, high >>> 0);
  return view.getFloat64(0);
}

/** A float8 literal for exactly `value` (the shortest decimal that reads back as it). */
function f(value: number): string {
  const text = String(value);
  if (Number(text) !== value) throw new Error(`${text} does not read back`);
  return `${/[.e]/.test(text) ? text : `${text}.0`}::float8`;
}

const hi = (high: number): string => f(fromHi(high));
const literals = <T extends Record<string, number>>(constants: T): Record<keyof T, string> =>
  Object.fromEntries(Object.entries(constants).map(([name, value]) => [name, f(value)])) as Record<keyof T, string>;

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
  const s = literals(S);
  const c = literals(C);
  const r = literals(R);
  const a = literals(A);
  const npio2Lo = `ARRAY[${NPIO2_HW.map((h) => String(fromHi(h))).join(', ')}]::float8[]`;
  const npio2Hi = `ARRAY[${NPIO2_HW.map((h) => String(fromHi(h + 1))).join(', ')}]::float8[]`;
  const B = '--> statement-breakpoint';
  return `-- SQL functions the query language (src/data/query/dialect.ts, PostgreSQL dialect) calls, with
-- the results of the JavaScript in src/data/query/functions.ts that SQLite runs (src/db/functions.ts),
-- and the index property queries use. Unqualified names: each instance (each test) may work in a
-- schema of its own (search_path).
--
-- Why each function gives JavaScript's answer is argued next to it; test/query/postgres.test.ts
-- checks them against functions.ts on generated inputs. Written by test/query/postgres-functions.ts
-- (the tables from Node's Unicode data, fdlibm's constants as exact doubles).
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
-- distanceMeters, to the bit. JavaScript's Math.sin, Math.cos and Math.asin are V8's ports of
-- fdlibm, which differ from the C library PostgreSQL calls in the last bit for about 1% of
-- arguments; so the fdlibm algorithms are ported below, operation for operation (IEEE double
-- arithmetic is the same everywhere; fdlibm's bit tests on the high word become comparisons
-- with the doubles those words begin). One PostgreSQL difference remains: float8 * and / raise
-- "underflow" where IEEE rounds a non-zero product to zero; idp_mul gives IEEE's answer there.

-- The binary exponent of a non-zero finite double: 2^e <= |v| < 2^(e+1) (subnormals included).
CREATE OR REPLACE FUNCTION idp_exponent(v float8) RETURNS integer
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
DECLARE
  x float8 := abs(v);
  e integer := greatest(-1074, least(1023, floor(ln(abs(v)) / ln(2::float8))::integer));
BEGIN
  WHILE e > -1074 AND power(2::float8, e) > x LOOP e := e - 1; END LOOP;
  WHILE e < 1023 AND power(2::float8, e + 1) <= x LOOP e := e + 1; END LOOP;
  RETURN e;
END
$$;
${B}
-- a * b as IEEE computes it, for |b| <= 1 (so never overflowing): PostgreSQL computes the same
-- product but raises an error when it rounds to zero; that happens exactly when the exact
-- product is at most 2^-1075 (half the smallest subnormal; the tie rounds to even, zero).
-- With a = A·2^ea, b = B·2^eb, A and B in [1, 2): zero when A·B <= 2^E, E = -1075 - ea - eb;
-- A·B is in [1, 4), so only E = 0 and E = 1 need a look at A·B, the latter exactly: Dekker's
-- product gives A·B = p + err without rounding.
CREATE OR REPLACE FUNCTION idp_mul(a float8, b float8) RETURNS float8
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
DECLARE
  ea integer; eb integer; big_e integer;
  ma float8; mb float8; p float8; split float8; ah float8; al float8; bh float8; bl float8; err float8;
BEGIN
  IF a = 0 OR b = 0 OR (abs(a) >= ${f(2 ** -511)} AND abs(b) >= ${f(2 ** -511)}) THEN
    RETURN a * b;
  END IF;
  ea := idp_exponent(a);
  eb := idp_exponent(b);
  big_e := -1075 - ea - eb;
  IF big_e <= -1 THEN RETURN a * b; END IF;
  IF big_e >= 2 THEN RETURN 0; END IF;
  -- Scaling by powers of two is exact; in two steps, as 2^1074 is not a double.
  ma := abs(a) * power(2::float8, -(ea / 2)) * power(2::float8, (ea / 2) - ea);
  mb := abs(b) * power(2::float8, -(eb / 2)) * power(2::float8, (eb / 2) - eb);
  IF big_e = 0 THEN
    IF ma = 1 AND mb = 1 THEN RETURN 0; END IF;
    RETURN a * b;
  END IF;
  p := ma * mb;
  IF p < 2 THEN RETURN 0; END IF;
  IF p > 2 THEN RETURN a * b; END IF;
  split := 134217729 * ma; ah := split - (split - ma); al := ma - ah;
  split := 134217729 * mb; bh := split - (split - mb); bl := mb - bh;
  err := ((ah * bh - p) + ah * bl + al * bh) + al * bl;
  IF err <= 0 THEN RETURN 0; END IF;
  RETURN a * b;
END
$$;
${B}
-- fdlibm's sin and cos (s_sin.c, s_cos.c) in one: the argument reduction __ieee754_rem_pio2
-- (e_rem_pio2.c: x = n·pi/2 + (y0 + y1)) and the kernels __kernel_sin and __kernel_cos (k_sin.c,
-- k_cos.c), inline, as function calls cost more than the arithmetic. sin(x) is kernel number
-- n mod 4 of (sin, cos, -sin, -cos) on y0 + y1, cos(x) number n + 1. Beyond 2^19·pi/2, where
-- fdlibm reduces with __kernel_rem_pio2 (not ported; no coordinate gets there: it takes 47
-- million degrees), PostgreSQL's own sin and cos are used.
CREATE OR REPLACE FUNCTION idp_trig(x float8, cosine boolean) RETURNS float8
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
DECLARE
  ax float8 := abs(x); n integer; y0 float8; y1 float8; reduced boolean := true;
  z float8; t float8; r float8; w float8; v float8; fn float8; j integer; i integer; kernel integer;
  result float8; qx float8; unit float8;
BEGIN
  IF ax < ${hi(0x3fe921fc)} THEN
    n := 0; y0 := x; y1 := 0; reduced := false;
  ELSIF NOT ax < ${hi(0x413921fc)} THEN
    IF cosine THEN RETURN cos(x); END IF;
    RETURN sin(x);
  ELSIF ax < ${hi(0x4002d97c)} THEN
    -- |x| < 3pi/4: n = ±1; near pi/2 (high word 0x3FF921FB) with 33+33+53 bits of pi.
    IF x > 0 THEN
      z := x - ${r.pio2_1};
      IF NOT (ax >= ${hi(0x3ff921fb)} AND ax < ${hi(0x3ff921fc)}) THEN
        y0 := z - ${r.pio2_1t}; y1 := (z - y0) - ${r.pio2_1t};
      ELSE
        z := z - ${r.pio2_2}; y0 := z - ${r.pio2_2t}; y1 := (z - y0) - ${r.pio2_2t};
      END IF;
      n := 1;
    ELSE
      z := x + ${r.pio2_1};
      IF NOT (ax >= ${hi(0x3ff921fb)} AND ax < ${hi(0x3ff921fc)}) THEN
        y0 := z + ${r.pio2_1t}; y1 := (z - y0) + ${r.pio2_1t};
      ELSE
        z := z + ${r.pio2_2}; y0 := z + ${r.pio2_2t}; y1 := (z - y0) + ${r.pio2_2t};
      END IF;
      n := -1;
    END IF;
  ELSE
    -- Medium size.
    t := ax;
    n := trunc(t * ${r.invpio2} + 0.5::float8)::integer;
    fn := n;
    r := t - fn * ${r.pio2_1};
    w := fn * ${r.pio2_1t};
    IF n < 32 AND NOT (ax >= (${npio2Lo})[n] AND ax < (${npio2Hi})[n]) THEN
      y0 := r - w;
    ELSE
      -- j and i compare biased exponents (0 for zero and subnormals), as the high words do.
      j := idp_exponent(ax) + 1023;
      y0 := r - w;
      i := j - CASE WHEN y0 = 0 THEN 0 ELSE greatest(idp_exponent(y0) + 1023, 0) END;
      IF i > 16 THEN
        t := r; w := fn * ${r.pio2_2}; r := t - w; w := fn * ${r.pio2_2t} - ((t - r) - w); y0 := r - w;
        i := j - CASE WHEN y0 = 0 THEN 0 ELSE greatest(idp_exponent(y0) + 1023, 0) END;
        IF i > 49 THEN
          t := r; w := fn * ${r.pio2_3}; r := t - w; w := fn * ${r.pio2_3t} - ((t - r) - w); y0 := r - w;
        END IF;
      END IF;
    END IF;
    y1 := (r - y0) - w;
    IF x < 0 THEN
      n := -n; y0 := -y0; y1 := -y1;
    END IF;
  END IF;
  kernel := (n + CASE WHEN cosine THEN 1 ELSE 0 END) & 3;
  IF kernel % 2 = 0 THEN
    -- __kernel_sin(y0, y1, reduced ? 1 : 0)
    IF abs(y0) < ${hi(0x3e400000)} THEN
      result := y0;
    ELSE
      z := y0 * y0;
      v := z * y0;
      r := ${s.S2} + z * (${s.S3} + z * (${s.S4} + z * (${s.S5} + z * ${s.S6})));
      IF NOT reduced THEN
        result := y0 + v * (${s.S1} + z * r);
      ELSE
        result := y0 - ((z * (0.5::float8 * y1 - v * r) - y1) - v * ${s.S1});
      END IF;
    END IF;
  ELSE
    -- __kernel_cos(y0, y1); INSERT_WORDS(qx, ix - 0x00200000, 0) is |y0| with its low word
    -- cleared, divided by 4.
    t := abs(y0);
    IF t < ${hi(0x3e400000)} THEN
      result := 1;
    ELSE
      z := y0 * y0;
      r := z * (${c.C1} + z * (${c.C2} + z * (${c.C3} + z * (${c.C4} + z * (${c.C5} + z * ${c.C6})))));
      IF t < ${hi(0x3fd33333)} THEN
        result := 1::float8 - (0.5::float8 * z - (z * r - y0 * y1));
      ELSE
        IF t >= ${hi(0x3fe90001)} THEN
          qx := 0.28125::float8;
        ELSE
          unit := power(2::float8, idp_exponent(t) - 20);
          qx := trunc(t / unit) * unit / 4;
        END IF;
        result := (1::float8 - qx) - ((0.5::float8 * z - qx) - (z * r - y0 * y1));
      END IF;
    END IF;
  END IF;
  IF kernel >= 2 THEN RETURN -result; END IF;
  RETURN result;
END
$$;
${B}
-- fdlibm's asin (e_asin.c); SET_LOW_WORD(w, 0) clears the low 32 bits: w = s truncated to the
-- 21 leading bits of its significand.
CREATE OR REPLACE FUNCTION idp_asin(x float8) RETURNS float8
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
DECLARE
  ax float8 := abs(x); t float8; w float8; p float8; q float8; c float8; r float8; s float8; unit float8;
BEGIN
  IF ax >= 1 THEN
    IF ax = 1 THEN RETURN x * ${a.pio2_hi} + x * ${a.pio2_lo}; END IF;
    RETURN 'NaN'::float8;
  END IF;
  IF ax < 0.5::float8 THEN
    IF ax < ${hi(0x3e400000)} THEN RETURN x; END IF;
    t := x * x;
    p := t * (${a.pS0} + t * (${a.pS1} + t * (${a.pS2} + t * (${a.pS3} + t * (${a.pS4} + t * ${a.pS5})))));
    q := 1::float8 + t * (${a.qS1} + t * (${a.qS2} + t * (${a.qS3} + t * ${a.qS4})));
    w := p / q;
    RETURN x + x * w;
  END IF;
  w := 1::float8 - ax;
  t := w * 0.5::float8;
  p := t * (${a.pS0} + t * (${a.pS1} + t * (${a.pS2} + t * (${a.pS3} + t * (${a.pS4} + t * ${a.pS5})))));
  q := 1::float8 + t * (${a.qS1} + t * (${a.qS2} + t * (${a.qS3} + t * ${a.qS4})));
  s := sqrt(t);
  IF ax >= ${hi(0x3fef3333)} THEN
    w := p / q;
    t := ${a.pio2_hi} - (2::float8 * (s + s * w) - ${a.pio2_lo});
  ELSE
    unit := power(2::float8, idp_exponent(s) - 20);
    w := trunc(s / unit) * unit;
    c := (t - w * w) / (s + w);
    r := p / q;
    p := 2::float8 * s * r - (${a.pio2_lo} - 2::float8 * c);
    q := ${a.pio4_hi} - 2::float8 * w;
    t := ${a.pio4_hi} - (p - q);
  END IF;
  IF x > 0 THEN RETURN t; END IF;
  RETURN -t;
END
$$;
${B}
-- distanceMeters(lat1, lon1, lat2, lon2), operation for operation:
--   2 * R * asin(sqrt(min(1, sin(dlat/2)^2 + cos(lat1) cos(lat2) sin(dlon/2)^2)))
-- x ** 2 is x * x in V8 (fdlibm's pow returns x*x for y = 2). The products that can round to
-- zero go through idp_mul; the others cannot (see each kernel's argument bounds). NULL unless all
-- four are given (SQLite's gives NULL unless all four are numbers).
CREATE OR REPLACE FUNCTION idp_distance(lat1 float8, lon1 float8, lat2 float8, lon2 float8) RETURNS float8
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
DECLARE
  radians float8 := pi() / 180::float8;
  -- Products of two numbers at least this large are normal: no underflow, no call to idp_mul.
  normal float8 := ${f(2 ** -511)};
  d float8; half_lat float8; half_lon float8; sin_lat float8; sin_lon float8; lat1_r float8; lat2_r float8;
  sin_lat2 float8; sin_lon2 float8; cosines float8; h float8;
BEGIN
  -- (x * y) is written CASE WHEN abs(x) >= normal AND abs(y) >= normal THEN x * y ELSE idp_mul(x, y) END
  -- (radians, 0.5 and a product of cosines, at least 1e-38, are always >= normal).
  d := lat2 - lat1;
  d := CASE WHEN abs(d) >= normal THEN d * radians ELSE idp_mul(d, radians) END;
  half_lat := CASE WHEN abs(d) >= normal THEN d * 0.5::float8 ELSE idp_mul(d, 0.5::float8) END;
  d := lon2 - lon1;
  d := CASE WHEN abs(d) >= normal THEN d * radians ELSE idp_mul(d, radians) END;
  half_lon := CASE WHEN abs(d) >= normal THEN d * 0.5::float8 ELSE idp_mul(d, 0.5::float8) END;
  lat1_r := CASE WHEN abs(lat1) >= normal THEN lat1 * radians ELSE idp_mul(lat1, radians) END;
  lat2_r := CASE WHEN abs(lat2) >= normal THEN lat2 * radians ELSE idp_mul(lat2, radians) END;
  sin_lat := idp_trig(half_lat, false);
  sin_lon := idp_trig(half_lon, false);
  sin_lat2 := CASE WHEN abs(sin_lat) >= normal THEN sin_lat * sin_lat ELSE idp_mul(sin_lat, sin_lat) END;
  sin_lon2 := CASE WHEN abs(sin_lon) >= normal THEN sin_lon * sin_lon ELSE idp_mul(sin_lon, sin_lon) END;
  cosines := idp_trig(lat1_r, true) * idp_trig(lat2_r, true);
  h := sin_lat2 + CASE WHEN abs(sin_lon2) >= normal AND abs(cosines) >= normal THEN cosines * sin_lon2 ELSE idp_mul(cosines, sin_lon2) END;
  RETURN 2::float8 * ${f(6371008.8)} * idp_asin(sqrt(least(1::float8, h)));
END
$$;
${B}
-- Containment (properties @> '{"a": 1}') is what a query's \`=\` on a number or boolean adds for
-- this index to serve (see dialect.ts).
CREATE INDEX IF NOT EXISTS "entities_properties" ON "entities" USING gin ("properties" jsonb_path_ops);
`;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) process.stdout.write(queryFunctionsSql());
