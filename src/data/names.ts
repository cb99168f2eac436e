/**
 * Collection and entity names. Usergrid derives a collection's name from its entity type by English
 * pluralization (`dog` creates `dogs`, and POST /dog or /dogs both write there,
 * docs/api.md#entities); names and paths are validated here so every writer refuses the same
 * things.
 */
import { IllegalArgument } from '../errors.js';
import { isUuid } from '../ids.js';

const IRREGULAR: ReadonlyMap<string, string> = new Map([
  ['person', 'people'],
  ['child', 'children'],
  ['man', 'men'],
  ['woman', 'women'],
  ['mouse', 'mice'],
  ['goose', 'geese'],
  ['foot', 'feet'],
  ['tooth', 'teeth'],
  ['ox', 'oxen'],
  ['index', 'indexes'],
  ['status', 'statuses'],
  ['bus', 'buses'],
  ['news', 'news'],
  ['series', 'series'],
  ['species', 'species'],
  ['equipment', 'equipment'],
  ['information', 'information'],
  ['data', 'data'],
]);
const IRREGULAR_PLURALS: ReadonlyMap<string, string> = new Map([...IRREGULAR].map(([one, many]) => [many, one]));

/** `dog` → `dogs`, `activity` → `activities`, `box` → `boxes`, `person` → `people`. */
export function pluralize(word: string): string {
  const irregular = IRREGULAR.get(word) ?? (IRREGULAR_PLURALS.has(word) ? word : undefined);
  if (irregular !== undefined) return irregular;
  if (/[^aeiou]y$/.test(word)) return `${word.slice(0, -1)}ies`;
  if (/(s|x|z|ch|sh)$/.test(word)) return `${word}es`;
  return `${word}s`;
}

/** The inverse of `pluralize` for words it produced; other words come back unchanged. */
export function singularize(word: string): string {
  const irregular = IRREGULAR_PLURALS.get(word);
  if (irregular !== undefined) return irregular;
  if (IRREGULAR.has(word)) return word;
  const candidates = [
    word.endsWith('ies') ? `${word.slice(0, -3)}y` : null,
    word.endsWith('es') ? word.slice(0, -2) : null,
    word.endsWith('s') ? word.slice(0, -1) : null,
  ];
  return candidates.find((one) => one !== null && one !== '' && pluralize(one) === word) ?? word;
}

export function isPlural(word: string): boolean {
  return IRREGULAR_PLURALS.has(word) || (singularize(word) !== word && pluralize(singularize(word)) === word);
}

const COLLECTION = /^[a-z][a-z0-9_-]{0,63}$/;

/**
 * Path segments that are words of the API, never collections: the token endpoint, the caller,
 * the reverse-connection view and the entity envelope member.
 */
const RESERVED_COLLECTIONS: ReadonlySet<string> = new Set(['token', 'me', 'connecting', 'connections', 'metadata', 'entities']);

/**
 * Checks a collection or type segment of a path (case-insensitive; collections are stored
 * lower-case). @throws AppError `illegal_argument` (400).
 */
export function checkCollectionName(segment: string): string {
  const name = segment.toLowerCase();
  if (!COLLECTION.test(name)) {
    throw IllegalArgument(`'${segment}' is not a valid collection name: use a letter followed by up to 63 letters, digits, '_' or '-'`, {
      fields: { collection: 'malformed' },
    });
  }
  if (RESERVED_COLLECTIONS.has(name)) {
    throw IllegalArgument(`'${segment}' is reserved and cannot name a collection`, { fields: { collection: 'reserved' } });
  }
  return name;
}

/**
 * Checks the unique name of an entity (generic `name`, a username, a group path, a role name):
 * a non-empty string without '/' (unless the name `nests`, as a group path does), whitespace at
 * the ends or control characters, and not a UUID, because a UUID path segment always means an id
 * (docs/api.md#identifiers).
 */
export function checkEntityName(value: unknown, field = 'name', nests = false): string {
  const problem = nameProblem(value, nests);
  if (problem !== null) throw IllegalArgument(`${field} ${problem}`, { fields: { [field]: problem } });
  return value as string;
}

function nameProblem(value: unknown, nests: boolean): string | null {
  if (typeof value !== 'string') return 'must be a string';
  if (value.length === 0) return 'must not be empty';
  if (value.length > 255) return 'must be at most 255 characters';
  if (value.trim() !== value) return 'must not start or end with whitespace';
  // eslint-disable-next-line no-control-regex -- control characters are what this refuses
  if (/[\u0000-\u001f\u007f]/.test(value)) return 'must not contain control characters';
  if (!nests && value.includes('/')) return "must not contain '/'";
  if (isUuid(value)) return 'must not be a UUID';
  return null;
}
