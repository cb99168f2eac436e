import { createReadStream, createWriteStream, openAsBlob } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { basename } from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type { Command } from 'commander';
import { act, examples } from './client/run.js';
import { confirmOrYes } from './client/prompt.js';
import { ServerError } from './client/errors.js';
import type { Ctx } from './client/context.js';
import { createArguments, listOrNone, parseEntityBody, splitCreateWords } from './client/data.js';
import { entitiesOf, messageOf, recordOf, tableOf } from './client/output.js';
import { addCollectionVerbs, appPath, NAME_COLUMN, targetSegments } from './client/collection.js';
import { UsageError } from './client/errors.js';

/** POST /{orgId}/{appId}/{entitytype}; the collection is created with its first entity. */
async function create(ctx: Ctx, collection: string, name: string | undefined, words: string[], flags: { data?: string }) {
  const json = name === undefined ? parseEntityBody(words, flags.data) : splitCreateWords([name, ...words], 'name', flags.data).properties;
  const body = await ctx.call({ method: 'POST', path: appPath(ctx, collection), json });
  return entitiesOf(body).length === 1 ? recordOf(body) : tableOf(body, ['type', NAME_COLUMN, 'uuid']);
}

/**
 * PUT /{orgId}/{appId}/{collection}/{entity} with the file as a multipart upload (docs/api.md#assets):
 * attaches it to the entity, created by name if there is none. The file is read as it is sent.
 */
