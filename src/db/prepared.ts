/**
 * Statements prepared once per database handle, for the few queries on hot paths (client lookup
 * at the token endpoint, the revocation check of every bearer token): drizzle otherwise builds
 * the SQL and asks SQLite to prepare it on every call.
 */
import type { Db } from './open.js';

export function preparedFor<T>(prepare: (db: Db) => T): (db: Db) => T {
  const cache = new WeakMap<Db, T>();
  return (db) => {
    let statements = cache.get(db);
    if (!statements) cache.set(db, (statements = prepare(db)));
    return statements;
  };
}
