/**
 * Shared pieces of the data commands: entity properties from `key=value` words and `--data`, and
 * collection reads with the Usergrid query (`ql`), `limit` and `cursor`
 * (docs/api.md#queries-and-paging), where `--all` follows cursors to the last page.
 */
import { readFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import { parseQuery } from '../../src/data/query/parse.js';
import { UsageError } from './errors.js';
import type { Ctx } from './context.js';
import { entitiesOf, statusLine, tableOf, type Column, type Result } from './output.js';

/** A flag's list, `a,b.c` (each item trimmed), or `none` for the empty list. */
export function listOrNone(text: string): string[] {
  return text === 'none' ? [] : text.split(',').map((item) => item.trim());
}

/**
 * `name=fido age=3 tags=["a","b"] location.latitude=52.1`: a value that parses as JSON is that
 * JSON (numbers, booleans, arrays), anything else is a string; dots make nested objects.
 * `--data '{…}'` or `--data @file.json` gives a whole object; words are merged over it.
 */
export function parseProperties(words: string[], data?: string): Record<string, unknown> {
  const base = data === undefined ? {} : parseData(data);
  if (Array.isArray(base)) throw new UsageError('--data must be a JSON object here');
  for (const word of words) {
    const eq = word.indexOf('=');
    if (eq <= 0) throw new UsageError(`'${word}' is not a property: write NAME=VALUE`);
    setPath(base, word.slice(0, eq).split('.'), parseValue(word.slice(eq + 1)));
  }
  return base;
}

/**
 * The words of a `create`: its name, written alone (`idp user create fred`) or as a property
 * (`username=fred`) alike, and the other NAME=VALUE properties, merged over --data.
 */
export function splitCreateWords(words: (string | undefined)[], key: string, data?: string): { name?: string; properties: Record<string, unknown> } {
  const given = words.filter((word): word is string => word !== undefined);
  const alone = given.length > 0 && !given[0].includes('=') ? given[0] : undefined;
  const properties = parseProperties(alone === undefined ? given : given.slice(1), data);
  const named = properties[key] === undefined ? undefined : String(properties[key]);
  if (alone !== undefined && named !== undefined && named !== alone) throw new UsageError(`two names given, '${alone}' and ${key}=${named}: give one`);
  const name = alone ?? named;
  return { name, properties: name === undefined ? properties : { ...properties, [key]: name } };
}

/** The name of a create that takes nothing else: `sandbox` or `name=sandbox` alike. */
export function nameOf(word: string | undefined, key: string): string | undefined {
  const { name, properties } = splitCreateWords([word], key);
  const other = Object.keys(properties).find((property) => property !== key);
  if (other !== undefined) throw new UsageError(`'${other}' is not set by this command: give the ${key} alone or as ${key}=VALUE`);
  return name;
}

/** `[name] [properties...]` and --data: a create's name, alone or as `KEY=VALUE`, and its properties. */
export function createArguments(command: Command, key: string, what: string): Command {
  return dataOptions(command.argument('[name]', `${what}, alone or as ${key}=VALUE (asked on a terminal when needed)`));
}

/** The hint of a missing name. */
export const nameHint = (key: string) => `pass it as the first argument or as ${key}=VALUE`;

/** A create body: like parseProperties, or a JSON array of objects from --data alone. */
export function parseEntityBody(words: string[], data?: string): Record<string, unknown> | Record<string, unknown>[] {
  if (data !== undefined && words.length === 0) return parseData(data);
  return parseProperties(words, data);
}

function parseData(data: string): Record<string, unknown> | Record<string, unknown>[] {
  let text = data;
  if (data.startsWith('@')) {
    try {
      text = readFileSync(data.slice(1), 'utf8');
    } catch (error) {
      throw new UsageError(`cannot read ${data.slice(1)}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    }
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--data is not valid JSON: ${(error as Error).message}`);
  }
  const isObject = (item: unknown) => item !== null && typeof item === 'object' && !Array.isArray(item);
  if (Array.isArray(value) ? !value.every(isObject) : !isObject(value)) throw new UsageError('--data must be a JSON object or an array of objects');
  return value as Record<string, unknown> | Record<string, unknown>[];
}

function parseValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function setPath(target: Record<string, unknown>, keys: string[], value: unknown): void {
  let node = target;
  for (const key of keys.slice(0, -1)) {
    const next = node[key];
    node = next && typeof next === 'object' && !Array.isArray(next) ? (next as Record<string, unknown>) : (node[key] = {});
  }
  node[keys[keys.length - 1]] = value;
}

export function dataOptions(command: Command): Command {
  return command
    .argument('[properties...]', 'NAME=VALUE pairs (VALUE is JSON when it parses, else text)')
    .option('-d, --data <json>', 'properties as a JSON object, or @FILE');
}

export interface ListFlags {
  ql?: string;
  limit?: string;
  cursor?: string;
  all?: boolean;
  explain?: boolean;
}

/** How much of a list read by cursor: --limit, --cursor, --all. */
export function pagingOptions(command: Command): Command {
  return command
    .option('-l, --limit <n>', 'at most N rows, following cursors as needed (default one page of 10)')
    .option('--cursor <cursor>', 'continue from the cursor a previous list printed')
    .addOption(new Option('-a, --all', 'follow cursors to the last page').conflicts(['cursor', 'limit']));
}

export function listOptions(command: Command): Command {
  return pagingOptions(command.option('-q, --ql <query>', 'Usergrid query, e.g. "select * where age > 3 order by name"')).option(
    '--explain',
    "also print which index found the rows and how many the database read (the first page's; administrators only)",
  );
}

/** The server's largest page (docs/api.md#queries-and-paging). */
const MAX_PAGE = 1000;
/** A fetch that lasts longer than this shows its progress on a terminal. */
const PROGRESS_AFTER_MS = 1000;

function checkLimit(limit: string | undefined): number | undefined {
  if (limit !== undefined && !/^[1-9]\d*$/.test(limit)) throw new UsageError(`--limit must be a positive whole number, not '${limit}'`);
  return limit === undefined ? undefined : Number(limit);
}

/**
 * One page as the server sends it; with --limit N or --all, pages are fetched until N rows or
 * the last page and merged into the first page's envelope: every entity, `count` of them all,
 * and the `cursor` of the rows that remain (absent when none do), as if the server had sent them
 * in one page. A fetch of more than a second shows a progress line on a terminal's stderr.
 */
export async function fetchList(ctx: Ctx, path: string, flags: ListFlags, stderr: NodeJS.WriteStream = process.stderr): Promise<unknown> {
  const wanted = flags.all ? Infinity : checkLimit(flags.limit);
  const query = { ql: flags.ql, cursor: flags.cursor, explain: flags.explain ? 'true' : undefined };
  if (wanted === undefined) return ctx.call({ method: 'GET', path, query });
  const progress = progressLine(stderr);
  const entities: Record<string, unknown>[] = [];
  let first: Record<string, unknown> | undefined;
  let cursor = flags.cursor;
  do {
    const limit = Math.min(wanted - entities.length, MAX_PAGE);
    const page = (await ctx.call({ method: 'GET', path, query: { ...query, cursor, limit } })) as Record<string, unknown>;
    first ??= page;
    entities.push(...entitiesOf(page));
    cursor = cursorOf(page);
    progress.show(entities.length);
  } while (cursor !== undefined && entities.length < wanted);
  progress.done();
  const { cursor: _first, ...envelope } = first;
  return { ...envelope, entities, count: entities.length, ...(cursor === undefined ? {} : { cursor }) };
}

/** `1200 fetched…` on one terminal line, once the fetch has lasted a second, cleared at the end. */
function progressLine(stderr: NodeJS.WriteStream) {
  const started = Date.now();
  const line = statusLine(stderr);
  return {
    show(count: number) {
      if (Date.now() - started >= PROGRESS_AFTER_MS) line.show(`${count} fetched…`);
    },
    done: () => line.clear(),
  };
}

function cursorOf(body: unknown): string | undefined {
  const cursor = body && typeof body === 'object' ? (body as { cursor?: unknown }).cursor : undefined;
  return typeof cursor === 'string' && cursor !== '' ? cursor : undefined;
}

/**
 * A list read with the list flags, as a table: the columns a `--ql "select a, b …"` names, else
 * `columns` (`-o wide` and `--columns` change them when it is printed).
 */
export async function listTable(ctx: Ctx, path: string, flags: ListFlags, columns: (string | Column)[], empty: string): Promise<Result> {
  const body = await fetchList(ctx, path, flags);
  const result = pagedTable(body, selectedColumns(flags.ql) ?? columns, empty);
  const explain = (body as { explain?: { index: string | null; rows_read: number; order?: string; skipped?: string } }).explain;
  if (explain === undefined || result.view.kind !== 'table') return result;
  // docs/api.md#explain: the index that found the rows (or none: the database read the
  // collection), whether they were read in its order instead of sorted, and why one was not used.
  const line = [
    `explain: ${explain.index === null ? 'no index, the collection was read' : `index ${explain.index}`}`,
    ...(explain.order === undefined ? [] : [`read in the order of ${explain.order}`]),
    `${explain.rows_read} row${explain.rows_read === 1 ? '' : 's'} read`,
    ...(explain.skipped === undefined ? [] : [`skipped: ${explain.skipped}`]),
  ].join('; ');
  return { ...result, view: { ...result.view, footer: result.view.footer === undefined ? line : `${result.view.footer}\n${line}` } };
}

/** The properties a query selects; none for `select *`, no select, or a query the server will refuse. */
function selectedColumns(ql: string | undefined): string[] | undefined {
  try {
    return parseQuery(ql).select?.slice();
  } catch {
    return undefined;
  }
}

/**
 * A list as a table that ends with how many rows it shows and, when more remain, the command
 * that prints the next page.
 */
function pagedTable(body: unknown, columns: (string | Column)[], empty: string, argv: string[] = process.argv): Result {
  const result = tableOf(body, columns, empty);
  if (result.view.kind !== 'table' || result.view.rows.length === 0) return result;
  const cursor = cursorOf(body);
  const shown = `${result.view.rows.length} shown`;
  const footer = cursor === undefined ? `${shown}, no more` : `${shown}, more remain; next page: ${nextPageCommand(argv, cursor)}`;
  return { ...result, view: { ...result.view, footer } };
}

/** Flags that do not carry over to the next page (and a token that has no place on a screen). */
const DROPPED = new Set(['--cursor', '--token']);
const DROPPED_SWITCHES = new Set(['--all', '-a']);

/** This command line again, from `cursor`: `idp entity list dogs --ql 'where age > 2' --cursor X`. */
function nextPageCommand(argv: string[], cursor: string): string {
  const words: string[] = [];
  const args = argv.slice(2);
  for (let i = 0; i < args.length; i++) {
    const [name] = args[i].split('=', 1);
    if (DROPPED.has(name)) i += args[i].includes('=') ? 0 : 1;
    else if (!DROPPED_SWITCHES.has(args[i])) words.push(args[i]);
  }
  return ['idp', ...words, '--cursor', cursor].map(shellQuote).join(' ');
}

function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
