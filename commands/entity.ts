import { createWriteStream, openAsBlob } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { basename } from 'node:path';
import { PassThrough } from 'node:stream';
import type { Command } from 'commander';
import { act, examples } from './client/run.js';
import { confirmOrYes } from './client/prompt.js';
import { ServerError } from './client/errors.js';
import type { Ctx } from './client/context.js';
import { createArguments, parseEntityBody, splitCreateWords } from './client/data.js';
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
