/**
 * Which schema version a database is at, against the one this build carries (docs/operations.md,
 * "Upgrades"). drizzle's migrator records each migration it applies in `__drizzle_migrations`
 * with `created_at` = the journal's `when`; a database's schema version is how many it has
 * applied, and this build's is how many its journal lists. A database that recorded a migration
 * this build does not know was upgraded by a newer idp: this one must not write to it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../config.js';
import { assetPath } from '../runtime/assets.js';
import type { DialectName } from './driver.js';

/** One migration of a journal (meta/_journal.json), oldest first. */
export interface KnownMigration {
  readonly tag: string;
  readonly when: number;
}

export function defaultMigrationsFolder(dialect: DialectName = 'sqlite'): string {
  return assetPath(`src/db/migrations/${dialect}`);
}

const journals = new Map<string, readonly KnownMigration[]>();

/** The migrations a folder's journal lists, oldest first (read once per folder). */
export function journalOf(folder: string): readonly KnownMigration[] {
  let entries = journals.get(folder);
  if (entries === undefined) {
    const journal = JSON.parse(readFileSync(join(folder, 'meta', '_journal.json'), 'utf8')) as { entries: KnownMigration[] };
    entries = journal.entries.map(({ tag, when }) => ({ tag, when }));
    journals.set(folder, entries);
  }
  return entries;
}

export interface SchemaVersion {
  /** Migrations the database has applied: its schema version. */
  readonly applied: number;
  /** The newest of them this build knows by name; null when none is applied. */
  readonly last: string | null;
  /** Migrations this build would apply, by name, oldest first. */
  readonly pending: readonly string[];
  /** When (`created_at`, ms since epoch) each applied migration this build does not know was written. */
  readonly unknown: readonly number[];
  /** Migrations this build knows: its schema version. */
  readonly known: number;
  /** The newest of them. */
  readonly latest: string;
}

/**
 * The schema version of a database that recorded `applied` (the `created_at` of each row), against
 * `journal`. Pending are the journal's migrations newer than the newest applied, as drizzle's
 * migrator picks them.
 */
export function schemaVersionOf(applied: readonly number[], journal: readonly KnownMigration[]): SchemaVersion {
  const byWhen = new Map(journal.map((migration) => [migration.when, migration.tag]));
  const newest = Math.max(-Infinity, ...applied);
  const lastKnown = [...applied].sort((a, b) => b - a).find((when) => byWhen.has(when));
  return {
    applied: applied.length,
    last: lastKnown === undefined ? null : byWhen.get(lastKnown)!,
    pending: journal.filter((migration) => migration.when > newest).map((migration) => migration.tag),
    unknown: applied.filter((when) => !byWhen.has(when)).sort((a, b) => a - b),
    known: journal.length,
    latest: journal.at(-1)?.tag ?? '',
  };
}

/**
 * The database was upgraded by a newer idp: its schema has migrations this build does not know,
 * so this build's queries may not fit it. A ConfigError with an exit code of its own
 * (commands/client/errors.ts).
 */
export class DatabaseTooNewError extends ConfigError {
  constructor(
    readonly database: string,
    readonly version: SchemaVersion,
  ) {
    const dates = version.unknown.map((when) => new Date(when).toISOString()).join(', ');
    super(
      `database ${database} is at schema version ${version.applied}, newer than this idp's ${version.known} (${version.latest}): ` +
        `a newer idp applied ${version.unknown.length} migration${version.unknown.length === 1 ? '' : 's'} this one does not know (written ${dates}); ` +
        'run that idp or a newer one, or restore a backup taken before the upgrade',
    );
    this.name = 'DatabaseTooNewError';
  }
}

/** Throws DatabaseTooNewError when `version` has migrations this build does not know. */
export function refuseNewer(database: string, version: SchemaVersion): void {
  if (version.unknown.length > 0) throw new DatabaseTooNewError(database, version);
}
