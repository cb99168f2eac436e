/**
 * The PostgreSQL schema, derived table by table from the SQLite schema (schema.ts), so the two
 * cannot drift: same tables, columns, keys, indexes and foreign keys, with PostgreSQL's types.
 * `npm run db:generate` turns changes into a new versioned migration under
 * src/db/migrations/postgres/ as it does for SQLite. At run time a PostgreSQL handle builds its
 * SQL from these tables (open.ts `schemaOf`), with values read and written as the storage layer
 * knows them from schema.ts.
 *
 * Types: integers (ms timestamps, counters) are bigint; booleans stay 0/1 integers, read as
 * booleans as in SQLite; JSON columns are jsonb, so entity properties can be queried and
 * indexed; the autoincrement key is an identity column; bytes (blob) are bytea, which node-postgres
 * reads and writes as Buffers, as better-sqlite3 does blobs.
 */
import { getTableConfig, type SQLiteColumn, type SQLiteTable } from 'drizzle-orm/sqlite-core';
import {
  bigint,
  customType,
  doublePrecision,
  foreignKey,
  index,
  jsonb,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
  type PgColumnBuilderBase,
} from 'drizzle-orm/pg-core';
import { is, SQL } from 'drizzle-orm';
import * as sqlite from './schema.js';

const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => 'bytea' });

/** A boolean stored as 0 or 1, as SQLite's `integer({ mode: 'boolean' })` stores it. */
const integerBoolean = customType<{ data: boolean; driverData: number }>({
  dataType: () => 'integer',
  toDriver: (value) => (value ? 1 : 0),
  fromDriver: (value) => Number(value) !== 0,
});

function columnOf(column: SQLiteColumn): PgColumnBuilderBase {
  const name = column.name;
  const mode = (column as unknown as { config?: { mode?: string } }).config?.mode;
  let builder: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- one of several pg-core builders
  switch (column.columnType) {
    case 'SQLiteText':
      builder = text(name);
      break;
    case 'SQLiteTextJson':
      builder = jsonb(name);
      break;
    case 'SQLiteBoolean':
      builder = integerBoolean(name);
      break;
    case 'SQLiteInteger':
    case 'SQLiteTimestamp':
      builder =
        column.primary && (column as unknown as { autoIncrement?: boolean }).autoIncrement
          ? bigint(name, { mode: 'number' }).generatedByDefaultAsIdentity()
          : bigint(name, { mode: 'number' });
      break;
    case 'SQLiteReal':
      builder = doublePrecision(name);
      break;
    case 'SQLiteBlobBuffer':
      builder = bytea(name);
      break;
    default:
      throw new Error(`no PostgreSQL type for ${column.columnType} (${name}, mode ${mode ?? '-'})`);
  }
  if (column.primary) builder = builder.primaryKey();
  if (column.notNull) builder = builder.notNull();
  if (column.hasDefault && column.default !== undefined) {
    const value = column.default;
    if (is(value, SQL)) builder = builder.default(value);
    else if (typeof value === 'boolean') builder = builder.default(value ? 1 : 0);
    else if (typeof value === 'object' && value !== null) builder = builder.default(JSON.stringify(value));
    else builder = builder.default(value as string | number);
  }
  return builder;
}

const pgTables = new Map<SQLiteTable, ReturnType<typeof pgTable>>();

