/**
 * One printer for every command. Actions return a Result — the server's JSON plus how a person
 * should see it — and never write to stdout themselves, so they can be tested as data and
 * `--json` always prints exactly what the server said, and nothing else, for scripts to parse.
 */
import { UsageError } from './errors.js';

export interface Column {
  key: string;
  header?: string;
  /** The cell's value, when it is not simply the property `key`. */
  value?: (row: Record<string, unknown>) => unknown;
}

const valueOf = (row: Record<string, unknown>, column: Column) => (column.value === undefined ? valueAt(row, column.key) : column.value(row));

export type View =
  | { kind: 'table'; columns: Column[]; rows: Record<string, unknown>[]; empty?: string; footer?: string }
  | { kind: 'record'; record: Record<string, unknown>; keys?: string[] }
  | { kind: 'message'; text: string };

export interface Result {
  /** What `--json` prints: the server's JSON, or for local commands the local data. */
  json: unknown;
  /** What a person sees. */
  view: View;
  /** What `--quiet` prints: the one value a script wants (a token, a uuid), or nothing. */
  quiet?: string;
  /** Set when part of the work failed: printed as `error: …` after the result, exit code 1. */
  failure?: string;
  /** The command wrote its output itself (a download to stdout): nothing more is printed. */
  written?: boolean;
}

/** `-o`: a table (or a record) for people, `wide` with every property the rows have, or the server's JSON as JSON or YAML. */
export const FORMATS = ['table', 'wide', 'json', 'yaml'] as const;
export type Format = (typeof FORMATS)[number];

export interface OutputMode {
  format: Format;
  quiet: boolean;
  /** `--columns a,b.c`: the properties a table's columns (or a record's lines) show. */
  columns?: string[];
}

export interface OutputFlags {
  json?: boolean;
  quiet?: boolean;
  output?: Format;
  columns?: string;
}

/** The output the global flags ask for; `--json` is `-o json`. */
export function outputModeOf(flags: OutputFlags): OutputMode {
  if (flags.json && flags.output !== undefined && flags.output !== 'json') throw new UsageError(`--json and -o ${flags.output} ask for two outputs: pass one`);
  const columns = flags.columns
    ?.split(',')
    .map((column) => column.trim())
    .filter((column) => column !== '');
  if (columns !== undefined && columns.length === 0) throw new UsageError('--columns needs property names, e.g. --columns name,age');
  return { format: flags.json ? 'json' : (flags.output ?? 'table'), quiet: flags.quiet === true, columns };
}

export interface Style {
  bold(text: string): string;
  dim(text: string): string;
  green(text: string): string;
}

/** Colour only on a terminal, and never when NO_COLOR is set to anything (no-color.org). */
export function styleFor(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv = process.env): Style {
  const on = stream.isTTY === true && (env.NO_COLOR === undefined || env.NO_COLOR === '');
  const wrap = (open: number, close: number) => (text: string) => (on ? `\u001b[${open}m${text}\u001b[${close}m` : text);
  return { bold: wrap(1, 22), dim: wrap(2, 22), green: wrap(32, 39) };
}

/**
 * One line of progress on a terminal's stderr, redrawn in place and cleared before the result;
 * nothing at all when stderr is not a terminal.
 */
export function statusLine(stream: NodeJS.WriteStream = process.stderr) {
  let shown = false;
  return {
    show(text: string) {
      if (stream.isTTY !== true) return;
      stream.write(`\r\u001b[2K${text.slice(0, (stream.columns ?? 80) + 20)}`);
      shown = true;
    },
    clear() {
      if (shown) stream.write('\r\u001b[2K');
      shown = false;
    },
  };
}

export async function printResult(result: Result, mode: OutputMode, stdout: NodeJS.WriteStream = process.stdout): Promise<void> {
  if (result.written) return;
  if (mode.format === 'json') {
    stdout.write(`${JSON.stringify(result.json, null, 2)}\n`);
    return;
  }
  if (mode.format === 'yaml') {
    // Loaded only for this output: most commands never print YAML. A CommonJS package: its
    // `default` is its exports under Node's loader and in the bundle alike (scripts/build-bundle.js).
    const { stringify } = (await import('yaml')).default;
    stdout.write(stringify(result.json ?? null));
    return;
  }
  if (mode.quiet) {
    if (result.quiet !== undefined) stdout.write(`${result.quiet}\n`);
    return;
  }
  const text = renderView(shape(result.view, mode), styleFor(stdout), stdout.isTTY ? stdout.columns : undefined);
  if (text !== '') stdout.write(`${text}\n`);
}

