/**
 * Push notifications (seed: Notifications, Receipts, Devices; CONTRACT.md section 6): notifiers,
 * sending to every target, cancel and delete, receipts and the queue. Mounted before the data
 * routes, whose `/{orgId}/{appId}/{collection}/…` would otherwise take these paths; each route
 * runs the data API's access middleware itself, so only these paths pay for it.
 */
import type { Context, MiddlewareHandler } from 'hono';
import type { Env } from '../env.js';
import { createRoute, z } from '@hono/zod-openapi';
import { router, responses } from '../openapi.js';
import type { Handler, Method } from './data/define.js';
import { addressedEntity, authorizeGrant, callerUuid, dataAccess, entitiesResponse, findOptions, pageResponse, readBody } from './data/request.js';
import { MethodNotAllowed } from '../../src/errors.js';
import { deleteEntity } from '../../src/data/entities.js';
import { findEntities } from '../../src/data/find.js';
import { createNotifiers, NOTIFIERS, requireNotifier, updateNotifier } from '../../src/push/notifiers.js';
import { cancelNotification, createNotification, deleteNotification, NOTIFICATIONS, requireNotification } from '../../src/push/notifications.js';
import { RECEIPTS } from '../../src/push/queue.js';
import { findNotificationsOfReceipt, findQueuedDevices, findReceiptsOf, requireEntityAmong } from '../../src/push/reads.js';
import type { NotificationTarget } from '../../src/push/targets.js';

const APP = '/{orgId}/{appId}';
const param = (c: Context<Env>, name: string) => c.req.param(name) ?? '';
const appUuid = (c: Context<Env>) => c.get('appScope').app.uuid;

type Router = ReturnType<typeof router>;

/** Collections whose path segment may also be the singular type, as Usergrid allowed. */
const PLURALS: ReadonlySet<string> = new Set(['notifiers', 'notifications', 'receipts', 'devices', 'users', 'groups']);

/**
 * The hono patterns of a documented path: `{name}` is a parameter, and a collection also answers
 * to its singular (one pattern for each spelling: fixed segments are a lookup in hono's trie,
 * where a parameter with a pattern, `:collection{devices?}`, is a regular expression tried on
 * every request of the data API).
 */
function honoPaths(path: string): string[] {
  let paths = [''];
  for (const segment of path.split('/').slice(1)) {
    const spellings = PLURALS.has(segment) ? [segment, segment.slice(0, -1)] : [segment.replace(/^\{(\w+)\}$/, ':$1')];
    paths = paths.flatMap((prefix) => spellings.map((spelling) => `${prefix}/${spelling}`));
  }
  return paths;
}