async function upload(ctx: Ctx, collection: string, id: string, file: string) {
  let blob: Blob;
  try {
    // openAsBlob may throw before it returns a promise.
    blob = await openAsBlob(file);
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${(error as Error).message}`);
  }
  const body = await ctx.call({ method: 'PUT', path: appPath(ctx, collection, id), file: { field: 'file', blob, filename: basename(file) } });
  return recordOf(body, ['type', 'name', 'uuid', 'file-metadata']);
}

/**
 * GET /{orgId}/{appId}/{collection}/{entity} asking for its asset's bytes: to stdout, or written
 * to `file` under a temporary name and renamed once complete.
 */
async function download(ctx: Ctx, collection: string, id: string, file: string | undefined) {
  const path = appPath(ctx, collection, id);
  const headers = { accept: 'application/octet-stream' };
  if (file === undefined) {
    // Through a stream of its own: the end of the answer must not end stdout.
    const stdout = new PassThrough();
    stdout.pipe(process.stdout, { end: false });
    await ctx.call({ method: 'GET', path, headers, saveTo: stdout });
    return { json: undefined, view: { kind: 'message' as const, text: '' }, written: true };
  }
  const partial = `${file}.part`;
  try {
    await ctx.call({ method: 'GET', path, headers, saveTo: createWriteStream(partial, { mode: 0o600 }) });
    await rename(partial, file);
  } finally {
    await rm(partial, { force: true });
  }
  return messageOf({ saved: file }, `saved ${collection}/${id} to ${file}`, file);
}

/** Bytes of lines gathered into one piece of the import's stream. */
const IMPORT_PIECE = 64 * 1024;

/**
 * The NDJSON the import sends, made from `input` as it is read: NDJSON passes through, a JSON
 * array becomes one line per item (its items are the lines, numbered from 1), read and checked
 * whole before anything is sent. Lines before `fromLine` are sent blank, so the server numbers the
 * lines as the file does.
 */
async function importLines(input: AsyncIterable<Buffer>, fromLine: number): Promise<AsyncIterable<Buffer>> {
  const chunks = input[Symbol.asyncIterator]();
  let first = await chunks.next();
  while (!first.done && first.value.toString('utf8').trim() === '') first = await chunks.next();
  if (first.done) return arrayLines([], fromLine);
  if (first.value.toString('utf8').trimStart().startsWith('[')) {
    const pieces = [first.value];
    for (let next = await chunks.next(); !next.done; next = await chunks.next()) pieces.push(next.value);
    return arrayLines(parseArray(Buffer.concat(pieces).toString('utf8')), fromLine);
  }
  return ndjsonLines(first.value, chunks, fromLine);
}

/** NDJSON lines from `first` on and then the rest of `chunks` (importLines). */
async function* ndjsonLines(first: Buffer, chunks: AsyncIterator<Buffer>, fromLine: number): AsyncGenerator<Buffer> {
  // A character may be split between chunks: decoded across them.
  const decoder = new StringDecoder('utf8');
  let line = 1;
  let pending = '';
  let piece = '';
  for (let next: IteratorResult<Buffer> = { value: first }; !next.done; next = await chunks.next()) {
    const parts = (pending + decoder.write(next.value)).split('\n');
    pending = parts.pop() ?? '';
    for (const part of parts) piece += `${line++ < fromLine ? '' : part}\n`;
    if (piece.length >= IMPORT_PIECE) {
      yield Buffer.from(piece);
      piece = '';
    }
  }
  pending += decoder.end();
  yield Buffer.from(`${piece}${line < fromLine ? '' : pending}`);
}

function parseArray(text: string): unknown[] {
  let items: unknown;
  try {
    items = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`the file is neither NDJSON nor a JSON array: ${(error as Error).message}`);
  }
  if (!Array.isArray(items)) throw new UsageError('the file is neither NDJSON nor a JSON array');
  return items;
}

/** The items of a JSON array file, one line each (importLines). */
async function* arrayLines(items: readonly unknown[], fromLine: number): AsyncGenerator<Buffer> {
  let piece = '';
  for (const [i, item] of items.entries()) {
    piece += `${i + 1 < fromLine ? '' : JSON.stringify(item)}\n`;
    if (piece.length >= IMPORT_PIECE) {
      yield Buffer.from(piece);
      piece = '';
    }
  }
  yield Buffer.from(piece);
}

/**
 * POST /{orgId}/{appId}/{collection} of application/x-ndjson: the bulk import of FILE (`-`:
 * stdin), streamed as it is read. A refusal says the line to go on from with --from-line.
 */
async function importFile(ctx: Ctx, collection: string, file: string, flags: { fromLine?: string }) {
  const fromLine = Number(flags.fromLine ?? '1');
  if (!Number.isInteger(fromLine) || fromLine < 1) throw new UsageError(`--from-line must be a line number (1 or more), not '${flags.fromLine}'`);
  let input: Readable;
  if (file === '-') input = process.stdin;
  else {
    input = createReadStream(file);
    // Opening fails as an event: a usage error before anything is sent.
    await new Promise<void>((resolve, reject) => {
      input.once('open', () => resolve());
      input.once('error', (error) => reject(new UsageError(`cannot read ${file}: ${error.message}`)));
    });
  }
  const lines = await importLines(input, fromLine);
  const body = await ctx
    .call({ method: 'POST', path: appPath(ctx, collection), stream: { contentType: 'application/x-ndjson', body: lines } })
    .catch((error: unknown) => {
      throw resumable(error, collection, file) ?? error;
    });
  const count = Number((body as { count?: unknown }).count ?? 0);
  return messageOf(body, `stored ${count} ${count === 1 ? 'entity' : 'entities'} in ${collection}`, String(count));
}

/**
 * A refused import's error, with the command that goes on from the line it names once the refused
 * line is put right: run as it was, it would be refused at the same line again.
 */
function resumable(error: unknown, collection: string, file: string): ServerError | undefined {
  if (!(error instanceof ServerError)) return undefined;
  const fields = (error.body as { fields?: { resume_line?: unknown; line?: unknown } } | undefined)?.fields;
  const resume = fields?.resume_line;
  if (typeof resume !== 'string') return undefined;
  const next = typeof fields?.line === 'string' ? `correct or remove line ${fields.line}, then go on with` : 'to go on';
  return new ServerError(error.status, error.error, `${error.message}; ${next}: idp entity import ${collection} ${file} --from-line ${resume}`, error.body);
}

/**
 * GET /{orgId}/{appId}/{collection}/_settings, or with --unindexed a PUT replacing the paths the
 * property index leaves out (docs/api.md#collection-settings).
 */
async function settings(ctx: Ctx, collection: string, flags: { unindexed?: string }) {
  const path = appPath(ctx, collection, '_settings');
  const body =
    flags.unindexed === undefined
      ? await ctx.call({ method: 'GET', path })
      : await ctx.call({ method: 'PUT', path, json: { unindexed: listOrNone(flags.unindexed) } });
  const unindexed = (body as { data?: { unindexed?: string[] } }).data?.unindexed ?? [];
  const text = unindexed.length === 0 ? `${collection}: every property indexed` : `${collection}: the property index leaves out ${unindexed.join(', ')}`;
  return messageOf(body, text, unindexed.join('\n') || undefined);
}

/** POST|DELETE /{orgId}/{appId}/{collectionId}/{entityId1}/{relation}/{entityId2}. */
function connection(method: 'POST' | 'DELETE') {
  return async (ctx: Ctx, collection: string, id: string, relation: string, target: string, flags: { yes?: boolean }) => {
    if (method === 'DELETE') await confirmOrYes(flags.yes, `Remove the '${relation}' connection from ${collection}/${id} to ${target}?`);
    const body = await ctx.call({ method, path: appPath(ctx, collection, id, relation, ...targetSegments(target)) }).catch((error: unknown) => {
      throw unnamedTarget(error, target) ?? error;
    });
    return messageOf(body, `${collection}/${id} ${method === 'POST' ? 'now' : 'no longer'} ${relation} ${target}`);
  };
}

/**
 * A target written as a bare name is looked up as a uuid, and the server's answer names its own
 * URL form; the command line's form is COLLECTION/NAME.
 */
function unnamedTarget(error: unknown, target: string): ServerError | undefined {
  if (!(error instanceof ServerError) || error.error !== 'entity_not_found' || target.includes('/')) return undefined;
  const fields = (error.body as { fields?: { entity?: unknown } } | undefined)?.fields;
  if (fields?.entity !== target) return undefined;
  return new ServerError(error.status, error.error, `'${target}' is not a uuid: name the target with its collection, e.g. dogs/${target}`, error.body);
}

const connectionArgs = (command: Command) =>
  command
    .argument('<collection>', 'collection of the source entity')
    .argument('<id>', 'source entity: name or uuid')
    .argument('<relation>', 'relation, e.g. likes, following')
    .argument('<target>', 'target entity: collection/name (e.g. dogs/fido) or uuid');

export function register(noun: Command): void {
  const entity = examples(
    noun.description('entities of any collection (--org, --app)'),
    'idp entity create dogs name=fido color=black --org demo --app sandbox',
  );
  examples(
    createArguments(
      entity
        .command('create')
        .description('create an entity (a JSON array in --data creates several)')
        .argument('<collection>', 'collection or type, e.g. dogs or dog'),
      'name',
      'entity name',
    ).action(act(create)),
    'idp entity create dogs fido age=3 \'tags=["good","loud"]\'',
    'idp entity create dogs --data @dogs.json',
  );
  examples(
    entity
      .command('import')
      .description('store many entities from a file, streamed: one JSON object per line (NDJSON) or a JSON array')
      .argument('<collection>', 'collection or type, e.g. dogs or dog')
      .argument('<file>', 'the file, or - for stdin')
      .option('--from-line <n>', 'go on from this line (of an array: item), as a refusal names it')
      .action(act(importFile)),
    'idp entity import dogs dogs.ndjson',
    'idp entity import dogs dogs.ndjson --from-line 20001',
  );
  addCollectionVerbs(entity, { what: 'entity', idHelp: 'name or uuid', columns: ['type', NAME_COLUMN, 'uuid', 'created'], example: 'dogs fido' }, [
    'list',
    'get',
    'update',
    'delete',
  ]);
  examples(
    connectionArgs(entity.command('connect').description('connect two entities')).action(act(connection('POST'))),
    'idp entity connect users fred likes dogs/fido',
  );
  examples(
    connectionArgs(entity.command('disconnect').description('remove a connection'))
      .option('-y, --yes', 'remove without asking')
      .action(act(connection('DELETE'))),
    'idp entity disconnect users fred likes dogs/fido --yes',
  );
  addCollectionVerbs(entity, { what: 'entity', idHelp: 'name or uuid', columns: [], example: 'users fred' }, ['connections']);
  examples(
    entity
      .command('settings')
      .description("show a collection's settings, or change them: the properties its property index leaves out")
      .argument('<collection>', 'collection, e.g. dogs')
      .option('--unindexed <paths>', 'property paths to leave out, comma-separated, or none; replaces the list')
      .action(act(settings)),
    'idp entity settings dogs',
    'idp entity settings dogs --unindexed photo,notes.body',
  );
  examples(
    entity
      .command('upload')
      .description('attach a file to an entity, replacing its asset (creates the entity by name if there is none)')
      .argument('<collection>', 'collection, e.g. pictures')
      .argument('<entity>', 'name or uuid')
      .argument('<file>', 'the file to attach')
      .action(act(upload)),
    'idp entity upload pictures clouds ./clouds.jpg',
  );
  examples(
    entity
      .command('download')
      .description("the bytes of an entity's asset, to stdout or a file")
      .argument('<collection>', 'collection, e.g. pictures')
      .argument('<entity>', 'name or uuid')
      .argument('[file]', 'write to this file instead of stdout')
      .action(act(download)),
    'idp entity download pictures clouds clouds.jpg',
  );
}
