/**
 * What every data route shares: the access middleware (one place, so no route can forget the
 * check), reading bodies and query parameters, finding the addressed entities, and the
 * envelope around them.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Context } from 'hono';
import type { z } from '@hono/zod-openapi';
import type { FindQuery } from './define.js';
import type { Env } from '../../env.js';
import { ok, urlOf } from '../../envelope.js';
import { EntityNotFound, Forbidden, IllegalArgument, UnsupportedMediaType } from '../../../src/errors.js';
import { readBody, SECRET_PARAMS, type BodyRule } from '../../request-input.js';
import { isUuid } from '../../../src/ids.js';
import { authorizeAppRequest } from '../../../src/access/app-access.js';
import type { Verb } from '../../../src/access/permissions.js';
import { appSegments } from '../../access.js';
import { describeEntities, entityBodies, findEntityIn, requireEntity, type EntityDescription, type EntityRow } from '../../../src/data/entities.js';
import { findCollectionIn, requireCollection } from '../../../src/data/collections.js';
import { findUserIn, requireUser, USERS } from '../../../src/data/users.js';
import { RESERVED_USER_FIELDS, refuseReservedUserFields } from '../../../src/management/schemas.js';
import { isApplicationAdmin } from '../../../src/access/policy.js';
import type { Properties } from '../../../src/data/rules.js';
import { findEntityByUuid } from '../../../src/db/entity-store.js';
import type { FindOptions, EntityPage } from '../../../src/data/find.js';
import type { RelationView } from '../../../src/data/relations.js';
import { entityView } from './views.js';

/** Words before a relation's name: `…/connections/likes`, `…/connecting/likes`. */
const LONG_FORMS: ReadonlySet<string> = new Set(['connections', 'connecting']);

/**
 * Usergrid's `path` and `uri` of a data response: the path inside the application of the
 * collection the entities are listed in. A request on a collection or one of its entities
 * answers with the collection's name whatever spelling it used (`POST /dog`, `PUT /dogs/rex`
 * → `/dogs`); one below an entity with that sub-collection as requested
 * (`/users/fred/activities`, `/users/fred/connections/likes`, `/users/fred/connecting/likes`). Usergrid's SDKs save an entity
 * back to `{path}/{uuid}`.
 */
export function dataLocation(c: Context<Env>, collection?: string): { path: string; uri: string } {
  const segments = appSegments(c);
  let path = '/';
  if (segments.length > 0 && segments.length <= 2) path = `/${collection ?? segments[0]}`;
  if (segments.length > 2) path = `/${segments.slice(0, LONG_FORMS.has(segments[2].toLowerCase()) ? 4 : 3).join('/')}`;
  const { org, app } = c.get('appScope');
  const base = `${urlOf(c).origin}/${encodeURIComponent(org.name)}/${encodeURIComponent(app.name)}`;
  return { path, uri: path === '/' ? base : `${base}${path}` };
}

/**
 * A second check for requests that change who may do what (permission rules, role and group
 * membership) or pick their targets by a query (a send to the devices a query matches): the
 * canonical path must be permitted without `me` standing for the caller.
 */
export async function authorizeWithoutMe(c: Context<Env>, verb: Verb, path: string): Promise<void> {
  const { app } = c.get('appScope');
  await authorizeAppRequest(c.get('deps'), { principal: c.get('principal'), app, verb, path, selfMatches: false, authentication: c.get('authentication') });
}

export function callerUuid(c: Context<Env>): string | undefined {
  const principal = c.get('principal');
  return principal.kind === 'app-user' ? principal.userUuid : undefined;
}

/**
 * Entity bodies are free-form JSON; Usergrid's SDKs and curl also send them as text/plain, with
 * no type, or as a form. @throws 400 `json_parse`, 415 for other content types.
 */
const ENTITY_BODY: BodyRule = { accept: ['json', 'text', 'none', 'form'], refuse: () => UnsupportedMediaType('the request body must be application/json') };

export function readEntityBody(c: Context<Env>): Promise<unknown> {
  return readBody(c, ENTITY_BODY);
}

/** Whether the caller administers the application: its organization's administrators and its own client. */
export function administersApp(c: Context<Env>): Promise<boolean> {
  return isApplicationAdmin(c.get('deps'), c.get('principal'), c.get('appScope').app);
}

/**
 * A write of user records by someone who administers nothing (an app user on their own record,
 * a guest signing up): the fields only the server or an administrator sets are refused, naming
 * the field (docs/api.md#entities). Administrators write them as before.
 * @throws AppError `illegal_argument` (400).
 */
export function refuseReservedFields(collection: string, items: readonly Properties[], administers: boolean): void {
  if (administers || collection !== USERS.name) return;
  for (const item of items) refuseReservedUserFields(item);
}

/** refuseReservedFields for a request body, asking whether the caller administers only when it writes users. */
export async function refuseReservedBody(c: Context<Env>, collection: string, body: unknown): Promise<void> {
  if (collection === USERS.name) refuseReservedFields(collection, entityBodies(body), await administersApp(c));
}

/**
 * refuseReservedBody for an update of one user: a reserved field is refused only where it would
 * change what a reader of the record sees. A client that saves back the record it read (the
 * Usergrid SDKs do) sends `uuid`, `type`, `activated`, `disabled`… unchanged, and that is no write.
 */
