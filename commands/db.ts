/**
 * `idp db status|migrate|export|import|backup|restore`: work on the database itself, not through a
 * server. Each takes the database as `idp serve` does (`--db FILE` or `--database-url URL`, IDP_DB
 * and IDP_DATABASE_URL); migrate, export and import apply pending migrations when they open it,
 * status only reads which are applied. A database a newer idp upgraded is refused by all but
 * status (DatabaseTooNewError, exit code 6).
 * Export and import move a deployment between SQLite and PostgreSQL through the portable dump of
 * src/db/dump.ts; backup and restore copy a SQLite file as it is (src/db/backup.ts).
 */
import type { Command } from 'commander';
import { once } from 'node:events';
import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { finished } from 'node:stream/promises';
import { ConfigError, resolveConfig } from '../src/config.js';
import type { Database_ } from '../src/db/open.js';
import type { DumpSummary } from '../src/db/dump.js';
import type { BackupSummary } from '../src/db/backup.js';
import { DatabaseTooNewError } from '../src/db/schema-version.js';
import { confirmOrYes } from './client/prompt.js';
import { examples } from './client/run.js';
import { messageOf, outputModeOf, printResult, type OutputFlags } from './client/output.js';

interface DbFlags {
  db?: string;
  databaseUrl?: string;
}

interface Target {
  database: Database_;
  /** PostgreSQL: the schema the URL's search_path names (where the migrations are recorded). */
  schema?: string;
}

const reasonOf = (error: unknown) => (error as { code?: string }).code ?? (error as Error).message;

/** Why the database cannot be opened, as a usage error; a database too new for this idp stays itself. */
function cannotOpen(location: string, error: unknown): Error {
  return error instanceof DatabaseTooNewError ? error : new ConfigError(`cannot open database ${location}: ${reasonOf(error)}`);
}

const configOf = (flags: DbFlags) => resolveConfig({ db: flags.db, databaseUrl: flags.databaseUrl, logLevel: 'silent' }, process.env);

const MEMORY = '--db :memory: is gone when the command ends: name a database file';

/** Opens (and migrates) the database the flags name; anything that stops it is a ConfigError. */
async function openTarget(flags: DbFlags, options: { mustExist?: boolean } = {}): Promise<Target> {
  const config = configOf(flags);
  const { openDatabase, redactUrl } = await import('../src/db/open.js');
  if (config.databaseUrl !== undefined) {
    const connectionOptions = new URL(config.databaseUrl).searchParams.get('options') ?? '';
    const schema = /(?:^|\s)-c\s*search_path=([^\s,]+)/.exec(connectionOptions)?.[1] ?? 'public';
    try {
      return { database: await openDatabase({ url: config.databaseUrl, poolSize: 2 }), schema };
    } catch (error) {
      throw cannotOpen(redactUrl(config.databaseUrl), error);
    }
  }
  if (config.db === ':memory:') throw new ConfigError(MEMORY);
  if (options.mustExist && !existsSync(config.db)) throw new ConfigError(`database ${config.db} does not exist; pass the file idp serve uses with --db`);
  if (!existsSync(dirname(resolve(config.db))))
    throw new ConfigError(`cannot open database ${config.db}: directory ${dirname(resolve(config.db))} does not exist`);
  try {
    return { database: await openDatabase({ path: config.db }) };
  } catch (error) {
    throw cannotOpen(config.db, error);
  }
}

export interface StatusReport {
  database: string;
  dialect: 'sqlite' | 'postgres';
  /** Migrations the database has applied: its schema version. */
  migrations: number;
  /** The newest applied migration this idp knows by name; null before the first. */
  last: string | null;
  /** Migrations `idp db migrate` (or the next start) would apply, oldest first. */
  pending: readonly string[];
  /** Applied migrations this idp does not know: a newer idp upgraded the database. */
  unknown: number;
  /** The schema version of this idp, and its newest migration. */
  known: number;
  latest: string;
}

/** Reads the database's schema version without migrating it or waiting for a lock. */
export async function statusCommand(flags: DbFlags): Promise<StatusReport> {
  const config = configOf(flags);
  const { readSchemaVersion, redactUrl } = await import('../src/db/open.js');
  if (config.databaseUrl === undefined && config.db === ':memory:') throw new ConfigError(MEMORY);
  if (config.databaseUrl === undefined && !existsSync(config.db))
    throw new ConfigError(`database ${config.db} does not exist; pass the file idp serve uses with --db`);
  const location = config.databaseUrl === undefined ? config.db : redactUrl(config.databaseUrl);
  try {
    const { database, dialect, version } = await readSchemaVersion(config.databaseUrl === undefined ? { path: config.db } : { url: config.databaseUrl });
    const { applied, last, pending, unknown, known, latest } = version;
    return { database, dialect, migrations: applied, last, pending, unknown: unknown.length, known, latest };
  } catch (error) {
    throw cannotOpen(location, error);
  }
}

