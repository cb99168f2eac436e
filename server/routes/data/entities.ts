/**
 * The application root, collections and entities (GET /{org}/{app}, GET/POST/PUT/DELETE
 * /{org}/{app}/{collection}, GET/PUT/DELETE …/{collection}/{entityId}).
 */
import type { Context } from 'hono';
import type { Env } from '../../env.js';
import { ok } from '../../envelope.js';
import { defineRoutes } from '../../route-table.js';
import { define, FindQuery, otherMethodsNotAllowed } from './define.js';
import {
  addressedEntity,
  dataLocation,
  findAddressedEntity,
  describedResponse,
  entitiesResponse,
  findOptions,
  findOptionsExplained,
  modelMembers,
  pageResponse,
  readEntityBody,
  refuseReservedBody,
  refuseReservedChanges,
} from './request.js';
import { applicationEntityView, entityView } from './views.js';
import { assetResponse, readEntityUpload, wantsAsset } from './assets.js';
import { bodyFormatOf } from '../../request-input.js';
import { attachingAsset, removeUnlinkedAssets } from '../../../src/data/assets.js';
import { UnsupportedMediaType } from '../../../src/errors.js';
import { collectionSettingsRoutes } from './collection-settings.js';
import { collectionForWrite, listCollections, requireCollection } from '../../../src/data/collections.js';
import {
  createEntities,
  deleteEntitiesIn,
  deleteEntity,
  describeCreated,
  describeEntities,
  entityBodies,
  namedEntityBody,
  updateEntity,
  updateEntityIn,
  type CollectionRef,
  type EntityRow,
} from '../../../src/data/entities.js';
import { findEntities } from '../../../src/data/find.js';
import { importEntities, refuseImportInto } from '../../../src/data/entity-import.js';
import { ndjsonLines } from '../../ndjson.js';
import { createUsers, USERS } from '../../../src/data/users.js';
import { sendActivationLink } from '../../../src/lifecycle/activation.js';
import type { Principal } from '../../../src/principal.js';
import { putDevice } from '../../../src/data/devices.js';
import { createEvents } from '../../../src/activity/events.js';
import { isUuid } from '../../../src/ids.js';
import type { Deps } from '../../../src/deps.js';

const APP = '/';
const COLLECTION = '/{collection}';
const ENTITY = `${COLLECTION}/{entityId}`;

type Creator = (deps: Deps, appUuid: string, collection: CollectionRef, body: unknown, principal: Principal) => Promise<EntityRow[]>;

/** Collections whose POST does more than store the body. */
const CREATORS: ReadonlyMap<string, Creator> = new Map<string, Creator>([
  // A guest signing up under --require-activation starts not activated.
  [
    'users',
    (deps, appUuid, _collection, body, principal) =>
      createUsers(deps, appUuid, body, { pendingActivation: deps.config.requireActivation && principal.kind === 'guest' }),
  ],
  ['events', (deps, appUuid, _collection, body) => createEvents(deps, appUuid, body)],
]);

function scope(c: Context<Env>) {
  return c.get('appScope');
}

/**
 * Creates entities of the collection `segment` names from the request's body (`reshape`d), as
 * POST does, and answers them under the request's method.
 */
async function createFromBody(c: Context<Env>, segment: string, reshape: (body: unknown, collection: CollectionRef) => unknown = (body) => body) {
  const { app } = scope(c);
  const deps = c.get('deps');
  const collection = await collectionForWrite(deps.db, app.uuid, segment);
  const create = CREATORS.get(collection.name) ?? createEntities;
  const upload = await readEntityUpload(c);
  const rows = await attachingAsset(deps, upload.asset, async () => {
    const body = reshape(upload.body, collection);
    await refuseReservedBody(c, collection.name, body);
    return await create(deps, app.uuid, collection, body, c.get('principal'));
  });
  if (collection.name === 'users') {
    for (const row of rows) {
      if (row.properties.activated === false) await sendActivationLink(c.get('deps'), { type: 'app_user', uuid: row.uuid, appUuid: app.uuid });
    }
  }
  // Every creator inserts under new uuids and connects nothing.
  const described = describeCreated(rows);
  const action = c.req.method.toLowerCase();
  if (collection.name !== 'events') return describedResponse(c, action, described);
  return describedResponse(c, action, described, modelMembers(c, entityView(scope(c), described[0])));
}

