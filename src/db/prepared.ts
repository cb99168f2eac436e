/**
 * Statements prepared once per database session, for the queries on hot paths (client lookup
 * at the token endpoint, the revocation check of every bearer token, the organization,
 * application, caller and entity of every data request, the insert of an entity): drizzle
 * otherwise builds the SQL of a query on every call, which costs more than SQLite takes to
 * answer a point read.
 */
import type { Tx } from './open.js';

/**
 * What statements belong to: the session (connection) under a drizzle handle. A transaction
 * runs on the session of the database it was opened on, so the statements prepared for the
 * database serve every transaction too, instead of being built again for each one. A handle
 * without one (another driver) keeps statements of its own.
 */
function sessionOf(handle: Tx): object {
  const session: unknown = Reflect.get(handle, 'session');
  return typeof session === 'object' && session !== null ? session : handle;
}

/** `H`: the handle the statements need — any drizzle handle, or the database itself for raw statements. */
export function preparedFor<T, H extends Tx = Tx>(prepare: (db: H) => T): (db: H) => T {
  const cache = new WeakMap<object, T>();
  return (db) => {
    const session = sessionOf(db);
    let statements = cache.get(session);
    if (!statements) cache.set(session, (statements = prepare(db)));
    return statements;
  };
}
