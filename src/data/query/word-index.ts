/**
 * The word index (docs/design.md#the-word-index): a full-text index of the words of every string
 * property, which finds the candidates of `contains` — SQLite FTS5, PostgreSQL a `tsvector` with
 * a GIN index, one row per entity that has a word, kept by triggers in the migrations
 * (src/db/migrations/*\/…_word_index.sql).
 *
 * The database's own word rules are not used: they split and fold text otherwise than `contains`
 * (functions.ts splitWords). Each word is stored as a token this module spells, the same on both
 * databases: `w`, a key naming the application, collection and path, and the word (its first
 * WORD_LENGTH code points). The tokens hold no character either database's tokenizer splits on
 * (FTS5's `ascii`, which splits on ASCII punctuation and spaces only; PostgreSQL's
 * `array_to_tsvector`, which takes them as they are), so a lookup compares tokens exactly, and
 * `contains` asks for entities with every word of the term, the last one as a prefix for
 * `'wor*'`. That holds every match: a word equal to the term's word has its token, a word
 * starting with it has a token starting with its token (cutting keeps both). Order and adjacency
 * are left to the exact condition, which still decides (property-index.ts).
 */
import { createHash } from 'node:crypto';
import { sql, type SQL } from 'drizzle-orm';
import type { Condition } from './ast.js';
import type { Dialect, WordLookup } from './dialect.js';
import { splitWords } from './functions.js';
import { forEachIndexedValue, isIndexedPath, parseStoredProperties, resolveProperty } from './properties.js';

/** A word is stored by its first this many code points. */
const WORD_LENGTH = 64;

/** The key of the words of one property path of one collection: 12 hex digits of an MD5 (the PostgreSQL migration computes the same); two keys alike only add candidates. */
export function wordKey(appUuid: string, collection: string, path: string): string {
  const scope = `${appUuid}/${collection}/${path}`;
  let key = KEYS.get(scope);
  if (key === undefined) {
    // Every entity write asks for the keys of its paths: an MD5 each costs about as much as the rest of idp_entity_words.
    if (KEYS.size >= KEYS_KEPT) KEYS.clear();
    key = createHash('md5').update(scope).digest('hex').slice(0, 12);
    KEYS.set(scope, key);
  }
  return key;
}

const KEYS = new Map<string, string>();
const KEYS_KEPT = 10_000;

/** The token of one word (splitWords) of a property with key `key`. */
export function wordToken(key: string, word: string): string {
  if (word.length <= WORD_LENGTH) return `w${key}${word}`;
  let end = 0;
  for (let points = 0; points < WORD_LENGTH; points++) end += word.codePointAt(end)! > 0xffff ? 2 : 1;
  return `w${key}${word.slice(0, end)}`;
}

/**
 * The token PostgreSQL stores for an entity whose words are too many for a `tsvector` (the
 * migration): every `contains` on the collection counts it as a candidate.
 */
export function collectionToken(appUuid: string, collection: string): string {
  return `a${createHash('md5').update(`${appUuid}/${collection}`).digest('hex').slice(0, 12)}`;
}

/**
 * The token naming the entity on SQLite, by which the triggers find its row again (FTS5 deletes
 * by rowid only): `e` and a canonical UUID's hex digits, else `x` and the hex of its UTF-8.
 */
export function entityToken(uuid: string): string {
  return CANONICAL_UUID.test(uuid) ? `e${uuid.replaceAll('-', '')}` : `x${Buffer.from(uuid).toString('hex')}`;
}

const CANONICAL_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The SQLite row of an entity (the triggers' idp_entity_words, src/db/functions.ts): its token,
 * then the distinct tokens of the words of its string properties, space-separated; null when it
 * has no word, or its stored JSON does not parse (such an entity matches no condition).
 */
export function entityWords(uuid: string, appUuid: string, collection: string, properties: string): string | null {
  const parsed = parseStoredProperties(properties);
  if (parsed === null) return null;
  const tokens = new Set<string>();
  forEachIndexedValue(parsed, (path, value) => {
    if (typeof value !== 'string') return;
    const words = splitWords(value);
    if (words.length === 0) return;
    const key = wordKey(appUuid, collection, path);
    for (const word of words) tokens.add(wordToken(key, word));
  });
  return tokens.size === 0 ? null : `${entityToken(uuid)} ${[...tokens].join(' ')}`;
}

/** The entities that may match a `contains` (wordCandidates). */
interface WordCandidates {
  /** `SELECT entity_uuid …` */
  readonly sql: SQL;
  /** `SELECT entity_uuid, created …` of the same rows (dialect.ts `wordMatchCreated`). */
  readonly created: SQL;
}

const NO_CANDIDATES: WordCandidates = {
  sql: sql`SELECT entity_words.entity_uuid FROM entity_words WHERE 1 = 0`,
  created: sql`SELECT entity_words.entity_uuid, entity_words.created FROM entity_words WHERE 1 = 0`,
};

/**
 * The entities that may match `contains`, or null when the word index cannot say: a column, a
 * path it does not hold, `'*'` (a term without words as a prefix, which matches every text that
 * has a word). A term without words and without `*` matches nothing (functions.ts containsWords):
 * it has no candidates, rather than have the collection read to find none.
 */
export function wordCandidates(
  condition: Extract<Condition, { kind: 'contains' }>,
  appUuid: string,
  collection: string,
  dialect: Dialect,
): WordCandidates | null {
  if (resolveProperty(condition.property).kind === 'column' || !isIndexedPath(condition.property)) return null;
  const words = splitWords(condition.term);
  if (words.length === 0) return condition.prefix ? null : NO_CANDIDATES;
  const key = wordKey(appUuid, collection, condition.property);
  const lookup: WordLookup = {
    all: words.map((word) => wordToken(key, word)),
    lastIsPrefix: condition.prefix,
    any: collectionToken(appUuid, collection),
  };
  return { sql: dialect.wordMatch(lookup), created: dialect.wordMatchCreated(lookup) };
}