function statusText(result: StatusReport): string {
  const at = `database ${result.database} (${result.dialect}): schema version ${result.migrations}${result.last === null ? '' : ` (${result.last})`}`;
  if (result.unknown > 0)
    return `${at}, newer than this idp (${result.known}, ${result.latest}): ${result.unknown} migration${result.unknown === 1 ? '' : 's'} this idp does not know; it refuses to open it`;
  if (result.pending.length === 0) return `${at}, up to date`;
  return `${at}; this idp is at ${result.known} (${result.latest}), ${result.pending.length} pending: ${result.pending.join(', ')}`;
}

export interface MigrateReport {
  database: string;
  dialect: 'sqlite' | 'postgres';
  /** Migrations recorded in drizzle's __drizzle_migrations: every one this idp knows. */
  migrations: number;
}

export async function migrateCommand(flags: DbFlags): Promise<MigrateReport> {
  const { database, schema } = await openTarget(flags);
  try {
    const { countAppliedMigrations } = await import('../src/db/open.js');
    return { database: database.location, dialect: database.driver.dialect, migrations: await countAppliedMigrations(database, schema) };
  } finally {
    await database.close();
  }
}

export interface TransferReport extends DumpSummary {
  database: string;
  dialect: 'sqlite' | 'postgres';
  file: string;
}

/** `file` `-` is stdout. A file (mode 0600) is written beside its final name and renamed when complete. */
export async function exportCommand(file: string, flags: DbFlags): Promise<TransferReport> {
  const toStdout = file === '-';
  const partial = `${file}.partial-${process.pid}`;
  if (!toStdout && !existsSync(dirname(resolve(file)))) throw new ConfigError(`cannot write ${file}: directory ${dirname(resolve(file))} does not exist`);
  const { database } = await openTarget(flags, { mustExist: true });
  try {
    const { exportDump } = await import('../src/db/dump.js');
    if (toStdout) return { ...(await exportDump(database, process.stdout)), database: database.location, dialect: database.driver.dialect, file };
    // Password hashes, client secrets and private signing keys: readable by the owner only.
    const output = createWriteStream(partial, { flags: 'wx', mode: 0o600 });
    try {
      await once(output, 'open');
      const summary = await exportDump(database, output);
      output.end();
      await finished(output);
      await rename(partial, file);
      return { ...summary, database: database.location, dialect: database.driver.dialect, file };
    } catch (error) {
      output.destroy();
      await rm(partial, { force: true });
      throw error;
    }
  } finally {
    await database.close();
  }
}

/** `file` `-` is stdin. */
export async function importCommand(file: string, flags: DbFlags): Promise<TransferReport> {
  const fromStdin = file === '-';
  if (fromStdin && process.stdin.isTTY) throw new ConfigError('idp db import - reads the dump from stdin: pipe it in, or name the file');
  if (!fromStdin) {
    const found = await stat(file).catch((error: NodeJS.ErrnoException) => {
      throw new ConfigError(`cannot read ${file}: ${error.code ?? error.message}`);
    });
    if (!found.isFile()) throw new ConfigError(`cannot read ${file}: not a file`);
  }
  const { database } = await openTarget(flags);
  const input = fromStdin ? process.stdin : createReadStream(file);
  try {
    const { importDump } = await import('../src/db/dump.js');
    const summary = await importDump(database, input, { source: fromStdin ? 'stdin' : file });
    return { ...summary, database: database.location, dialect: database.driver.dialect, file };
  } finally {
    if (!fromStdin) input.destroy();
    await database.close();
  }
}

/**
 * The SQLite file the flags name, for backup and restore, which copy the file itself (and do not
 * migrate it: the copy is what the server wrote). PostgreSQL has its own tools for that.
 */
function sqliteFile(flags: DbFlags, verb: 'backup' | 'restore'): string {
  const config = configOf(flags);
  if (config.databaseUrl !== undefined)
    throw new ConfigError(
      verb === 'backup'
        ? 'idp db backup copies a SQLite file; on PostgreSQL use pg_dump (pg_dump -Fc URL > idp.pgdump), or idp db export FILE'
        : 'idp db restore replaces a SQLite file; on PostgreSQL use pg_restore for a pg_dump archive, or idp db import FILE',
    );
  if (config.db === ':memory:') throw new ConfigError(MEMORY);
  return config.db;
}

export async function backupCommand(file: string, flags: DbFlags): Promise<BackupSummary> {
  const { backupSqlite } = await import('../src/db/backup.js');
  return backupSqlite(sqliteFile(flags, 'backup'), file);
}

/** Checks the backup before anything is replaced; replacing a database asks first (or `--yes`). */
export async function restoreCommand(file: string, flags: DbFlags & { yes?: boolean }): Promise<BackupSummary> {
  const { discardRestore, installRestore, stageRestore } = await import('../src/db/backup.js');
  const staged = await stageRestore(file, sqliteFile(flags, 'restore'));
  try {
    if (staged.replaces) await confirmOrYes(flags.yes, `Replace database ${staged.summary.database} with ${file}? Everything written since the backup is lost`);
  } catch (error) {
    await discardRestore(staged);
    throw error;
  }
  return installRestore(staged);
}

