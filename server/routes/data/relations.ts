/**
 * Everything below an entity (…/{entityId}/{relation}[/{type}]/{entityId2}): connections,
 * the reverse `connecting` view, group and role membership, permissions, activities, feeds and
 * users' passwords. Sub-resources with their own meaning are looked up in maps by relation name.
 */
import type { Context } from 'hono';
import type { Env } from '../../env.js';
import { ok } from '../../envelope.js';
import { defineRoutes } from '../../route-table.js';
import { define, FindQuery, otherMethodsNotAllowed, type Handler } from './define.js';
import { formParam } from '../../request-input.js';
import { loginContextOf } from '../../client-address.js';
import { z } from '@hono/zod-openapi';
import {
  addressedEntity,
  administersApp,
  authorizeWithoutMe,
  dataLocation,
  entitiesResponse,
  findOptionsExplained,
  modelMembers,
  pageResponse,
  readEntityBody,
  refuseReservedFields,
  relatedEntity,
} from './request.js';
import { entityView } from './views.js';
import { MethodNotAllowed, EntityNotFound } from '../../../src/errors.js';
import { collectionForWrite, findCollectionIn } from '../../../src/data/collections.js';
import { isUuid } from '../../../src/ids.js';
import { describeEntities, insertEntityFromBody, entityBodies, type EntityRow } from '../../../src/data/entities.js';
import { findEntities } from '../../../src/data/find.js';
import { connectEntities, connectIn, disconnectEntities, isRelatedIn } from '../../../src/data/connections.js';
import { createsThrough, relationView, type RelationView } from '../../../src/data/relations.js';
import { PERMISSION_HOLDERS, addPermission, listPermissions, removePermission } from '../../../src/data/permission-rules.js';
import { changeUserPassword } from '../../../src/data/users.js';
import { createActivity } from '../../../src/activity/activities.js';

const ENTITY = '/{collection}/{entityId}';
const RELATION = `${ENTITY}/{relation}`;
const RELATED = `${RELATION}/{entityId2}`;
const RELATED_TYPED = `${RELATION}/{type}/{entityId2}`;
/** Usergrid's long form of a relation, `…/connections/{relation}`, and its reverse, `…/connecting/{relation}`. */
const CONNECTIONS = `${ENTITY}/connections/{relation}`;
const CONNECTING = `${ENTITY}/connecting/{relation}`;

const param = (c: Context<Env>, name: string) => c.req.param(name) ?? '';

/** The permission a DELETE on …/permissions revokes, by either of its names. */
const PermissionQuery = z.object({
  permission: formParam().openapi({ description: 'e.g. get,put:/users/me' }),
  grant_url_pattern: formParam().openapi({ description: 'another name for permission' }),
});
const subject = (c: Context<Env>) => addressedEntity(c, param(c, 'collection'), param(c, 'entityId'));

async function permissionsResponse(c: Context<Env>, row: EntityRow, rules: string[]) {
  const entity = entityView(c.get('appScope'), (await describeEntities(c.get('deps').db, [row]))[0]);
  return ok(c, {
    action: c.req.method.toLowerCase(),
    entities: [entity],
    organization: c.get('appScope').org,
    application: c.get('appScope').app,
    extra: { data: rules, ...modelMembers(c, entity) },
    location: dataLocation(c),
  });
}

/** ResetPW: the old password must match unless an administrator of the application calls. */
async function setPassword(c: Context<Env>) {
  const user = await subject(c);
  const body = (await readEntityBody(c)) as Record<string, unknown>;
  const old = body.oldpassword ?? body.password;
  const trusted = await administersApp(c);
  const input = { oldPassword: typeof old === 'string' ? old : undefined, newPassword: body.newpassword };
  await changeUserPassword(c.get('deps'), user, input, trusted, loginContextOf(c));
  return ok(c, { action: 'set user password', organization: c.get('appScope').org, application: c.get('appScope').app, location: dataLocation(c) });
}

/** POST …/{entityId}/{relation} when the relation is a sub-resource; keyed `collection/relation`. */
const POSTS: ReadonlyMap<string, Handler> = new Map<string, Handler>([
  ...[...PERMISSION_HOLDERS].map((collection): [string, Handler] => [
    `${collection}/permissions`,
    async (c) => {
      const row = await subject(c);
      await authorizeWithoutMe(c, 'post', `/${row.collection}/${row.uuid}/permissions`);
      return permissionsResponse(c, row, await addPermission(c.get('deps'), row, await readEntityBody(c)));
    },
  ]),
  ...['users', 'groups'].map((collection): [string, Handler] => [
    `${collection}/activities`,
    async (c) => entitiesResponse(c, 'post', [await createActivity(c.get('deps'), await subject(c), await readEntityBody(c))]),
  ]),
  ['users/password', setPassword],
]);

