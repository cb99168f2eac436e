import type { Command } from 'commander';
import { act, examples } from './client/run.js';
import { confirmOrYes } from './client/prompt.js';
import type { Ctx } from './client/context.js';
import { dataOptions, parseEntityBody } from './client/data.js';
import { entitiesOf, messageOf, recordOf, tableOf } from './client/output.js';
import { addCollectionVerbs, appPath, targetSegments } from './client/collection.js';

/** POST /{orgId}/{appId}/{entitytype}; the collection is created with its first entity. */
async function create(ctx: Ctx, collection: string, properties: string[], flags: { data?: string }) {
  const body = await ctx.call({ method: 'POST', path: appPath(ctx, collection), json: parseEntityBody(properties, flags.data) });
  return entitiesOf(body).length === 1 ? recordOf(body) : tableOf(body, ['type', 'name', 'uuid']);
}

/** POST|DELETE /{orgId}/{appId}/{collectionId}/{entityId1}/{relation}/{entityId2}. */
function connection(method: 'POST' | 'DELETE') {
  return async (ctx: Ctx, collection: string, id: string, relation: string, target: string, flags: { yes?: boolean }) => {
    if (method === 'DELETE') await confirmOrYes(flags.yes, `Remove the '${relation}' connection from ${collection}/${id} to ${target}?`);
    const body = await ctx.call({ method, path: appPath(ctx, collection, id, relation, ...targetSegments(target)) });
    return messageOf(body, `${collection}/${id} ${method === 'POST' ? 'now' : 'no longer'} ${relation} ${target}`);
  };
}

const connectionArgs = (command: Command) =>
  command
    .argument('<collection>', 'collection of the source entity')
    .argument('<id>', 'source entity: name or uuid')
    .argument('<relation>', 'relation, e.g. likes, following')
    .argument('<target>', 'target entity: uuid, name, or collection/name');

export function register(noun: Command): void {
  const entity = examples(
    noun.description('entities of any collection (--org, --app)'),
    'idp entity create dogs name=fido color=black --org demo --app sandbox',
  );
  examples(
    dataOptions(
      entity
        .command('create')
        .description('create an entity (a JSON array in --data creates several)')
        .argument('<collection>', 'collection or type, e.g. dogs or dog'),
    ).action(act(create)),
    'idp entity create dogs name=fido age=3 \'tags=["good","loud"]\'',
    'idp entity create dogs --data @dogs.json',
  );
  addCollectionVerbs(entity, { what: 'entity', idHelp: 'name or uuid', columns: ['type', 'name', 'uuid', 'created'], example: 'dogs fido' }, [
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
}
