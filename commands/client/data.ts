/**
 * Shared pieces of the data commands: entity properties from `key=value` words and `--data`, and
 * collection reads with the Usergrid query (`ql`), `limit` and `cursor`
 * (docs/api.md#queries-and-paging), where `--all` follows cursors to the last page.
 */
import { readFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import { UsageError } from './errors.js';
import type { Ctx } from './context.js';
import { entitiesOf } from './output.js';

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
}

export function listOptions(command: Command): Command {
  return command
    .option('-q, --ql <query>', 'Usergrid query, e.g. "select * where age > 3 order by name"')
    .option('-l, --limit <n>', 'entities per page, at most 1000 (server default 10)')
    .option('--cursor <cursor>', 'continue from the cursor of a previous page')
    .addOption(new Option('-a, --all', 'follow cursors and return every page').conflicts('cursor'));
}

function checkLimit(limit: string | undefined): string | undefined {
  if (limit !== undefined && !/^[1-9]\d*$/.test(limit)) throw new UsageError(`--limit must be a positive whole number, not '${limit}'`);
  return limit;
}

/**
 * One page, or with --all every page merged into one envelope: the first page's envelope with
 * all entities, `count` of them all, and no cursor — what the server would answer if it had no
 * page size.
 */
export async function fetchList(ctx: Ctx, path: string, flags: ListFlags): Promise<unknown> {
  const query = { ql: flags.ql, limit: checkLimit(flags.limit), cursor: flags.cursor };
  const first = await ctx.call({ method: 'GET', path, query });
  if (!flags.all) return first;
  const entities = [...entitiesOf(first)];
  let cursor = cursorOf(first);
  while (cursor) {
    const page = await ctx.call({ method: 'GET', path, query: { ...query, cursor } });
    entities.push(...entitiesOf(page));
    cursor = cursorOf(page);
  }
  const { cursor: _last, ...envelope } = first as Record<string, unknown>;
  return { ...envelope, entities, count: entities.length };
}

function cursorOf(body: unknown): string | undefined {
  const cursor = body && typeof body === 'object' ? (body as { cursor?: unknown }).cursor : undefined;
  return typeof cursor === 'string' && cursor !== '' ? cursor : undefined;
}