/** PUT …/{entityId}/{relation}: Usergrid set a password with PUT as well as POST (its SDKs use PUT). */
const PUTS: ReadonlyMap<string, Handler> = new Map<string, Handler>([['users/password', setPassword]]);

/** Creates an entity in the relation's collection and connects the subject to it (Usergrid's POST /users/fred/likes). */
async function createConnected(c: Context<Env>) {
  const deps = c.get('deps');
  const appScope = c.get('appScope');
  const source = await subject(c);
  const view = relationView(source.collection, param(c, 'relation'));
  if (!createsThrough(source.collection, view.relation)) {
    throw MethodNotAllowed(`${source.collection}/{id}/${view.relation} creates nothing: it is not a sub-collection of ${source.collection}`, {
      headers: { Allow: 'GET' },
    });
  }
  if (view.direction === 'in') throw MethodNotAllowed(`create the entity, then POST …/${view.relation}/{id} to connect it`, { headers: { Allow: 'GET' } });
  const items = entityBodies(await readEntityBody(c));
  const administers = await administersApp(c);
  const rows = await deps.db.transaction(async (tx) => {
    const now = deps.now();
    const collection = await collectionForWrite(tx, appScope.app.uuid, view.collection ?? view.relation);
    refuseReservedFields(collection.name, items, administers);
    const created: EntityRow[] = [];
    for (const item of items) created.push(await insertEntityFromBody(tx, appScope.app.uuid, collection, item, now));
    await connectIn(
      tx,
      appScope.app.uuid,
      created.map((row) => ({ sourceUuid: source.uuid, relation: view.relation, targetUuid: row.uuid })),
      now,
    );
    return created;
  });
  return entitiesResponse(c, 'post', rows);
}

/** The stored edge of a membership (group or role holding users, role holding groups), if this is one. */
function membershipPath(entity: EntityRow, view: RelationView, other: EntityRow): string | null {
  const [owner, member] = view.direction === 'out' ? [entity, other] : [other, entity];
  const isMembership = (owner.collection === 'groups' || owner.collection === 'roles') && (view.relation === 'users' || view.relation === 'groups');
  return isMembership ? `/${owner.collection}/${owner.uuid}/${view.relation}/${member.uuid}` : null;
}

/**
 * Which way a request reads a relation: the short form `…/{relation}` and the long form
 * `…/connections/{relation}` alike (Usergrid drops the word `connections`), or backwards from
 * the target, `…/connecting/{relation}`.
 */
type Reading = 'forward' | 'backward';

function viewOf(c: Context<Env>, entity: EntityRow, reading: Reading): RelationView {
  const relation = param(c, 'relation');
  return reading === 'forward' ? relationView(entity.collection, relation) : { direction: 'in', relation };
}

/**
 * The collection `segment` names when it filters a listing by type (`GET …/likes/dogs`, as
 * Usergrid reads a name after a relation that implies no collection), else undefined: then the
 * segment is the name of one entity.
 */
async function typeFilter(c: Context<Env>, view: RelationView, segment: string): Promise<string | undefined> {
  if (isUuid(segment) || view.collection !== undefined) return undefined;
  return (await findCollectionIn(c.get('deps').db, c.get('appScope').app.uuid, segment))?.name;
}

async function listRelated(c: Context<Env>, entity: EntityRow, view: RelationView) {
  return pageResponse(
    c,
    'get',
    await findEntities(c.get('deps').db, entity.appUuid, { kind: 'related', uuid: entity.uuid, view }, await findOptionsExplained(c)),
  );
}

/** GET …/{relation} in either form: the entities at the other end, paged, with ql. */
function listHandler(reading: Reading): Handler {
  return async (c) => {
    const entity = await subject(c);
    return listRelated(c, entity, viewOf(c, entity, reading));
  };
}

function connectionHandler(action: 'get' | 'post' | 'delete', reading: Reading = 'forward'): Handler {
  return async (c) => {
    const entity = await subject(c);
    const view = viewOf(c, entity, reading);
    const type = c.req.param('type');
    if (action === 'get' && type === undefined) {
      const collection = await typeFilter(c, view, param(c, 'entityId2'));
      if (collection !== undefined) return listRelated(c, entity, { ...view, collection });
    }
    const other = await relatedEntity(c, view, param(c, 'entityId2'), type);
    if (action === 'get') {
      if (!(await isRelatedIn(c.get('deps').db, entity, view, other)))
        throw EntityNotFound(`not connected through '${view.relation}'`, { fields: { relation: view.relation } });
      return entitiesResponse(c, 'get', [other]);
    }
    // Joining a group or a role changes what the member may do: never on the strength of `me`.
    const canonical = membershipPath(entity, view, other);
    if (canonical !== null) await authorizeWithoutMe(c, action, canonical);
    await (action === 'post' ? connectEntities : disconnectEntities)(c.get('deps'), entity, view, other);
    return entitiesResponse(c, action, [other]);
  };
}