/**
 * A POST of `application/x-ndjson`: the bulk import, one entity per line, stored in batches as
 * the body arrives (docs/api.md#bulk-import). Answers how many were stored, not the entities.
 */
async function importFromStream(c: Context<Env>) {
  const { app } = scope(c);
  const deps = c.get('deps');
  const collection = await collectionForWrite(deps.db, app.uuid, c.req.param('collection') ?? '');
  if (CREATORS.has(collection.name)) refuseImportInto(collection.name, 'its POST does more than store entities');
  const imported = await importEntities(deps, app.uuid, collection, ndjsonLines(c));
  return ok(c, {
    action: 'post',
    organization: scope(c).org,
    application: app,
    location: dataLocation(c, collection.name),
    extra: { count: imported.stored, lines: imported.lines },
  });
}

function postEntities(c: Context<Env>) {
  if (c.req.method === 'POST' && bodyFormatOf(c) === 'ndjson') return importFromStream(c);
  return createFromBody(c, c.req.param('collection') ?? '');
}

/**
 * Whether a PUT may create the entity `id` names when none has it: a name may be chosen, a
 * uuid may not, nor `me`, nor an email, which addresses users but is no username.
 */
function namesNewEntity(collection: string, id: string): boolean {
  const users = [USERS.name, USERS.type].includes(collection.toLowerCase());
  return !isUuid(id) && !(users && (id.toLowerCase() === 'me' || id.includes('@')));
}

/**
 * PUT on one entity merges the body into it; on a name no entity has yet it creates the entity
 * with that name. A device PUT to its uuid registers it.
 */
async function putEntity(c: Context<Env>) {
  const [collection, id] = [c.req.param('collection') ?? '', c.req.param('entityId') ?? ''];
  if (collection.toLowerCase() === 'devices' && isUuid(id)) {
    return entitiesResponse(c, 'put', [await putDevice(c.get('deps'), scope(c).app.uuid, id, await readEntityBody(c))]);
  }
  const found = (await findAddressedEntity(c, collection, id)) ?? (namesNewEntity(collection, id) ? undefined : await addressedEntity(c, collection, id));
  if (found === undefined) return createFromBody(c, collection, (body, into) => namedEntityBody(into.name, body, id));
  return updateFromBody(c, found);
}

/** Merges the request's body into the entity, and attaches the file a multipart body carries. */
async function updateFromBody(c: Context<Env>, row: EntityRow) {
  const upload = await readEntityUpload(c);
  const rows = await attachingAsset(c.get('deps'), upload.asset, async () => {
    await refuseReservedChanges(c, row, upload.body);
    return [await updateEntity(c.get('deps'), row, upload.body)];
  });
  return entitiesResponse(c, c.req.method.toLowerCase(), rows);
}

/** POST on an entity is Usergrid's upload of its asset: a multipart body only. */
async function postAsset(c: Context<Env>) {
  const row = await addressedEntity(c, c.req.param('collection') ?? '', c.req.param('entityId') ?? '');
  if (bodyFormatOf(c) !== 'multipart') {
    throw UnsupportedMediaType('POST on an entity attaches a file: send multipart/form-data with a `file` part (PUT changes properties)');
  }
  return updateFromBody(c, row);
}

/** GET of an entity: its JSON, or its asset's bytes when the Accept header asks for them. */
async function getEntity(c: Context<Env>) {
  const row = await addressedEntity(c, c.req.param('collection') ?? '', c.req.param('entityId') ?? '');
  return wantsAsset(c) ? assetResponse(c, row) : entitiesResponse(c, 'get', [row]);
}

/**
 * Whether a request on a collection names its entities by a query. A PUT without one creates from
 * its body, as Usergrid does: it never picks the entities to overwrite by itself. A blank `ql=` is
 * a query that matches every entity, as in Usergrid's batch update (`PUT /items?ql=`).
 */
function hasQuery(c: Context<Env>): boolean {
  return findOptions(c).ql !== undefined;
}

