/**
 * A database as an idp from before the property index (or another migration) left it — SQLite file or PostgreSQL
 * schema (IDP_TEST_DATABASE_URL) — holding one application's entities, for the tests of what
 * the property index migration and its backfill make of it (docs/design.md#the-property-index).
 */
import { execute } from '../../src/db/run.js';
import { sql } from 'drizzle-orm';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { defaultMigrationsFolder, openDatabase, type Database_ } from '../../src/db/open.js';
import type { ServeFlags } from '../../src/config.js';
import { APP } from './database.js';
import { TEST_DATABASE_URL } from '../database.js';

export const ORG = '00000000-0000-4000-8000-00000000000a';

export interface OlderDatabase {
  /** Opens it with every migration of this version, as `idp serve` does. */
  open(): Promise<Database_>;
  /** The `idp serve` flags that name it. */
  readonly flags: Pick<ServeFlags, 'db' | 'databaseUrl' | 'databasePoolSize'>;
  /** Closes `handle` (from `open`), dropping the PostgreSQL schema, and removes the SQLite file. */
  remove(handle: Database_): Promise<void>;
}

/**
 * `entities`: uuid → properties, stored in collection `dogs` of APP, in that order, by the
 * migrations before the one whose tag ends with `before` (by default: before the property index);
 * then `write`, for anything else the older database should hold.
 */
export async function createOlderDatabase(
  entities: readonly (readonly [string, Record<string, unknown> | string])[],
  before = '_property_index',
  write: (previous: Database_) => Promise<void> = async () => undefined,
): Promise<OlderDatabase> {
  const dialect = TEST_DATABASE_URL === undefined ? 'sqlite' : 'postgres';
  const dir = mkdtempSync(join(tmpdir(), 'idp-property-index-'));
  const older = join(dir, 'migrations');
  cpSync(defaultMigrationsFolder(dialect), older, { recursive: true });
  const journalPath = join(older, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalPath, 'utf8'));
  const at = journal.entries.findIndex((entry: { tag: string }) => entry.tag.endsWith(before));
  expect(at).toBeGreaterThan(0);
  journal.entries = journal.entries.slice(0, at);
  writeFileSync(journalPath, JSON.stringify(journal));
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const open = (migrationsFolder?: string): Promise<Database_> =>
    TEST_DATABASE_URL === undefined
      ? openDatabase({ path: join(dir, 'idp.db'), migrationsFolder })
      : openDatabase({ url: TEST_DATABASE_URL, schema, migrationsFolder, poolSize: 4 });
  const previous = await open(older);
  const { db } = previous;
  await execute(db, sql`INSERT INTO organizations (uuid, name, name_key, created, modified) VALUES (${ORG}, 'Org', 'org', 0, 0)`);
  await execute(db, sql`INSERT INTO applications (uuid, org_uuid, name, name_key, created, modified) VALUES (${APP}, ${ORG}, 'App', 'app', 0, 0)`);
  for (const [i, [uuid, properties]] of entities.entries()) {
    const json = typeof properties === 'string' ? properties : JSON.stringify(properties);
    await execute(
      db,
      sql`INSERT INTO entities (uuid, app_uuid, collection, type, properties, created, modified) VALUES (${uuid}, ${APP}, 'dogs', 'dog', ${json}, ${i}, ${i})`,
    );
  }
  await write(previous);
  await previous.close();
  const url = TEST_DATABASE_URL === undefined ? undefined : new URL(TEST_DATABASE_URL);
  url?.searchParams.set('options', `-c search_path=${schema}`);
  return {
    open: () => open(),
    flags: url === undefined ? { db: join(dir, 'idp.db') } : { databaseUrl: url.toString(), databasePoolSize: '4' },
    async remove(handle) {
      if (dialect === 'postgres') await handle.driver.run(`drop schema if exists "${schema}" cascade`);
      await handle.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Runs `write` on a database migrated up to the migration whose tag ends with `tag` (excluded),
 * holding the test application, then `check` on the same database opened with every migration.
 */
export async function acrossMigration(tag: string, write: (before: Database_) => Promise<void>, check: (after: Database_) => Promise<void>): Promise<void> {
  const older = await createOlderDatabase([], tag, write);
  const after = await older.open();
  try {
    await check(after);
  } finally {
    await older.remove(after);
  }
}
