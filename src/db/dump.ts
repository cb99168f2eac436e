/**
 * A portable dump of the whole database, for `idp db export` and `idp db import`: JSON lines, the
 * same for the same data whichever database wrote them, so a SQLite deployment moves to
 * PostgreSQL (or back) without losing anything.
 *
 *   {"format":"idp-dump","version":2,"dialect":"sqlite","created":"2025-…Z","tables":["organizations",…]}
 *   {"table":"organizations","row":{"uuid":"…","name":"acme",…,"properties":{},"created":1700000000000,…}}
 *   {"end":"idp-dump","rows":1234,"sha256":"…"}
 *
 * The first line is the header, the last the end line; every line between is one row, with the
 * database's (snake_case) column names. The end line counts the rows and carries the SHA-256 of
 * the row lines (each with its "\n"), so a dump cut short (even at a line boundary) or changed
 * after the export is refused by import. Integers are JSON numbers, JSON columns are parsed JSON with their object keys
 * sorted (PostgreSQL's jsonb keeps no key order, so this is the one order both can reproduce),
 * NULL is null, bytes (asset chunks) are base64 text. Tables come parents first, in an order derived from the schema's foreign keys,
 * and rows in primary-key order (byte order for text, as SQLite compares it), so a dump taken
 * from SQLite and one taken from a PostgreSQL copy of it are identical apart from the header.
 *
 * Both directions stream: export pages through each table by primary key (a cursor on
 * PostgreSQL), import inserts in batches, so memory stays bounded however large the database.
 * Each runs in one transaction: export reads one snapshot, import writes everything or nothing.
 */
import { createHash, type Hash } from 'node:crypto';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { is } from 'drizzle-orm';
import { parentsOf } from './read-cache.js';
import { getTableConfig, SQLiteBaseInteger, SQLiteTable, type SQLiteColumn } from 'drizzle-orm/sqlite-core';
import { ConfigError } from '../config.js';
import { atomicAlone, placeholder, type Driver } from './driver.js';
import type { Database_ } from './open.js';
import * as schema from './schema.js';

export const DUMP_FORMAT = 'idp-dump';
/** 2: with the end line (version 1 had none, so its completeness cannot be checked). */
export const DUMP_VERSION = 2;

/** Rows read or written per statement. */
const BATCH_ROWS = 500;
/** Placeholders per insert statement, well under SQLite's (32766) and PostgreSQL's (65535) limits. */
const BATCH_PARAMETERS = 8000;
/** Rows per statement of a table that holds bytes: a few asset chunks (256 KiB each) at a time keep memory bounded. */
const BYTES_BATCH_ROWS = 4;

type Kind = 'text' | 'integer' | 'real' | 'json' | 'bytes';

interface DumpColumn {
  readonly name: string;
  readonly kind: Kind;
}

export interface DumpTable {
  readonly name: string;
  readonly columns: readonly DumpColumn[];
  /** The primary-key columns, in key order: rows are dumped in this order. */
  readonly key: readonly string[];
  /** The autoincrement column, whose PostgreSQL sequence is moved past the imported ids. */
  readonly serial?: string;
  /** Tables this one's foreign keys point at. */
  readonly parents: readonly string[];
}

export interface DumpHeader {
  format: typeof DUMP_FORMAT;
  version: typeof DUMP_VERSION;
  dialect: Driver['dialect'];
  created: string;
  tables: string[];
}

/** The dump's last line. */
interface DumpEnd {
  end: typeof DUMP_FORMAT;
  /** Row lines between the header and this line. */
  rows: number;
  /** Hex SHA-256 of those lines, each with its "\n". */
  sha256: string;
}

export interface DumpSummary {
  /** Rows per table, every table of the dump (0 for an empty one). */
  tables: Record<string, number>;
  rows: number;
}

function kindOf(column: SQLiteColumn): Kind {
  switch (column.columnType) {
    case 'SQLiteText':
      return 'text';
    case 'SQLiteTextJson':
      return 'json';
    case 'SQLiteInteger':
    case 'SQLiteBoolean':
    case 'SQLiteTimestamp':
      return 'integer';
    case 'SQLiteReal':
      return 'real';
    case 'SQLiteBlobBuffer':
      return 'bytes';
    default:
      throw new Error(`the dump has no portable form for ${column.columnType} (column ${column.name})`);
  }
}