/** PUT or DELETE on every entity a query matches (up to `limit`), in one transaction. */
async function changeMatches(c: Context<Env>, change: (rows: EntityRow[], body: unknown) => Promise<EntityRow[]>) {
  const deps = c.get('deps');
  const { app } = scope(c);
  const collection = await requireCollection(deps.db, app.uuid, c.req.param('collection') ?? '');
  const body = c.req.method === 'PUT' ? await readEntityBody(c) : undefined;
  if (body !== undefined) await refuseReservedBody(c, collection.name, body);
  const options = await findOptionsExplained(c);
  const { rows, explain } = await deps.db.transaction(async (tx) => {
    const found = await findEntities(tx, app.uuid, { kind: 'collection', collection: collection.name }, options);
    return { rows: await change(found.rows, body), explain: found.explain };
  });
  return ok(c, {
    action: c.req.method.toLowerCase(),
    entities: (await describeEntities(deps.db, rows)).map((one) => entityView(scope(c), one)),
    organization: scope(c).org,
    application: app,
    location: dataLocation(c, collection.name),
    extra: explain === undefined ? undefined : { explain },
  });
}

/** DELETE on a collection: the entities a query matches, and then their assets. */
async function deleteMatches(c: Context<Env>) {
  const answer = await changeMatches(c, async (rows) => {
    await deleteEntitiesIn(c.get('deps').db, rows);
    return rows;
  });
  await removeUnlinkedAssets(c.get('deps'));
  return answer;
}

export const entityRoutes = defineRoutes('server/routes/data/entities.ts', (app) => {
  define(app, 'get', APP, 'The application and its collections', async (c) => {
    const collections = await listCollections(c.get('deps'), scope(c).app.uuid);
    return ok(c, {
      action: 'get',
      entities: [applicationEntityView(scope(c), collections)],
      organization: scope(c).org,
      application: scope(c).app,
      location: dataLocation(c),
    });
  });
  otherMethodsNotAllowed(app, APP, ['get']);

  define(
    app,
    'get',
    COLLECTION,
    'Query a collection (ql or queryStatement, limit, cursor)',
    async (c) => {
      const collection = await requireCollection(c.get('deps').db, scope(c).app.uuid, c.req.param('collection') ?? '');
      return pageResponse(
        c,
        'get',
        await findEntities(c.get('deps').db, scope(c).app.uuid, { kind: 'collection', collection: collection.name }, await findOptionsExplained(c)),
        collection.name,
      );
    },
    { query: FindQuery },
  );
  define(app, 'post', COLLECTION, 'Create one entity or an array of them (creates the collection); a multipart form attaches its file', postEntities, {
    body: true,
    upload: true,
  });
  define(
    app,
    'put',
    COLLECTION,
    'With ql: update every entity the query matches. Without: create, as POST does (a multipart form attaches its file)',
    async (c) =>
      !hasQuery(c)
        ? postEntities(c)
        : changeMatches(c, async (rows, body) => {
            const [properties] = entityBodies(body);
            const now = c.get('deps').now();
            const updated: EntityRow[] = [];
            for (const row of rows) updated.push(await updateEntityIn(c.get('deps').db, row, properties, now));
            return updated;
          }),
    { query: FindQuery, body: true, upload: true },
  );
  define(app, 'delete', COLLECTION, 'Delete every entity a query matches (up to limit)', deleteMatches, { query: FindQuery });
  otherMethodsNotAllowed(app, COLLECTION, ['get', 'post', 'put', 'delete']);

  // Before the entity routes, which would take `_settings` for an entity's name.
  collectionSettingsRoutes(app);

  define(app, 'get', ENTITY, 'Get an entity by uuid or name; with an Accept header that asks for its type, the bytes of its asset', getEntity);
  define(
    app,
    'put',
    ENTITY,
    'Merge properties into an entity, or create it by name (a device PUT to its uuid registers it); a multipart form attaches its file',
    putEntity,
    { body: true, upload: true },
  );
  define(app, 'post', ENTITY, 'Attach a file to an entity (multipart/form-data: the `file` part, and properties to merge)', postAsset, { upload: true });
  define(app, 'delete', ENTITY, 'Delete an entity, its connections and its asset', async (c) => {
    const row = await addressedEntity(c, c.req.param('collection') ?? '', c.req.param('entityId') ?? '');
    await deleteEntity(c.get('deps'), row);
    await removeUnlinkedAssets(c.get('deps'));
    return entitiesResponse(c, 'delete', [row]);
  });
  otherMethodsNotAllowed(app, ENTITY, ['get', 'post', 'put', 'delete']);
});
