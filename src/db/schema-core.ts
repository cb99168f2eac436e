/**
 * The tables the others refer to: organizations and their admin users, applications and their
 * client credentials, entities and connections, and the management feed. The rest of the schema
 * (schema-*.ts) imports them from here; schema.ts gathers every table.
 */
import { sql } from 'drizzle-orm';
import { sqliteTable, text, integer, primaryKey, index, uniqueIndex } from 'drizzle-orm/sqlite-core';

export const organizations = sqliteTable(
  'organizations',
  {
    uuid: text('uuid').primaryKey(),
    name: text('name').notNull(),
    // Lower-cased name: organization names are unique regardless of case, as in Usergrid.
    nameKey: text('name_key').notNull(),
    activated: integer('activated', { mode: 'boolean' }).notNull().default(true),
    disabled: integer('disabled', { mode: 'boolean' }).notNull().default(false),
    properties: text('properties', { mode: 'json' }).$type<Record<string, unknown>>().notNull().default({}),
    created: integer('created').notNull(),
    modified: integer('modified').notNull(),
  },
  (t) => [uniqueIndex('organizations_name_key').on(t.nameKey)],
);

export const adminUsers = sqliteTable(
  'admin_users',
  {
    uuid: text('uuid').primaryKey(),
    username: text('username').notNull(),
    usernameKey: text('username_key').notNull(),
    // CreateAdminUser requires only a username; NULLs never clash in the unique index.
    email: text('email'),
    emailKey: text('email_key'),
    name: text('name').notNull().default(''),
    passwordHash: text('password_hash'),
    sysadmin: integer('sysadmin', { mode: 'boolean' }).notNull().default(false),
    activated: integer('activated', { mode: 'boolean' }).notNull().default(true),
    disabled: integer('disabled', { mode: 'boolean' }).notNull().default(false),
    // Profile fields beyond the fixed ones (AdminUserUpdate: city, state, …).
    properties: text('properties', { mode: 'json' }).$type<Record<string, unknown>>().notNull().default({}),
    created: integer('created').notNull(),
    modified: integer('modified').notNull(),
  },
  (t) => [uniqueIndex('admin_users_username_key').on(t.usernameKey), uniqueIndex('admin_users_email_key').on(t.emailKey)],
);

export const orgAdmins = sqliteTable(
  'org_admins',
  {
    orgUuid: text('org_uuid')
      .notNull()
      .references(() => organizations.uuid, { onDelete: 'cascade' }),
    userUuid: text('user_uuid')
      .notNull()
      .references(() => adminUsers.uuid, { onDelete: 'cascade' }),
    created: integer('created').notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgUuid, t.userUuid] }), index('org_admins_user').on(t.userUuid)],
);

export const applications = sqliteTable(
  'applications',
  {
    uuid: text('uuid').primaryKey(),
    orgUuid: text('org_uuid')
      .notNull()
      .references(() => organizations.uuid, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    nameKey: text('name_key').notNull(),
    properties: text('properties', { mode: 'json' }).$type<Record<string, unknown>>().notNull().default({}),
    created: integer('created').notNull(),
    modified: integer('modified').notNull(),
  },
  (t) => [uniqueIndex('applications_org_name').on(t.orgUuid, t.nameKey)],
);

/**
 * Organization and application client credentials. The secret is kept retrievable because
 * GET …/credentials returns it, as Usergrid and Keycloak do; it is compared in constant time and
 * never logged.
 */
export const credentials = sqliteTable(
  'credentials',
  {
    clientId: text('client_id').primaryKey(),
    ownerType: text('owner_type', { enum: ['organization', 'application'] }).notNull(),
    ownerUuid: text('owner_uuid').notNull(),
    clientSecret: text('client_secret').notNull(),
    created: integer('created').notNull(),
  },
  (t) => [uniqueIndex('credentials_owner').on(t.ownerType, t.ownerUuid)],
);

/**
 * Every entity of every application, schemaless: fixed columns for what the API addresses and
 * sorts by, everything else in `properties` (JSON). `collection` is the plural collection name,
 * `type` the singular entity type.
 */
export const entities = sqliteTable(
  'entities',
  {
    uuid: text('uuid').primaryKey(),
    appUuid: text('app_uuid')
      .notNull()
      .references(() => applications.uuid, { onDelete: 'cascade' }),
    collection: text('collection').notNull(),
    type: text('type').notNull(),
    name: text('name'),
    nameKey: text('name_key'),
    properties: text('properties', { mode: 'json' }).$type<Record<string, unknown>>().notNull().default({}),
    created: integer('created').notNull(),
    modified: integer('modified').notNull(),
  },
  (t) => [
    // Only named entities: receipts, events and activities have no name, and a write saved per
    // nameless entity is a tenth of the cost of a push delivery's receipt.
    uniqueIndex('entities_app_collection_name')
      .on(t.appUuid, t.collection, t.nameKey)
      .where(sql`${t.nameKey} is not null`),
    // The default order, `created` then `uuid` (docs/api.md#queries-and-paging), whole: a page
    // reads a page, though the entities of one POST share their `created`. On PostgreSQL the uuid
    // is COLLATE "C", as the order compares it (migrations/postgres/0029_created_order_ties.sql).
    index('entities_app_collection_created').on(t.appUuid, t.collection, t.created, t.uuid),
    // `order by modified` reads it a page at a time, as the default order reads the one above.
    index('entities_app_collection_modified').on(t.appUuid, t.collection, t.modified, t.uuid),
  ],
);

/** Named, directed relations between two entities of one application (Usergrid connections). */
export const connections = sqliteTable(
  'connections',
  {
    appUuid: text('app_uuid')
      .notNull()
      .references(() => applications.uuid, { onDelete: 'cascade' }),
    sourceUuid: text('source_uuid').notNull(),
    relation: text('relation').notNull(),
    targetUuid: text('target_uuid').notNull(),
    created: integer('created').notNull(),
  },
  (t) => [primaryKey({ columns: [t.sourceUuid, t.relation, t.targetUuid] }), index('connections_target').on(t.targetUuid, t.relation)],
);

/** What happened in an organization, for the management feeds (GET …/orgs/{orgId}/feed). */
export const managementActivities = sqliteTable(
  'management_activities',
  {
    uuid: text('uuid').primaryKey(),
    orgUuid: text('org_uuid'),
    actorUuid: text('actor_uuid'),
    verb: text('verb').notNull(),
    category: text('category').notNull(),
    title: text('title').notNull(),
    objectType: text('object_type').notNull(),
    objectUuid: text('object_uuid').notNull(),
    objectName: text('object_name').notNull(),
    created: integer('created').notNull(),
  },
  (t) => [index('management_activities_org').on(t.orgUuid, t.created), index('management_activities_actor').on(t.actorUuid, t.created)],
);