/** The columns (or a record's lines) that `--columns` names, or with `-o wide` every property the rows have. */
function shape(view: View, mode: OutputMode): View {
  if (view.kind === 'table') {
    const columns = mode.columns?.map((key) => ({ key })) ?? view.columns;
    if (mode.format !== 'wide' || mode.columns !== undefined) return { ...view, columns };
    const shown = new Set(columns.map((column) => column.key));
    const more = [...new Set(view.rows.flatMap((row) => Object.keys(row)))].filter((key) => !shown.has(key) && key !== 'metadata');
    return { ...view, columns: [...columns, ...more.map((key) => ({ key }))] };
  }
  if (view.kind === 'record') return { ...view, keys: mode.columns ?? (mode.format === 'wide' ? undefined : view.keys) };
  return view;
}

export function renderView(view: View, style: Style, width?: number): string {
  switch (view.kind) {
    case 'message':
      return view.text;
    case 'record':
      return renderRecord(view.record, view.keys, style);
    case 'table': {
      const footer = view.footer === undefined ? '' : `\n${style.dim(view.footer)}`;
      if (view.rows.length === 0) return style.dim(view.empty ?? '(none)') + footer;
      return renderTable(view.columns, view.rows, style, width) + footer;
    }
  }
}

/** A property by its name, or by a dotted path into nested objects (`location.latitude`). */
export function valueAt(row: Record<string, unknown>, key: string): unknown {
  if (key in row) return row[key];
  let value: unknown = row;
  for (const segment of key.split('.')) value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[segment] : undefined;
  return value;
}

export function cell(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'number' && value > 1e12 && value < 1e14) return new Date(value).toISOString();
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function renderRecord(record: Record<string, unknown>, keys: string[] | undefined, style: Style): string {
  const shown = (keys ?? Object.keys(record)).filter((key) => valueAt(record, key) !== undefined);
  const pad = Math.max(0, ...shown.map((key) => key.length));
  return shown.map((key) => `${style.bold(key.padEnd(pad))}  ${cell(valueAt(record, key))}`).join('\n');
}

/** Column widths fit the content; on a terminal, long cells are cut so rows stay one line. */
function renderTable(columns: Column[], rows: Record<string, unknown>[], style: Style, width?: number): string {
  const limit = width ? Math.max(12, Math.floor(width / columns.length)) : Infinity;
  const cut = (text: string) => (text.length > limit ? `${text.slice(0, limit - 1)}…` : text);
  const headers = columns.map((column) => (column.header ?? column.key).toUpperCase());
  const body = rows.map((row) => columns.map((column) => cut(cell(valueOf(row, column)))));
  const widths = headers.map((header, i) => Math.max(header.length, ...body.map((line) => line[i].length)));
  const line = (cells: string[]) => cells.map((text, i) => (i === cells.length - 1 ? text : text.padEnd(widths[i]))).join('  ');
  return [style.bold(line(headers)), ...body.map(line)].join('\n');
}

/** The `entities` of a Usergrid envelope. */
export function entitiesOf(body: unknown): Record<string, unknown>[] {
  const entities = body && typeof body === 'object' ? (body as { entities?: unknown }).entities : undefined;
  return Array.isArray(entities) ? (entities as Record<string, unknown>[]) : [];
}

export function firstEntity(body: unknown): Record<string, unknown> {
  return entitiesOf(body)[0] ?? {};
}

/** The common shapes: a list of entities as a table, or the first entity as a record. */
export function tableOf(body: unknown, columns: (string | Column)[], empty?: string): Result {
  const cols = columns.map((column) => (typeof column === 'string' ? { key: column } : column));
  const rows = entitiesOf(body);
  return { json: body, view: { kind: 'table', columns: cols, rows, empty }, quiet: rows.map((row) => cell(valueOf(row, cols[0]))).join('\n') || undefined };
}

export function recordOf(body: unknown, keys?: string[]): Result {
  const record = firstEntity(body);
  return { json: body, view: { kind: 'record', record, keys }, quiet: cell(record.uuid ?? record.name) || undefined };
}

export function messageOf(body: unknown, text: string, quiet?: string): Result {
  return { json: body, view: { kind: 'message', text }, quiet };
}
