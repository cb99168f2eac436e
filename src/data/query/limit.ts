/** How many items a page of a list holds (docs/api.md#queries-and-paging): every list of the API reads `limit` the same way. */
import { IllegalArgument } from '../../errors.js';

const DEFAULT_LIMIT = 10;
const MAX_LIMIT = 1000;

/** `limit` as given in a query string, clamped to 1..1000. @throws AppError `illegal_argument` (400) when not a number. */
export function parseLimit(text: string | undefined): number {
  if (text === undefined || text === '') return DEFAULT_LIMIT;
  if (!/^-?\d+$/.test(text.trim())) throw IllegalArgument(`limit must be a whole number, not '${text}'`, { fields: { limit: 'not a number' } });
  return Math.min(MAX_LIMIT, Math.max(1, Number(text)));
}
