/**
 * Group paths (docs/api.md#groups). A group's `path` is its unique name, and it may nest:
 * `company/eng/web` is addressed as `/groups/company/eng/web`, each of its segments a segment of
 * the URL. So that such a URL has one meaning, every segment is checked as a name is, and no
 * segment after the first may be a word that follows a group in a URL (`users`, `roles`,
 * `feed`, `connections`, …): `/groups/company/users` always lists the members of `company`.
 */
import { IllegalArgument } from '../errors.js';
import { isUuid } from '../ids.js';
import type { Tx } from '../db/open.js';
import { findEntityByName, type EntityRow } from '../db/entity-store.js';
import { checkEntityName } from './names.js';
import { isSubResourceOf } from './relations.js';

// Group paths address groups in URLs: no whitespace, so "a group path with a space" is refused
// rather than silently encoded.
const SEGMENT = /^[A-Za-z0-9_.@+-]+$/;

export const GROUPS = 'groups';

/** What is wrong with the segment at `index` of a group path, or null. */
function segmentProblem(segment: string, index: number): string | null {
  if (segment === '') return 'must not have an empty segment (a leading, trailing or doubled /)';
  if (!SEGMENT.test(segment)) return `segment '${segment}' may contain only letters, digits and '_', '.', '@', '+', '-'`;
  if (segment === '.' || segment === '..') return `segment '${segment}' is not a name`;
  if (isUuid(segment)) return `segment '${segment}' must not be a UUID`;
  if (index > 0 && isSubResourceOf(GROUPS, segment)) return `segment '${segment}' follows a group in URLs (…/groups/{path}/${segment}) and cannot nest`;
  return null;
}

/**
 * Checks a group path: a name as any other (names.ts), whose `/`-separated segments each pass
 * segmentProblem. @throws AppError `illegal_argument` (400) naming `path`.
 */
export function checkGroupPath(value: unknown): string {
  const path = checkEntityName(value, 'path', true);
  for (const [index, segment] of path.split('/').entries()) {
    const problem = segmentProblem(segment, index);
    if (problem !== null) throw IllegalArgument(`path ${problem}`, { fields: { path: problem } });
  }
  return path;
}

/**
 * The group whose path is the longest run of two or more of `segments` (decoded URL segments
 * after `/groups/`), with how many segments it takes; undefined when none is. Runs that no
 * group path can be are never looked up.
 */
export async function findNestedGroup(tx: Tx, appUuid: string, segments: readonly string[]): Promise<{ group: EntityRow; length: number } | undefined> {
  let length = 0;
  while (length < segments.length && segmentProblem(segments[length], length) === null) length++;
  for (; length >= 2; length--) {
    const group = await findEntityByName(tx, appUuid, GROUPS, segments.slice(0, length).join('/'));
    if (group !== undefined) return { group, length };
  }
  return undefined;
}
