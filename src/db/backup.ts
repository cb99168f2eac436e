/**
 * Online backups of the SQLite database, for `idp db backup` and `idp db restore`.
 *
 * A backup is SQLite's own backup API (https://www.sqlite.org/backup.html) run on a second
 * connection to the file a server may be writing: every page is copied in one step, inside one
 * read transaction, so the copy is the database as of one moment. In WAL mode a reader never
 * blocks the writer, so the server keeps answering meanwhile. The copy is switched to rollback
 * journal mode, so it is one self-contained file, checked with `PRAGMA integrity_check`, and
 * renamed into place only when complete.
 *
 * A restore copies the backup beside the database, checks the copy (SQLite, intact, an idp
 * database whose migrations this idp knows) and renames it over the database: the database is
 * either the old one or the backup, never a mixture. It refuses while another connection holds
 * the database: leaving WAL mode needs the only connection, so a running server makes that
 * switch fail with SQLITE_BUSY. The WAL beside the old file is folded into it by that switch and
 * is never left beside the new one, where SQLite would replay it into the wrong database.
 */
import Database from 'better-sqlite3';
import { closeSync, constants, existsSync, fsyncSync, openSync, rmSync } from 'node:fs';
import { chmod, copyFile, rename, rm, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { ConfigError } from '../config.js';
import { defaultMigrationsFolder, journalOf, refuseNewer, schemaVersionOf } from './schema-version.js';
import { nativeBinding } from './sqlite.js';

export interface BackupSummary {
  /** The database copied from, or restored to. */
  database: string;
  /** The backup file. */
  file: string;
  bytes: number;
  /** Migrations the backup has applied (of the ones this idp knows). */
  migrations: number;
}

/** Asking for all remaining pages in one step: the largest count sqlite3_backup_step takes. */
const ALL_PAGES = 0x7fffffff;

const codeOf = (error: unknown) => (error as { code?: string }).code ?? (error as Error).message;

function openFile(path: string, timeout = 5000): Database.Database {
  return new Database(path, { fileMustExist: true, timeout, nativeBinding: nativeBinding() });
}

/**
 * Whether `sqlite` holds an idp database this idp can open: drizzle records each applied
 * migration in __drizzle_migrations with its `created_at`, the `when` of the journal. Returns how
 * many are applied; throws a ConfigError naming `label` otherwise (DatabaseTooNewError for one a
 * newer idp upgraded).
 */
function checkIdpDatabase(sqlite: Database.Database, label: string): number {
  const journal = journalOf(defaultMigrationsFolder('sqlite'));
  const recorded = sqlite.prepare("select 1 from sqlite_master where type = 'table' and name = '__drizzle_migrations'").get();
  const applied = recorded
    ? sqlite
        .prepare('select created_at from __drizzle_migrations order by created_at')
        .pluck()
        .all()
        .map((when) => Number(when))
    : [];
  if (!applied.includes(journal[0].when)) throw new ConfigError(`${label} is a SQLite database but not an idp database: it has none of idp's migrations`);
  refuseNewer(label, schemaVersionOf(applied, journal));
  return applied.length;
}

/** `PRAGMA integrity_check` answers one row `ok`, or the problems it found. */
function checkIntegrity(sqlite: Database.Database, label: string): void {
  const problems = sqlite.pragma('integrity_check', { simple: false }) as { integrity_check: string }[];
  const found = problems.map((row) => row.integrity_check.replace(/^\*\*\* in database \w+ \*\*\*\s*/, '')).filter((text) => text !== 'ok' && text !== '');
  if (found.length > 0) throw new ConfigError(`${label} is damaged: ${found.slice(0, 3).join('; ')}`);
}

/** Opens `path` and checks it is an intact idp database; any SQLite error becomes a ConfigError. */
function verify(path: string, label: string): number {
  let sqlite: Database.Database | undefined;
  try {
    sqlite = openFile(path);
    checkIntegrity(sqlite, label);
    return checkIdpDatabase(sqlite, label);
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    if (codeOf(error) === 'SQLITE_NOTADB') throw new ConfigError(`${label} is not a SQLite database`);
    if (codeOf(error) === 'SQLITE_CORRUPT') throw new ConfigError(`${label} is damaged: ${(error as Error).message}`);
    throw new ConfigError(`cannot read ${label}: ${codeOf(error)}`);
  } finally {
    sqlite?.close();
  }
}

/** Puts a file's content (or a rename into a directory) on disk. */
function syncPath(path: string): void {
  const descriptor = openSync(path, 'r');
  try {
    fsyncSync(descriptor);
  } finally {
    closeSync(descriptor);
  }
}

function staging(target: string): string {
  return `${target}.partial-${process.pid}`;
}

/** Copies the database at `source` to `file` (mode 0600) while it may be in use. */
export async function backupSqlite(source: string, file: string): Promise<BackupSummary> {
  if (!existsSync(source)) throw new ConfigError(`database ${source} does not exist; pass the file idp serve uses with --db`);
  if (!existsSync(dirname(resolve(file)))) throw new ConfigError(`cannot write ${file}: directory ${dirname(resolve(file))} does not exist`);
  if (resolve(file) === resolve(source)) throw new ConfigError(`${file} is the database itself: name another file for the backup`);
  let sqlite: Database.Database | undefined;
  try {
    sqlite = openFile(source);
    checkIdpDatabase(sqlite, source);
  } catch (error) {
    sqlite?.close();
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(`cannot open database ${source}: ${codeOf(error) === 'SQLITE_NOTADB' ? 'not a SQLite database' : codeOf(error)}`);
  }
  const partial = staging(file);
  try {
    // Password hashes, client secrets and private signing keys: readable by the owner only.
    // SQLite takes an empty file as an empty database.
    closeSync(openSync(partial, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, 0o600));
    await sqlite.backup(partial, { progress: () => ALL_PAGES });
    const copy = openFile(partial);
    try {
      copy.pragma('journal_mode = delete');
    } finally {
      copy.close();
    }
    const migrations = verify(partial, `the copy of ${source}`);
    syncPath(partial);
    await rename(partial, file);
    syncPath(dirname(resolve(file)));
    return { database: source, file, bytes: (await stat(file)).size, migrations };
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  } finally {
    sqlite.close();
  }
}

/**
 * Makes sure no connection holds the database at `target` and that it is alone: its WAL folded
 * into it and removed. A missing target is fine; stray -wal and -shm files of a deleted database
 * are removed so they cannot be replayed into the restored one.
 */
function releaseTarget(target: string): void {
  if (existsSync(target)) {
    let sqlite: Database.Database | undefined;
    try {
      sqlite = openFile(target, 0);
      sqlite.pragma('journal_mode = delete');
    } catch (error) {
      const code = codeOf(error);
      if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED')
        throw new ConfigError(`database ${target} is in use (is idp serve running on it?): stop the server, then restore`);
      if (code === 'SQLITE_NOTADB') throw new ConfigError(`${target} is not a SQLite database: not replacing it`);
      throw new ConfigError(`cannot open database ${target}: ${code}`);
    } finally {
      sqlite?.close();
    }
  }
  for (const suffix of ['-wal', '-shm', '-journal']) rmSync(target + suffix, { force: true });
}

export interface StagedRestore {
  /** The checked copy of the backup, beside the database. */
  readonly staged: string;
  readonly summary: BackupSummary;
  /** Whether a database is there now, which the restore replaces. */
  readonly replaces: boolean;
}

/**
 * Copies the backup `file` beside `target` and checks the copy; refuses (ConfigError) a file that
 * is missing, not SQLite, damaged, not idp's or too new, and a target a server holds. Nothing at
 * `target` has changed when it returns: `installRestore` or `discardRestore` comes next.
 */
export async function stageRestore(file: string, target: string): Promise<StagedRestore> {
  const found = await stat(file).catch((error: NodeJS.ErrnoException) => {
    throw new ConfigError(`cannot read ${file}: ${error.code ?? error.message}`);
  });
  if (!found.isFile()) throw new ConfigError(`cannot read ${file}: not a file`);
  if (!existsSync(dirname(resolve(target)))) throw new ConfigError(`cannot restore to ${target}: directory ${dirname(resolve(target))} does not exist`);
  if (resolve(file) === resolve(target)) throw new ConfigError(`${file} is the database itself: name a backup file`);
  const replaces = existsSync(target);
  if (replaces) releaseTarget(target);
  const staged = staging(target);
  try {
    await copyFile(file, staged, constants.COPYFILE_EXCL);
    await chmod(staged, 0o600);
    const migrations = verify(staged, file);
    return { staged, replaces, summary: { database: target, file, bytes: found.size, migrations } };
  } catch (error) {
    await rm(staged, { force: true });
    throw error;
  }
}

/** Renames the staged copy over the database, once no connection holds it. */
export async function installRestore(restore: StagedRestore): Promise<BackupSummary> {
  const { staged, summary } = restore;
  try {
    releaseTarget(summary.database);
    syncPath(staged);
    await rename(staged, summary.database);
    syncPath(dirname(resolve(summary.database)));
    return summary;
  } catch (error) {
    await rm(staged, { force: true });
    throw error;
  }
}

export async function discardRestore(restore: StagedRestore): Promise<void> {
  await rm(restore.staged, { force: true });
}
