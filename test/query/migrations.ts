/**
 * A database written before a migration, then opened with every migration: for the tests that a
 * derived table (the property index, the word index) is built for the entities already stored.
 * SQLite in a temporary folder, or a fresh PostgreSQL schema when IDP_TEST_DATABASE_URL is set.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { defaultMigrationsFolder, openDatabase, type Database_ } from '../../src/db/open.js';
import { TEST_DATABASE_URL } from '../database.js';
import { APP } from './database.js';

const ORG = '00000000-0000-4000-8000-00000000000a';

/**
 * Runs `write` on a database migrated up to the migration whose tag ends with `tag` (excluded),
 * holding the test application, then `check` on the same database opened with every migration.
 */
export async function acrossMigration(tag: string, write: (before: Database_) => Promise<void>, check: (after: Database_) => Promise<void>): Promise<void> {
  const dialect = TEST_DATABASE_URL === undefined ? 'sqlite' : 'postgres';
  const dir = mkdtempSync(join(tmpdir(), 'idp-migration-'));
  const older = join(dir, 'migrations');
  cpSync(defaultMigrationsFolder(dialect), older, { recursive: true });
  const journalPath = join(older, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalPath, 'utf8'));
  const at = journal.entries.findIndex((entry: { tag: string }) => entry.tag.endsWith(tag));
  expect(at).toBeGreaterThan(0);
  journal.entries = journal.entries.slice(0, at);
  writeFileSync(journalPath, JSON.stringify(journal));
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const open = (migrationsFolder?: string): Promise<Database_> =>
    TEST_DATABASE_URL === undefined
      ? openDatabase({ path: join(dir, 'idp.db'), migrationsFolder })
      : openDatabase({ url: TEST_DATABASE_URL, schema, migrationsFolder });
  try {
    const before = await open(older);
    await before.driver.run(`INSERT INTO organizations (uuid, name, name_key, created, modified) VALUES (?, 'Org', 'org', 0, 0)`, [ORG]);
    await before.driver.run(`INSERT INTO applications (uuid, org_uuid, name, name_key, created, modified) VALUES (?, ?, 'App', 'app', 0, 0)`, [APP, ORG]);
    await write(before);
    await before.close();
    const after = await open();
    try {
      await check(after);
    } finally {
      if (dialect === 'postgres') await after.driver.run(`drop schema if exists "${schema}" cascade`);
      await after.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
