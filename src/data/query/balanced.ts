/**
 * SQL built from many parts as a balanced tree of two-part nodes, so it nests log2(n) deep, not
 * n: SQLite caps an expression's depth at 1,000 and a compound SELECT at 500 parts, and a query
 * may have 1,000 conditions (parse.ts).
 */
import { sql, type SQL } from 'drizzle-orm';

/** `parts` combined two at a time by `combine`, as a balanced tree; one part is itself. */
export function balancedTree(parts: readonly SQL[], combine: (left: SQL, right: SQL) => SQL): SQL {
  if (parts.length === 0) throw new RangeError('a balanced tree needs at least one part');
  if (parts.length === 1) return parts[0];
  const middle = Math.ceil(parts.length / 2);
  return combine(balancedTree(parts.slice(0, middle), combine), balancedTree(parts.slice(middle), combine));
}

/** `parts` joined by `operator` (` AND `, ` OR `), parenthesised, as a balanced tree. */
export function joinBalanced(parts: readonly SQL[], operator: SQL): SQL {
  return balancedTree(parts, (left, right) => sql`(${left}${operator}${right})`);
}