function describe(table: SQLiteTable): DumpTable {
  const config = getTableConfig(table);
  const composite = config.primaryKeys[0]?.columns;
  const key = (composite ?? config.columns.filter((column) => column.primary)).map((column) => column.name);
  if (key.length === 0) throw new Error(`table ${config.name} has no primary key to page through`);
  const serial = config.columns.find((column) => column.primary && is(column, SQLiteBaseInteger) && column.autoIncrement);
  return {
    name: config.name,
    columns: config.columns.map((column) => ({ name: column.name, kind: kindOf(column) })),
    key,
    serial: serial?.name,
    parents: parentsOf(table),
  };
}

/** Depth first over the foreign keys, tables by name: every table after the tables it points at. */
function parentsFirst(tables: Map<string, DumpTable>): DumpTable[] {
  const ordered: DumpTable[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (table: DumpTable) => {
    if (state.get(table.name) === 'done') return;
    if (state.get(table.name) === 'visiting') throw new Error(`the foreign keys form a cycle through ${table.name}`);
    state.set(table.name, 'visiting');
    for (const parent of table.parents) if (parent !== table.name) visit(tables.get(parent)!);
    state.set(table.name, 'done');
    ordered.push(table);
  };
  for (const name of [...tables.keys()].sort()) visit(tables.get(name)!);
  return ordered;
}

let cachedTables: readonly DumpTable[] | undefined;

/** Every table of the schema (drizzle's migrations table is not in it), parents first. */
export function dumpTables(): readonly DumpTable[] {
  cachedTables ??= parentsFirst(
    new Map(
      (Object.values(schema) as unknown[])
        .filter((value): value is SQLiteTable => is(value, SQLiteTable))
        .map((table) => describe(table))
        .map((table) => [table.name, table]),
    ),
  );
  return cachedTables;
}

const quote = (name: string) => `"${name}"`;

/**
 * Runs `body` in one transaction opened with `begin`. The PostgreSQL driver runs a body again
 * after a serialization failure; a stream half read or written cannot be, so that ends it.
 */
async function inTransaction<T>(driver: Driver, begin: string, body: () => Promise<T>): Promise<T> {
  let attempts = 0;
  return atomicAlone(
    driver,
    async () => {
      if (++attempts > 1) throw new Error('a concurrent transaction interrupted this one; nothing was changed, run it again');
      return await body();
    },
    begin,
  );
}

/** JSON with every object's keys sorted, recursively. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
  );
}

/** Rows per statement for `table`: `rows`, or fewer where its rows hold bytes. */
function batchOf(table: DumpTable, rows: number): number {
  return table.columns.some((column) => column.kind === 'bytes') ? Math.min(rows, BYTES_BATCH_ROWS) : rows;
}

function portableRow(table: DumpTable, row: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    table.columns.map(({ name, kind }) => {
      const value = row[name] ?? null;
      if (kind === 'bytes') return [name, value === null ? null : (value as Buffer).toString('base64')];
      // SQLite keeps JSON as text, PostgreSQL as jsonb, which the driver hands over as text too.
      return [name, kind === 'json' && value !== null ? canonical(typeof value === 'string' ? JSON.parse(value) : value) : value];
    }),
  );
}

/** One table's rows in primary-key order, a page at a time. */
async function* pagesOf(driver: Driver, table: DumpTable, batch: number): AsyncGenerator<Record<string, unknown>[]> {
  const columns = table.columns.map((column) => quote(column.name)).join(', ');
  const from = `select ${columns} from ${quote(table.name)}`;
  if (driver.dialect === 'postgres') {
    // Text keys in byte order (collation "C"), as SQLite orders them. The sort is the server's,
    // once per table, spilling to disk if it must; the cursor hands the result over in pages.
    const text = new Set(table.columns.filter((column) => column.kind === 'text').map((column) => column.name));
    const order = table.key.map((name) => (text.has(name) ? `${quote(name)} collate "C"` : quote(name))).join(', ');
    await driver.run(`declare idp_dump no scroll cursor for ${from} order by ${order}`);
    for (;;) {
      const rows = await driver.query(`fetch forward ${batch} from idp_dump`);
      if (rows.length > 0) yield rows;
      if (rows.length < batch) break;
    }
    await driver.run('close idp_dump');
    return;
  }
  // SQLite: keyset pagination over the primary key's index.
  const keyList = table.key.map(quote).join(', ');
  const keyTuple = table.key.length === 1 ? keyList : `(${keyList})`;
  const slots = table.key.length === 1 ? '?' : `(${table.key.map(() => '?').join(', ')})`;
  let after: unknown[] | undefined;
  for (;;) {
    const where = after === undefined ? '' : ` where ${keyTuple} > ${slots}`;
    const rows = await driver.query(`${from}${where} order by ${keyList} limit ?`, [...(after ?? []), batch]);
    if (rows.length > 0) yield rows;
    if (rows.length < batch) break;
    const last = rows[rows.length - 1];
    after = table.key.map((name) => last[name]);
  }
}

