/**
 * The SQLite schema: every table, gathered from schema-*.ts. `npm run db:generate` turns changes
 * to them into a new versioned migration under src/db/migrations/sqlite/, which `openDatabase`
 * applies at start. Never edit an applied migration: add a new one, so older databases are
 * upgraded in place.
 *
 * Times are ms since the epoch (Usergrid's `created`/`modified`); booleans are 0/1 integers.
 */
export * from './schema-core.js';
export * from './schema-identity.js';
export * from './schema-oauth.js';
export * from './schema-authorize.js';
export * from './schema-data.js';
export * from './schema-lifecycle.js';
export * from './schema-push.js';
export * from './schema-assets.js';
