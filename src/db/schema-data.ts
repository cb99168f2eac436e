/**
 * Tables of the data API beside `entities` and `connections` (schema-core.ts).
 */
import { sqliteTable, text, integer, primaryKey, index } from 'drizzle-orm/sqlite-core';
import { applications, entities } from './schema-core.js';

/**
 * The collections an application has created (the first entity of a type creates its collection,
 * docs/api.md#entities). They outlive their entities, as in Usergrid, so an emptied collection
 * still answers an empty page while a never-used one is `entity_not_found`.
 */
export const collections = sqliteTable(
  'collections',
  {
    appUuid: text('app_uuid')
      .notNull()
      .references(() => applications.uuid, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    type: text('type').notNull(),
    created: integer('created').notNull(),
  },
  (t) => [primaryKey({ columns: [t.appUuid, t.name] })],
);

/**
 * Every name an app user signs in with: the username and the email, lower-cased, in one
 * namespace per application. One unique key makes "unique by username and by email, and no
 * username equal to another user's email" (docs/api.md#entities) an index constraint, and
 * "username or email" one indexed look-up.
 */
export const appUserLogins = sqliteTable(
  'app_user_logins',
  {
    appUuid: text('app_uuid')
      .notNull()
      .references(() => applications.uuid, { onDelete: 'cascade' }),
    loginKey: text('login_key').notNull(),
    kind: text('kind', { enum: ['username', 'email'] }).notNull(),
    userUuid: text('user_uuid')
      .notNull()
      .references(() => entities.uuid, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.appUuid, t.loginKey] }), index('app_user_logins_user').on(t.userUuid)],
);

/**
 * A collection's settings (docs/api.md#collection-settings): the property paths it leaves out
 * of the property index (large blobs), each with everything below it. The index's triggers read
 * this table (migrations/…_collection_settings.sql); queries on such a path read the collection.
 */
export const unindexedPaths = sqliteTable(
  'unindexed_paths',
  {
    appUuid: text('app_uuid')
      .notNull()
      .references(() => applications.uuid, { onDelete: 'cascade' }),
    collection: text('collection').notNull(),
    path: text('path').notNull(),
  },
  (t) => [primaryKey({ columns: [t.appUuid, t.collection, t.path] })],
);