export async function refuseReservedChanges(c: Context<Env>, row: EntityRow, body: unknown): Promise<void> {
  if (row.collection !== USERS.name || (await administersApp(c))) return;
  const seen = entityView(c.get('appScope'), (await describeEntities(c.get('deps').db, [row]))[0]) as Record<string, unknown>;
  for (const item of entityBodies(body)) {
    refuseReservedUserFields(
      Object.fromEntries(Object.entries(item).filter(([key, value]) => RESERVED_USER_FIELDS.has(key) && !isDeepStrictEqual(value, seen[key]))),
    );
  }
}

/** `ql` (or its other name, `queryStatement`), `limit` and `cursor`, as the route validated them (define.ts FindQuery); the logger for warnings. */
export function findOptions(c: Context<Env>): FindOptions {
  const query = findQuery(c);
  return { ql: query.ql ?? query.queryStatement, limit: query.limit, cursor: query.cursor, logger: c.get('deps').logger };
}

function findQuery(c: Context<Env>): z.infer<typeof FindQuery> {
  return (c.req as unknown as { valid(target: 'query'): z.infer<typeof FindQuery> }).valid('query');
}

/**
 * findOptions with `explain` (docs/api.md#explain): how the database found the entities is the
 * application's administrators' to see, as it tells how its data is stored.
 * @throws AppError 400 for a value other than true or false; 403 for anyone else asking.
 */
export async function findOptionsExplained(c: Context<Env>): Promise<FindOptions> {
  const explain = findQuery(c).explain;
  if (explain === undefined || explain === 'false') return findOptions(c);
  if (explain !== 'true') throw IllegalArgument(`explain must be true or false, not '${explain}'`, { fields: { explain: 'not true or false' } });
  if (!(await administersApp(c))) throw Forbidden("explain=true is for the application's administrators");
  return { ...findOptions(c), explain: true };
}

/** The entity at `/{collection}/{id}` if there is one (see addressedEntity). */
export async function findAddressedEntity(c: Context<Env>, collectionSegment: string, id: string): Promise<EntityRow | undefined> {
  const deps = c.get('deps');
  const appScope = c.get('appScope');
  const collection = await findCollectionIn(deps.db, appScope.app.uuid, collectionSegment);
  if (collection === undefined) return undefined;
  if (collection.name === USERS.name) return findUserIn(deps.db, appScope.app.uuid, id, callerUuid(c));
  return findEntityIn(deps.db, appScope.app.uuid, collection.name, id);
}

/** The entity at `/{collection}/{id}`: uuid or name; for users also email and `me`. */
export async function addressedEntity(c: Context<Env>, collectionSegment: string, id: string): Promise<EntityRow> {
  const deps = c.get('deps');
  const appScope = c.get('appScope');
  const collection = await requireCollection(deps.db, appScope.app.uuid, collectionSegment);
  if (collection.name === 'users') return requireUser(deps.db, appScope.app.uuid, id, callerUuid(c));
  return requireEntity(deps.db, appScope.app.uuid, collection.name, id);
}

/**
 * The entity at the other end of `view`: a uuid anywhere in the application, or a name in the
 * collection `collectionSegment` names (the 7-segment form), else the one the relation implies.
 */
export async function relatedEntity(c: Context<Env>, view: RelationView, id: string, collectionSegment?: string): Promise<EntityRow> {
  const deps = c.get('deps');
  const appScope = c.get('appScope');
  const segment = collectionSegment ?? view.collection ?? view.relation;
  if (isUuid(id) && collectionSegment === undefined) {
    const row = await findEntityByUuid(deps.db, appScope.app.uuid, id);
    if (row === undefined || (view.collection !== undefined && row.collection !== view.collection)) {
      throw EntityNotFound(`entity '${id}' not found`, { fields: { entity: id } });
    }
    return row;
  }
  if ((await findCollectionIn(deps.db, appScope.app.uuid, segment)) === undefined) {
    throw EntityNotFound(`'${id}' is not a uuid and '${segment}' is not a collection: use /{relation}/{type}/{name}`, { fields: { entity: id } });
  }
  return addressedEntity(c, segment, id);
}

export async function entitiesResponse(c: Context<Env>, action: string, rows: readonly EntityRow[], extra?: Record<string, unknown>) {
  return describedResponse(c, action, await describeEntities(c.get('deps').db, rows), extra);
}

/** The envelope of entities already described (describeCreated for those a POST just made). */
export function describedResponse(c: Context<Env>, action: string, described: readonly EntityDescription[], extra?: Record<string, unknown>) {
  const scope = c.get('appScope');
  const entities = described.map((entity) => entityView(scope, entity));
  return ok(c, { action, entities, organization: scope.org, application: scope.app, extra, location: dataLocation(c, described[0]?.row.collection) });
}

export async function pageResponse(c: Context<Env>, action: string, page: EntityPage, collection?: string) {
  const scope = c.get('appScope');
  const entities = (await describeEntities(c.get('deps').db, page.rows)).map((entity) => entityView(scope, entity, page.select));
  const location = dataLocation(c, collection ?? page.rows[0]?.collection);
  const extra = page.explain === undefined ? undefined : { explain: page.explain };
  return ok(c, { action, entities, organization: scope.org, application: scope.app, count: true, cursor: page.cursor, location, extra });
}

/**
 * The members the Event, Role and Permission models add to the envelope (docs/api.md#envelope): the
 * application's uuid, the request URL and parameters, and the entity itself.
 */
export function modelMembers(c: Context<Env>, entity: unknown): Record<string, unknown> {
  const url = urlOf(c);
  return {
    applicationId: c.get('appScope').app.uuid,
    url: `${url.origin}${url.pathname}`,
    parameters: Object.fromEntries([...url.searchParams].filter(([name]) => !SECRET_PARAMS.has(name))),
    entity,
  };
}