/**
 * The long form `…/connections/{relation}[/{type}]/{entityId2}` (what Usergrid's 2.x SDKs
 * read) answers as the short form does; `…/connecting/{relation}[/{type}]/{entityId2}` reads
 * the relation backwards and only reads. Neither creates an entity: connecting needs an entity
 * that exists (docs/api.md#connections).
 */
function defineLongForms(app: Parameters<typeof define>[0]): void {
  define(app, 'get', CONNECTIONS, 'The entities connected by a relation (long form of …/{relation})', listHandler('forward'), { query: FindQuery });
  otherMethodsNotAllowed(app, CONNECTIONS, ['get']);
  define(app, 'get', CONNECTING, 'The entities connecting to this one by a relation', listHandler('backward'), { query: FindQuery });
  otherMethodsNotAllowed(app, CONNECTING, ['get']);
  for (const path of [`${CONNECTIONS}/{entityId2}`, `${CONNECTIONS}/{type}/{entityId2}`]) {
    define(app, 'get', path, 'A connected entity, or those of a type (long form)', connectionHandler('get'), { query: FindQuery });
    define(app, 'post', path, 'Connect two entities (long form)', connectionHandler('post'));
    define(app, 'delete', path, 'Disconnect two entities (long form)', connectionHandler('delete'));
    otherMethodsNotAllowed(app, path, ['get', 'post', 'delete']);
  }
  for (const path of [`${CONNECTING}/{entityId2}`, `${CONNECTING}/{type}/{entityId2}`]) {
    define(app, 'get', path, 'An entity connecting to this one, or those of a type', connectionHandler('get', 'backward'), { query: FindQuery });
    otherMethodsNotAllowed(app, path, ['get']);
  }
}

export const relationRoutes = defineRoutes('server/routes/data/relations.ts', (app) => {
  define(
    app,
    'get',
    RELATION,
    "An entity's connections, sub-collection, feed or permissions (with ql)",
    async (c) => {
      const entity = await subject(c);
      if (param(c, 'relation') === 'permissions' && PERMISSION_HOLDERS.has(entity.collection)) return permissionsResponse(c, entity, listPermissions(entity));
      return listRelated(c, entity, viewOf(c, entity, 'forward'));
    },
    { query: FindQuery },
  );
  define(
    app,
    'post',
    RELATION,
    'Add an activity, a permission, a password, or a new connected entity',
    async (c) => {
      const handler = POSTS.get(`${(await subject(c)).collection}/${param(c, 'relation')}`) ?? createConnected;
      return handler(c);
    },
    { body: true },
  );
  define(
    app,
    'delete',
    RELATION,
    'Remove a permission (?permission= or ?grant_url_pattern=)',
    async (c) => {
      const row = await subject(c);
      if (param(c, 'relation') !== 'permissions' || !PERMISSION_HOLDERS.has(row.collection))
        throw MethodNotAllowed('only …/permissions can be deleted here', { headers: { Allow: 'GET, POST' } });
      await authorizeWithoutMe(c, 'delete', `/${row.collection}/${row.uuid}/permissions`);
      const query = (c.req as unknown as { valid(target: 'query'): z.infer<typeof PermissionQuery> }).valid('query');
      return permissionsResponse(c, row, await removePermission(c.get('deps'), row, query.permission ?? query.grant_url_pattern));
    },
    { query: PermissionQuery },
  );
  define(
    app,
    'put',
    RELATION,
    "Set a user's password (…/users/{userId}/password)",
    async (c) => {
      const handler = PUTS.get(`${(await subject(c)).collection}/${param(c, 'relation')}`);
      if (handler === undefined) throw MethodNotAllowed('only …/users/{userId}/password takes PUT here', { headers: { Allow: 'GET, POST, DELETE' } });
      return handler(c);
    },
    { body: true },
  );
  otherMethodsNotAllowed(app, RELATION, ['get', 'post', 'put', 'delete']);

  define(app, 'get', RELATED, 'A connected entity, or the connected entities of a type (…/likes/dogs)', connectionHandler('get'), { query: FindQuery });
  define(app, 'post', RELATED, 'Connect two entities', connectionHandler('post'));
  define(app, 'delete', RELATED, 'Disconnect two entities', connectionHandler('delete'));
  otherMethodsNotAllowed(app, RELATED, ['get', 'post', 'delete']);

  define(app, 'get', RELATED_TYPED, 'A connected entity of a type', connectionHandler('get'));
  define(app, 'post', RELATED_TYPED, 'Connect two entities, the second named within its type', connectionHandler('post'));
  define(app, 'delete', RELATED_TYPED, 'Disconnect two entities', connectionHandler('delete'));
  otherMethodsNotAllowed(app, RELATED_TYPED, ['get', 'post', 'delete']);

  defineLongForms(app);
});