async function write(output: Writable, chunk: string): Promise<void> {
  if (!output.write(chunk)) await once(output, 'drain');
}

/**
 * Writes the dump of `database` to `output` (not ended here). Reads one snapshot: a server may
 * keep running on the database meanwhile.
 */
export async function exportDump(
  database: Pick<Database_, 'driver'>,
  output: Writable,
  options: { batchSize?: number; now?: Date } = {},
): Promise<DumpSummary> {
  const { driver } = database;
  const batch = options.batchSize ?? BATCH_ROWS;
  const tables = dumpTables();
  const header: DumpHeader = {
    format: DUMP_FORMAT,
    version: DUMP_VERSION,
    dialect: driver.dialect,
    created: (options.now ?? new Date()).toISOString(),
    tables: tables.map((table) => table.name),
  };
  const begin = driver.dialect === 'postgres' ? 'start transaction isolation level repeatable read, read only' : 'begin';
  return inTransaction(driver, begin, async () => {
    await write(output, `${JSON.stringify(header)}\n`);
    const summary: DumpSummary = { tables: {}, rows: 0 };
    const digest = createHash('sha256');
    for (const table of tables) {
      summary.tables[table.name] = 0;
      for await (const rows of pagesOf(driver, table, batchOf(table, batch))) {
        const lines = rows.map((row) => `${JSON.stringify({ table: table.name, row: portableRow(table, row) })}\n`).join('');
        digest.update(lines);
        await write(output, lines);
        summary.tables[table.name] += rows.length;
        summary.rows += rows.length;
      }
    }
    const end: DumpEnd = { end: DUMP_FORMAT, rows: summary.rows, sha256: digest.digest('hex') };
    await write(output, `${JSON.stringify(end)}\n`);
    return summary;
  });
}

/** A line that cannot be imported. */
class LineError extends Error {}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function checkHeader(value: unknown, known: Map<string, DumpTable>): DumpTable[] {
  if (!isRecord(value) || value.format !== DUMP_FORMAT)
    throw new LineError(`not an ${DUMP_FORMAT} header: the first line must be {"format":"${DUMP_FORMAT}",…}`);
  if (value.version === 1)
    throw new LineError(`dump version 1 has no end line, so whether it is complete cannot be checked: export it again with this idp (version ${DUMP_VERSION})`);
  if (value.version !== DUMP_VERSION)
    throw new LineError(`dump version ${JSON.stringify(value.version)} is not supported (this idp reads version ${DUMP_VERSION})`);
  if (!Array.isArray(value.tables) || !value.tables.every((name) => typeof name === 'string')) throw new LineError('"tables" must be an array of table names');
  return value.tables.map((name: string) => {
    const table = known.get(name);
    if (table === undefined) throw new LineError(`unknown table ${name}`);
    return table;
  });
}

const isEndLine = (value: unknown): value is Record<string, unknown> => isRecord(value) && 'end' in value;

/** The end line against the row lines read before it: how many, and their SHA-256. */
function checkEnd(value: Record<string, unknown>, rows: number, digest: Hash): void {
  const keys = Object.keys(value).sort().join(',');
  if (
    value.end !== DUMP_FORMAT ||
    keys !== 'end,rows,sha256' ||
    !Number.isSafeInteger(value.rows) ||
    typeof value.sha256 !== 'string' ||
    !/^[0-9a-f]{64}$/.test(value.sha256)
  )
    throw new LineError(`the end line must be {"end":"${DUMP_FORMAT}","rows":N,"sha256":"…"}`);
  if (value.rows !== rows)
    throw new LineError(`the end line counts ${String(value.rows)} rows, but ${rows} came before it: the dump is incomplete or was changed`);
  if (value.sha256 !== digest.digest('hex')) throw new LineError("the rows do not match the end line's sha256: the dump was changed or damaged");
}