function tableOf(table: SQLiteTable): ReturnType<typeof pgTable> {
  const existing = pgTables.get(table);
  if (existing) return existing;
  const config = getTableConfig(table);
  const columns = Object.fromEntries(
    Object.entries(table).flatMap(([key, column]) => (config.columns.includes(column as SQLiteColumn) ? [[key, columnOf(column as SQLiteColumn)]] : [])),
  );
  const keyOf = new Map(
    Object.entries(table).flatMap(([key, column]) => (config.columns.includes(column as SQLiteColumn) ? [[(column as SQLiteColumn).name, key]] : [])),
  );
  const created = pgTable(config.name, columns, (t) => {
    const pick = (cols: readonly SQLiteColumn[]) => cols.map((column) => (t as Record<string, never>)[keyOf.get(column.name)!]);
    const extras = [];
    for (const key of config.primaryKeys) extras.push(primaryKey({ columns: pick(key.columns) as never, name: key.getName() }));
    for (const idx of config.indexes) {
      const { name, columns: on, unique, where } = idx.config;
      let built = (unique ? uniqueIndex(name) : index(name)).on(...(pick(on as SQLiteColumn[]) as [never]));
      if (where) built = built.where(where);
      extras.push(built);
    }
    for (const fk of config.foreignKeys) {
      const reference = fk.reference();
      const target = tableOf(reference.foreignTable);
      const targetKeys = new Map(Object.entries(reference.foreignTable).map(([key, column]) => [(column as SQLiteColumn).name, key]));
      let built = foreignKey({
        name: fk.getName(),
        columns: pick(reference.columns) as never,
        foreignColumns: reference.foreignColumns.map((column) => (target as unknown as Record<string, never>)[targetKeys.get(column.name)!]) as never,
      });
      if (fk.onDelete) built = built.onDelete(fk.onDelete);
      if (fk.onUpdate) built = built.onUpdate(fk.onUpdate);
      extras.push(built);
    }
    return extras;
  });
  pgTables.set(table, created);
  return created;
}

const isSqliteTable = (value: unknown): value is SQLiteTable => {
  try {
    return typeof value === 'object' && value !== null && getTableConfig(value as SQLiteTable).name !== undefined;
  } catch {
    return false;
  }
};

export const tables = Object.fromEntries(Object.entries(sqlite).flatMap(([name, value]) => (isSqliteTable(value) ? [[name, tableOf(value)]] : [])));

// drizzle-kit finds tables among a module's exports; a table missing here fails the check below.
export const {
  browserSessions,
  consents,
  sessionClients,
  logoutDeliveries,
  identityProviders,
  federatedIdentities,
  federationRequests,
  pushedAuthorizationRequests,
  serverSecrets,
  collections,
  unindexedPaths,
  appUserLogins,
  signingKeys,
  appUserCredentials,
  userFactors,
  recoveryCodes,
  passkeyChallenges,
  lifecycleTokens,
  verifiedEmails,
  captchaSolutions,
  oauthClients,
  clientRegistrations,
  initialAccessTokens,
  tokenFamilies,
  refreshTokens,
  authorizationCodes,
  deviceAuthorizations,
  tokenRevocations,
  jtiReplay,
  loginThrottle,
  pushNotifierSecrets,
  pushDeliveries,
  organizations,
  adminUsers,
  orgAdmins,
  applications,
  credentials,
  entities,
  connections,
  managementActivities,
  assets,
  assetChunks,
} = tables;

const exported = new Set([
  'browserSessions',
  'consents',
  'sessionClients',
  'logoutDeliveries',
  'identityProviders',
  'federatedIdentities',
  'federationRequests',
  'pushedAuthorizationRequests',
  'serverSecrets',
  'collections',
  'unindexedPaths',
  'appUserLogins',
  'signingKeys',
  'appUserCredentials',
  'userFactors',
  'recoveryCodes',
  'passkeyChallenges',
  'lifecycleTokens',
  'verifiedEmails',
  'captchaSolutions',
  'oauthClients',
  'clientRegistrations',
  'initialAccessTokens',
  'tokenFamilies',
  'refreshTokens',
  'authorizationCodes',
  'deviceAuthorizations',
  'tokenRevocations',
  'jtiReplay',
  'loginThrottle',
  'pushNotifierSecrets',
  'pushDeliveries',
  'organizations',
  'adminUsers',
  'orgAdmins',
  'applications',
  'credentials',
  'entities',
  'connections',
  'managementActivities',
  'assets',
  'assetChunks',
]);
for (const name of Object.keys(tables)) if (!exported.has(name)) throw new Error(`schema-postgres.ts does not export the table ${name}`);
