/**
 * Opaque cursors for keyset paging (docs/api.md#queries-and-paging: `cursor` is opaque). A cursor
 * holds the sort values of the last entity of a page, and the next page is "everything after it in
 * the query's order" — not an offset — so entities added or deleted between pages never cause a
 * repeat or a skip. The cursor names the order it was made for; applying it to another order is
 * refused rather than silently paging from a meaningless place.
 *
 * Cursors are not signed: their values only ever become bound parameters, so a forged cursor
 * can only choose where a page starts.
 */
import { IllegalArgument, type AppError } from '../../errors.js';
import type { Query } from './ast.js';
import { TYPE_RANK, orderSignature, sortKeys, sortValuesOf, type SortKey, type SortValue } from './order.js';
import type { EntityRecord } from './properties.js';

const VERSION = 1;

interface CursorPayload {
  readonly v: number;
  /** orderSignature of the query's sort keys. */
  readonly o: string;
  /** The sort values of the last entity returned. */
  readonly k: readonly SortValue[];
}

/** The cursor for the page that follows `last`, the last entity of the current page. */
export function encodeCursor(query: Query, last: EntityRecord): string {
  const keys = sortKeys(query);
  const payload: CursorPayload = { v: VERSION, o: orderSignature(keys), k: sortValuesOf(last, keys) };
  return Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
}

/** The sort values in `cursor`, checked against `keys`; an IllegalArgument AppError otherwise. */
export function decodeCursor(cursor: string, keys: readonly SortKey[]): SortValue[] {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalidCursor('is not a cursor');
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor('is not a cursor');
  }
  if (
    typeof payload !== 'object' ||
    payload === null ||
    !('v' in payload && 'o' in payload && 'k' in payload) ||
    payload.v !== VERSION ||
    typeof payload.o !== 'string' ||
    !Array.isArray(payload.k)
  ) {
    throw invalidCursor('is not a cursor');
  }
  if (payload.o !== orderSignature(keys)) throw invalidCursor(`was made for another order (${payload.o})`);
  const written: readonly unknown[] = payload.k;
  if (written.length !== keys.length) throw invalidCursor('is damaged');
  const values: SortValue[] = [];
  for (const [i, key] of keys.entries()) {
    const value = written[i];
    if (!isSortValueFor(key, value)) throw invalidCursor('is damaged');
    values.push(value);
  }
  return values;
}

function isSortValueFor(key: SortKey, value: unknown): value is SortValue {
  if (key.source.kind === 'column') {
    return key.source.type === 'number' ? isFiniteNumber(value) : typeof value === 'string';
  }
  if (!Array.isArray(value)) return false;
  const pair: readonly unknown[] = value;
  if (pair.length !== 2) return false;
  const [rank, inner] = pair;
  switch (rank) {
    case TYPE_RANK.number:
      return isFiniteNumber(inner);
    case TYPE_RANK.string:
      return typeof inner === 'string';
    case TYPE_RANK.boolean:
      return inner === 0 || inner === 1;
    case TYPE_RANK.none:
      return inner === null;
    default:
      return false;
  }
}

function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

function invalidCursor(problem: string): AppError {
  const description = `cursor ${problem}; request the first page again without it`;
  return IllegalArgument(description, { fields: { cursor: description } });
}