function checkValue(table: DumpTable, column: DumpColumn, value: unknown): unknown {
  if (column.kind === 'json') return value === null ? null : JSON.stringify(value);
  if (column.kind === 'bytes' && typeof value === 'string' && /^[A-Za-z0-9+/]*={0,2}$/.test(value)) return Buffer.from(value, 'base64');
  const fits =
    value === null ||
    (column.kind === 'text' && typeof value === 'string') ||
    (column.kind === 'bytes' && value === null) ||
    (column.kind === 'integer' && Number.isSafeInteger(value)) ||
    (column.kind === 'real' && typeof value === 'number' && Number.isFinite(value));
  if (!fits)
    throw new LineError(
      `${table.name}.${column.name} must be ${column.kind === 'text' ? 'a string' : column.kind === 'bytes' ? 'base64 text' : `a${column.kind === 'integer' ? 'n integer' : ' number'}`} or null, not ${JSON.stringify(value)}`,
    );
  // Entity uuids are stored lowercase: lookups by uuid, and queries' `uuid = …`, rely on it (docs/design.md#the-property-index).
  if (table.name === 'entities' && column.name === 'uuid' && typeof value === 'string' && value !== value.toLowerCase())
    throw new LineError(`entities.uuid must be lowercase, not ${JSON.stringify(value)}`);
  return value;
}

/** A row line as the table it goes to, its column names, and its values ready to bind. */
function parseRow(value: unknown, declared: Map<string, DumpTable>): { table: DumpTable; columns: string[]; values: unknown[] } {
  if (!isRecord(value) || typeof value.table !== 'string' || !isRecord(value.row)) throw new LineError('a row line must be {"table":"…","row":{…}}');
  const extra = Object.keys(value).find((key) => key !== 'table' && key !== 'row');
  if (extra !== undefined) throw new LineError(`unexpected field ${JSON.stringify(extra)}`);
  const table = declared.get(value.table);
  if (table === undefined) throw new LineError(`table ${value.table} is not in the header's tables`);
  const row = value.row;
  const columns = Object.keys(row);
  if (columns.length === 0) throw new LineError(`a row of ${table.name} without columns`);
  const values = columns.map((name) => {
    const column = table.columns.find((candidate) => candidate.name === name);
    if (column === undefined) throw new LineError(`table ${table.name} has no column ${name}`);
    return checkValue(table, column, row[name]);
  });
  return { table, columns, values };
}

interface Pending {
  table: DumpTable;
  columns: string[];
  rows: unknown[][];
  firstLine: number;
  lastLine: number;
}

/** An integrity or data error of the database (SQLite's constraint codes, PostgreSQL classes 22 and 23). */
function isDataError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_CONSTRAINT') || code === 'SQLITE_MISMATCH' || /^2[23]/.test(code));
}

async function insert(driver: Driver, pending: Pending, source: string): Promise<void> {
  const width = pending.columns.length;
  const slots = pending.rows.map((_, row) => `(${pending.columns.map((_, column) => placeholder(driver.dialect, row * width + column + 1)).join(', ')})`);
  const text = `insert into ${quote(pending.table.name)} (${pending.columns.map(quote).join(', ')}) values ${slots.join(', ')}`;
  try {
    await driver.run(text, pending.rows.flat());
  } catch (error) {
    const lines = pending.firstLine === pending.lastLine ? `line ${pending.firstLine}` : `lines ${pending.firstLine}-${pending.lastLine}`;
    const message = `${source} ${lines} (${pending.table.name}): ${(error as Error).message}; nothing was imported`;
    throw isDataError(error) ? new ConfigError(message) : new Error(message, { cause: error });
  }
}

/**
 * The lines of a dump as they are read: the header, the rows, the end line. Each row line is
 * counted and hashed, so the end line can be checked against what came before it.
 */
class DumpReader {
  private declared: Map<string, DumpTable> | undefined;
  private rows = 0;
  private ended = false;
  private readonly digest = createHash('sha256');

  constructor(
    private readonly known: Map<string, DumpTable>,
    private readonly summary: DumpSummary,
  ) {}