/** Documents a route in /openapi.json, its parameters read from the path. */
function document(app: Router, method: Method, path: string, summary: string, model = 'Entity'): void {
  const names = [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
  app.openAPIRegistry.registerPath(
    createRoute({ method, path, tags: ['Push'], summary, request: { params: z.object(Object.fromEntries(names.map((name) => [name, z.string()]))) }, responses: responses(model) }),
  );
}

/** Declares one route with the data API's access middleware in front, and documents it. */
function route(app: Router, method: Method, path: string, summary: string, handler: Handler): void {
  document(app, method, path, summary);
  app.on(method.toUpperCase(), honoPaths(path), dataAccess(), handler);
}

/**
 * The answer of a handler that decides for itself whether a request is its own (and otherwise
 * passes it on), behind the data API's access middleware: the middleware runs `answer` as its
 * `next`, which leaves the response to be handed back here.
 */
async function behindAccess(access: MiddlewareHandler<Env>, c: Context<Env>, answer: () => Promise<Response>): Promise<Response | undefined> {
  let response: Response | undefined;
  await access(c, async () => {
    response = await answer();
  });
  return response;
}

/**
 * GET `/{orgId}/{appId}/{id}/[*]/{rest}` (seed: /{notificationId}/[*]/queue), the `*` literal.
 * hono's pattern is the data API's own `/:collection/:entityId/{rest}`, taken only when
 * `entityId` is `*`: any other request goes on to the data routes. A pattern of its own, with
 * `:star{\*}`, was a regular expression tried on every data request of four segments or more,
 * and parameters named apart from the data API's a second branch of hono's trie searched on each:
 * together about a microsecond of every such request.
 */
function starRoute(app: Router, rest: string, summary: string, handler: (c: Context<Env>, id: string) => Promise<Response>): void {
  document(app, 'get', `${APP}/{id}/*/${rest}`, summary);
  const access = dataAccess();
  for (const path of honoPaths(`${APP}/{collection}/{entityId}/${rest}`)) {
    app.get(path, async (c, next) => {
      if (c.req.param('entityId') !== '*') {
        await next();
        return;
      }
      return behindAccess(access, c, () => handler(c, param(c, 'collection')));
    });
  }
}

/** Every other method on `path` is 405 with `Allow`. */
function otherMethodsNotAllowed(app: Router, path: string, allowed: readonly Method[]): void {
  const allow = allowed.map((method) => method.toUpperCase()).join(', ');
  for (const pattern of honoPaths(path)) {
    app.all(pattern, () => {
      throw MethodNotAllowed(`${path} allows ${allow}`, { headers: { Allow: allow } });
    });
  }
}

function sendTo(target: (c: Context<Env>) => NotificationTarget): Handler {
  return async (c) => entitiesResponse(c, 'post', [await createNotification(c.get('deps'), appUuid(c), target(c), await readBody(c))]);
}

function notifierRoutes(app: Router): void {
  route(app, 'get', `${APP}/notifiers`, 'List notifiers (ql, limit, cursor)', async (c) => pageResponse(c, 'get', await findEntities(c.get('deps').db, appUuid(c), { kind: 'collection', collection: NOTIFIERS.name }, findOptions(c))));
  route(app, 'post', `${APP}/notifiers`, 'Create a notifier: provider apple or google, environment, credentials', async (c) => entitiesResponse(c, 'post', await createNotifiers(c.get('deps'), appUuid(c), await readBody(c))));
  route(app, 'get', `${APP}/notifiers/{id}`, 'Get a notifier (never its credentials)', async (c) => entitiesResponse(c, 'get', [await requireNotifier(c.get('deps').db, appUuid(c), param(c, 'id'))]));
  route(app, 'put', `${APP}/notifiers/{id}`, 'Update a notifier; the result is checked as a whole', async (c) => entitiesResponse(c, 'put', [await updateNotifier(c.get('deps'), await requireNotifier(c.get('deps').db, appUuid(c), param(c, 'id')), await readBody(c))]));
  route(app, 'delete', `${APP}/notifiers/{id}`, 'Delete a notifier and its credentials', async (c) => {
    const row = await requireNotifier(c.get('deps').db, appUuid(c), param(c, 'id'));
    await deleteEntity(c.get('deps'), row);
    return entitiesResponse(c, 'delete', [row]);
  });
}

function notificationRoutes(app: Router): void {
  route(app, 'get', `${APP}/notifications`, 'List notifications (ql, e.g. state=\'FINISHED\'; limit, cursor)', async (c) => pageResponse(c, 'get', await findEntities(c.get('deps').db, appUuid(c), { kind: 'collection', collection: NOTIFICATIONS.name }, findOptions(c))));
  route(app, 'post', `${APP}/notifications`, 'Not a target: send through …/devices, …/users/{id} or …/groups/{path}', async () => {
    throw MethodNotAllowed('POST a notification to …/devices/{deviceId}/notifications, …/devices/*/notifications, …/users/{userId}/notifications or …/groups/{path}/notifications', { headers: { Allow: 'GET' } });
  });
  route(app, 'get', `${APP}/notifications/{id}`, 'Get a notification', async (c) => entitiesResponse(c, 'get', [await requireNotification(c.get('deps').db, appUuid(c), param(c, 'id'))]));
  route(app, 'put', `${APP}/notifications/{id}`, 'Cancel an unsent notification: {"canceled": true}', async (c) => entitiesResponse(c, 'put', [await cancelNotification(c.get('deps'), appUuid(c), param(c, 'id'), await readBody(c))]));
  route(app, 'delete', `${APP}/notifications/{id}`, 'Delete an unsent notification', async (c) => entitiesResponse(c, 'delete', [await deleteNotification(c.get('deps'), appUuid(c), param(c, 'id'))]));

  route(app, 'post', `${APP}/devices/{deviceId}/notifications`, 'Send to one device, or to every device with deviceId *', sendTo((c) => (param(c, 'deviceId') === '*' ? { kind: 'devices' } : { kind: 'device', id: param(c, 'deviceId') })));
  route(app, 'post', `${APP}/users/{userId}/notifications`, 'Send to every device of a user', sendTo((c) => ({ kind: 'user', id: param(c, 'userId'), caller: callerUuid(c) })));
  route(app, 'post', `${APP}/groups/{groupId}/notifications`, 'Send to the devices of every member of a group', sendTo((c) => ({ kind: 'group', id: param(c, 'groupId') })));
}

function receiptRoutes(app: Router): void {
  route(app, 'get', `${APP}/receipts`, 'List receipts (ql, limit, cursor)', async (c) => pageResponse(c, 'get', await findEntities(c.get('deps').db, appUuid(c), { kind: 'collection', collection: RECEIPTS.name }, findOptions(c))));
  route(app, 'get', `${APP}/receipts/{id}`, 'Get a receipt', async (c) => entitiesResponse(c, 'get', [await addressedEntity(c, RECEIPTS.name, param(c, 'id'))]));
  starRoute(app, 'receipts', 'Receipts of a device or of a notification', async (c, id) => {
    const owner = await requireEntityAmong(c.get('deps').db, appUuid(c), ['devices', NOTIFICATIONS.name], id);
    return pageResponse(c, 'get', await findReceiptsOf(c.get('deps').db, owner, findOptions(c)));
  });
  starRoute(app, 'queue', 'Devices a notification has still to be sent to', async (c, id) => {
    const notification = await requireNotification(c.get('deps').db, appUuid(c), id);
    return pageResponse(c, 'get', await findQueuedDevices(c.get('deps').db, notification, findOptions(c)));
  });
  starRoute(app, 'notifications', 'The notification of a receipt', async (c, id) => {
    const receipt = await requireEntityAmong(c.get('deps').db, appUuid(c), [RECEIPTS.name], id);
    return pageResponse(c, 'get', await findNotificationsOfReceipt(c.get('deps').db, receipt, findOptions(c)));
  });
}

/**
 * POST /{org}/{app}/devices?ql=… sends to the devices the query matches; without ql it is the
 * data API's device creation and passes through. Guests may create devices (`post:/devices`), so
 * a query send must also be permitted as a send to every device.
 */
function queryTargetRoute(app: Router): void {
  const send = sendTo((c) => ({ kind: 'devices', ql: c.req.query('ql') ?? c.req.query('queryStatement') }));
  document(app, 'post', `${APP}/devices`, 'With ql or queryStatement: send to the devices the query matches (without: create a device)', 'Notification');
  const access = dataAccess();
  const sendToQuery: MiddlewareHandler<Env> = async (c, next) => {
    if (c.req.method !== 'POST' || (c.req.query('ql') === undefined && c.req.query('queryStatement') === undefined)) return next();
    return behindAccess(access, c, async () => {
      await authorizeGrant(c, 'post', '/devices/*/notifications');
      return send(c);
    });
  };
  for (const pattern of honoPaths(`${APP}/devices`)) app.use(pattern, sendToQuery);
}

export function pushRoutes() {
  const app = router();
  queryTargetRoute(app);
  notifierRoutes(app);
  notificationRoutes(app);
  receiptRoutes(app);
  otherMethodsNotAllowed(app, `${APP}/notifiers`, ['get', 'post']);
  otherMethodsNotAllowed(app, `${APP}/notifications`, ['get']);
  otherMethodsNotAllowed(app, `${APP}/receipts`, ['get']);
  otherMethodsNotAllowed(app, `${APP}/receipts/{id}`, ['get']);
  return app;
}