/** The result on stdout, unless stdout carries the dump: then on stderr. */
function report(flags: OutputFlags, text: string, json: unknown, toStderr = false): Promise<void> {
  return printResult(messageOf(json, text), outputModeOf(flags), toStderr ? process.stderr : process.stdout);
}

function transferText(verb: 'exported' | 'imported', result: TransferReport): string {
  const tables = Object.values(result.tables).filter((rows) => rows > 0).length;
  const [from, to] =
    verb === 'exported'
      ? [`${result.database} (${result.dialect})`, result.file === '-' ? 'stdout' : result.file]
      : [result.file === '-' ? 'stdin' : result.file, `${result.database} (${result.dialect})`];
  return `${verb} ${result.rows} rows of ${tables} tables from ${from} to ${to}`;
}

function databaseOptions(command: Command): Command {
  return command
    .option('--db <path>', 'SQLite database file [IDP_DB] (default ./idp.db)')
    .option('--database-url <url>', 'postgres:// URL instead of SQLite; `?options=-c search_path=NAME` picks a schema [IDP_DATABASE_URL]');
}

export function register(noun: Command): void {
  examples(
    noun.description('the database itself: its schema version, migrate it, export it to a portable dump, import a dump, back it up and restore it'),
    'idp db backup --db ./idp.db idp-backup.db',
  );
  examples(
    databaseOptions(noun.command('status').description('show the schema version: migrations applied, pending, and whether a newer idp upgraded it')),
    'idp db status --db ./idp.db',
    'idp db status --database-url postgres://idp@db.example/idp --json',
  ).action(async (flags: DbFlags, command: Command) => {
    const result = await statusCommand(flags);
    await report(command.optsWithGlobals<OutputFlags>(), statusText(result), result);
  });
  examples(
    databaseOptions(noun.command('migrate').description('apply pending migrations and say how many are applied')),
    'idp db migrate --database-url postgres://idp@db.example/idp',
  ).action(async (flags: DbFlags, command: Command) => {
    const result = await migrateCommand(flags);
    await report(
      command.optsWithGlobals<OutputFlags>(),
      `database ${result.database} (${result.dialect}): ${result.migrations} migrations applied, up to date`,
      result,
    );
  });
  examples(
    databaseOptions(
      noun
        .command('export')
        .description('write every row to FILE (- for stdout) as JSON lines, from one snapshot')
        .argument('<file>', 'the dump to write; - for stdout'),
    ),
    'idp db export --db ./idp.db idp.dump',
    'idp db export --db ./idp.db - | gzip > idp.dump.gz',
  ).action(async (file: string, flags: DbFlags, command: Command) => {
    const result = await exportCommand(file, flags);
    await report(command.optsWithGlobals<OutputFlags>(), transferText('exported', result), result, file === '-');
  });
  examples(
    databaseOptions(
      noun
        .command('import')
        .description('read a dump from FILE (- for stdin) into an empty database, all of it or nothing')
        .argument('<file>', 'the dump to read; - for stdin'),
    ),
    'idp db import --database-url postgres://idp@db.example/idp idp.dump',
  ).action(async (file: string, flags: DbFlags, command: Command) => {
    const result = await importCommand(file, flags);
    await report(command.optsWithGlobals<OutputFlags>(), transferText('imported', result), result);
  });
  registerBackup(noun);
}

function registerBackup(noun: Command): void {
  examples(
    databaseOptions(
      noun
        .command('backup')
        .description('copy the SQLite database to FILE, consistent as of one moment, while a server may be running')
        .argument('<file>', 'the backup to write'),
    ),
    'idp db backup --db ./idp.db backups/idp-$(date +%F).db',
  ).action(async (file: string, flags: DbFlags, command: Command) => {
    const result = await backupCommand(file, flags);
    await report(
      command.optsWithGlobals<OutputFlags>(),
      `backed up ${result.database} to ${result.file} (${result.bytes} bytes, ${result.migrations} migrations)`,
      result,
    );
  });
  examples(
    databaseOptions(
      noun
        .command('restore')
        .description('check the backup FILE, then put it in place of the SQLite database (stop the server first)')
        .argument('<file>', 'the backup to restore')
        .option('-y, --yes', 'replace an existing database without asking'),
    ),
    'idp db restore --db ./idp.db backups/idp-2025-01-31.db --yes',
  ).action(async (file: string, flags: DbFlags & { yes?: boolean }, command: Command) => {
    const result = await restoreCommand(file, flags);
    await report(command.optsWithGlobals<OutputFlags>(), `restored ${result.file} to ${result.database} (${result.migrations} migrations)`, result);
  });
}