  /** A row line as its table, columns and values; undefined for the header and the end line. Throws LineError. */
  read(line: string): ReturnType<typeof parseRow> | undefined {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new LineError(`not JSON (${(error as Error).message})`);
    }
    if (this.declared === undefined) {
      const tables = checkHeader(value, this.known);
      this.declared = new Map(tables.map((table) => [table.name, table]));
      for (const table of tables) this.summary.tables[table.name] = 0;
      return undefined;
    }
    if (this.ended) throw new LineError('a line after the end line');
    if (isEndLine(value)) {
      checkEnd(value, this.rows, this.digest);
      this.ended = true;
      return undefined;
    }
    const parsed = parseRow(value, this.declared);
    this.digest.update(`${line}\n`);
    this.rows++;
    return parsed;
  }

  /** Throws unless the whole dump was read: its header, and its end line after `lines` lines. */
  finish(source: string, lines: number): void {
    if (this.declared === undefined) throw new ConfigError(`${source} is empty: not an ${DUMP_FORMAT} file`);
    if (!this.ended)
      throw new ConfigError(
        `${source} ends after line ${lines} without its end line {"end":"${DUMP_FORMAT}",…}: the dump is incomplete (cut short?); nothing was imported`,
      );
  }
}

async function refuseRows(database: Pick<Database_, 'driver' | 'location'>, tables: Iterable<DumpTable>): Promise<void> {
  for (const table of tables) {
    if ((await database.driver.query(`select 1 as found from ${quote(table.name)} limit 1`)).length > 0) {
      throw new ConfigError(
        `database ${database.location} is not empty (table ${table.name} has rows): import into a new database, migrated with \`idp db migrate\` or not at all`,
      );
    }
  }
}

/** PostgreSQL: identity columns count on from their sequence, which the explicit ids did not move. */
async function moveSequences(driver: Driver, tables: Iterable<DumpTable>): Promise<void> {
  for (const table of tables) {
    if (table.serial === undefined) continue;
    const column = quote(table.serial);
    await driver.query(`select setval(pg_get_serial_sequence($1, $2), coalesce(max(${column}), 0) + 1, false) from ${quote(table.name)}`, [
      quote(table.name),
      table.serial,
    ]);
  }
}

/**
 * Reads a dump from `input` into `database`, which must be migrated and empty: every row or, on
 * any error (a malformed line, a row the database refuses, a dump cut short), none. `source`
 * names the input in messages. Errors about the input or the target are ConfigErrors (exit code 2).
 */
export async function importDump(
  database: Pick<Database_, 'driver' | 'location'>,
  input: Readable,
  options: { source?: string; batchSize?: number } = {},
): Promise<DumpSummary> {
  const { driver } = database;
  const source = options.source ?? 'the dump';
  const known = new Map(dumpTables().map((table) => [table.name, table]));
  const maxRows = options.batchSize ?? BATCH_ROWS;
  // Read committed: an empty target has nothing to conflict over, and nothing for the driver to retry.
  const begin = driver.dialect === 'postgres' ? 'start transaction isolation level read committed' : 'begin immediate';
  return inTransaction(driver, begin, async () => {
    await refuseRows(database, known.values());
    const summary: DumpSummary = { tables: {}, rows: 0 };
    const reader = new DumpReader(known, summary);
    let pending: Pending | undefined;
    const flush = async () => {
      if (pending === undefined) return;
      await insert(driver, pending, source);
      summary.tables[pending.table.name] += pending.rows.length;
      summary.rows += pending.rows.length;
      pending = undefined;
    };
    let number = 0;
    for await (const line of createInterface({ input, crlfDelay: Infinity })) {
      number++;
      let parsed;
      try {
        parsed = reader.read(line);
      } catch (error) {
        if (error instanceof LineError) throw new ConfigError(`${source} line ${number}: ${error.message}; nothing was imported`);
        throw error;
      }
      if (parsed === undefined) continue;
      const signature = parsed.columns.join(',');
      if (
        pending !== undefined &&
        (pending.table !== parsed.table ||
          pending.columns.join(',') !== signature ||
          pending.rows.length >= Math.min(batchOf(pending.table, maxRows), Math.floor(BATCH_PARAMETERS / pending.columns.length)))
      ) {
        await flush();
      }
      pending ??= { table: parsed.table, columns: parsed.columns, rows: [], firstLine: number, lastLine: number };
      pending.rows.push(parsed.values);
      pending.lastLine = number;
    }
    reader.finish(source, number);
    await flush();
    if (driver.dialect === 'postgres') await moveSequences(driver, known.values());
    return summary;
  });
}
