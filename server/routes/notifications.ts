/**
 * Push notifications (docs/api.md#push-notifications): notifiers, sending to every target,
 * cancel and delete, receipts and the queue. They join the application's data area, behind its
 * access middleware; their fixed segments (`notifiers`, `…/notifications`) make them more
 * specific than the data API's `/{collection}/…`, so the route table tries them first.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { Env } from '../env.js';
import type { router } from '../openapi.js';

type Router = ReturnType<typeof router>;
import { defineRoutes } from '../route-table.js';
import { define, document, FindQuery, honoPaths, otherMethodsNotAllowed, type Handler, type Method, type RouteOptions } from './data/define.js';
import {
  addressedEntity,
  authorizeWithoutMe,
  callerUuid,
  entitiesResponse,
  findOptions,
  findOptionsExplained,
  pageResponse,
  readEntityBody,
} from './data/request.js';
import { MethodNotAllowed } from '../../src/errors.js';
import { deleteEntity } from '../../src/data/entities.js';
import { findEntities } from '../../src/data/find.js';
import { createNotifiers, NOTIFIERS, requireNotifier, updateNotifier } from '../../src/push/notifiers.js';
import { cancelNotification, createNotification, deleteNotification, NOTIFICATIONS, requireNotification } from '../../src/push/notifications.js';
import { RECEIPTS } from '../../src/db/schema.js';
import { findNotificationsOfReceipt, findQueuedDevices, findReceiptsOf, requireEntityAmong } from '../../src/push/reads.js';
import type { NotificationTarget } from '../../src/push/targets.js';

const PUSH = { tag: 'Push' };
const push = (app: Router, method: Method, path: string, summary: string, handler: Handler, options: RouteOptions = {}) =>
  define(app, method, path, summary, handler, { ...PUSH, ...options });
const LIST = { query: FindQuery };
const BODY = { body: true };
const param = (c: Context<Env>, name: string) => c.req.param(name) ?? '';
const appUuid = (c: Context<Env>) => c.get('appScope').app.uuid;

/**
 * GET `/{orgId}/{appId}/{id}/[*]/{rest}` (Usergrid's /{notificationId}/[*]/queue), the `*` literal.
 * hono's pattern is the data API's own `/{collection}/{entityId}/{rest}`, taken only when
 * `entityId` is `*`: any other request goes on to the data routes. A pattern of its own, with
 * `:star{\*}`, was a regular expression tried on every data request of four segments or more,
 * and parameters named apart from the data API's a second branch of hono's trie searched on each:
 * together about a microsecond of every such request.
 */
function starRoute(app: Router, rest: string, summary: string, handler: (c: Context<Env>, id: string) => Promise<Response>): void {
  document(app, 'get', `/{id}/*/${rest}`, summary, { ...PUSH, ...LIST });
  for (const path of honoPaths(`/{collection}/{entityId}/${rest}`)) {
    app.openapi({ ...createRoute({ method: 'get', path, responses: {} }), hide: true, request: LIST }, (async (c: Context<Env>, next: () => Promise<void>) => {
      if (c.req.param('entityId') !== '*') {
        await next();
        return;
      }
      return handler(c, param(c, 'collection'));
    }) as never);
  }
}

function sendTo(target: (c: Context<Env>) => NotificationTarget): Handler {
  return async (c) => entitiesResponse(c, 'post', [await createNotification(c.get('deps'), appUuid(c), target(c), await readEntityBody(c))]);
}

function notifierRoutes(app: Router): void {
  push(
    app,
    'get',
    '/notifiers',
    'List notifiers (ql, limit, cursor)',
    async (c) =>
      pageResponse(
        c,
        'get',
        await findEntities(c.get('deps').db, appUuid(c), { kind: 'collection', collection: NOTIFIERS.name }, await findOptionsExplained(c)),
      ),
    LIST,
  );
  push(
    app,
    'post',
    '/notifiers',
    'Create a notifier: provider apple or google, environment, credentials',
    async (c) => entitiesResponse(c, 'post', await createNotifiers(c.get('deps'), appUuid(c), await readEntityBody(c))),
    BODY,
  );
  push(app, 'get', '/notifiers/{id}', 'Get a notifier (never its credentials)', async (c) =>
    entitiesResponse(c, 'get', [await requireNotifier(c.get('deps').db, appUuid(c), param(c, 'id'))]),
  );
  push(
    app,
    'put',
    '/notifiers/{id}',
    'Update a notifier; the result is checked as a whole',
    async (c) =>
      entitiesResponse(c, 'put', [
        await updateNotifier(c.get('deps'), await requireNotifier(c.get('deps').db, appUuid(c), param(c, 'id')), await readEntityBody(c)),
      ]),
    BODY,
  );
  push(app, 'delete', '/notifiers/{id}', 'Delete a notifier and its credentials', async (c) => {
    const row = await requireNotifier(c.get('deps').db, appUuid(c), param(c, 'id'));
    await deleteEntity(c.get('deps'), row);
    return entitiesResponse(c, 'delete', [row]);
  });
}

function notificationRoutes(app: Router): void {
  push(
    app,
    'get',
    '/notifications',
    "List notifications (ql, e.g. state='FINISHED'; limit, cursor)",
    async (c) =>
      pageResponse(
        c,
        'get',
        await findEntities(c.get('deps').db, appUuid(c), { kind: 'collection', collection: NOTIFICATIONS.name }, await findOptionsExplained(c)),
      ),
    LIST,
  );
  push(app, 'post', '/notifications', 'Not a target: send through …/devices, …/users/{id} or …/groups/{path}', async () => {
    throw MethodNotAllowed(
      'POST a notification to …/devices/{deviceId}/notifications, …/devices/*/notifications, …/users/{userId}/notifications or …/groups/{path}/notifications',
      { headers: { Allow: 'GET' } },
    );
  });
  push(app, 'get', '/notifications/{id}', 'Get a notification', async (c) =>
    entitiesResponse(c, 'get', [await requireNotification(c.get('deps').db, appUuid(c), param(c, 'id'))]),
  );
  push(
    app,
    'put',
    '/notifications/{id}',
    'Cancel an unsent notification: {"canceled": true}',
    async (c) => entitiesResponse(c, 'put', [await cancelNotification(c.get('deps'), appUuid(c), param(c, 'id'), await readEntityBody(c))]),
    BODY,
  );
  push(app, 'delete', '/notifications/{id}', 'Delete an unsent notification', async (c) =>
    entitiesResponse(c, 'delete', [await deleteNotification(c.get('deps'), appUuid(c), param(c, 'id'))]),
  );

  push(
    app,
    'post',
    '/devices/{deviceId}/notifications',
    'Send to one device, or to every device with deviceId *',
    sendTo((c) => (param(c, 'deviceId') === '*' ? { kind: 'devices' } : { kind: 'device', id: param(c, 'deviceId') })),
    BODY,
  );
  push(
    app,
    'post',
    '/users/{userId}/notifications',
    'Send to every device of a user',
    sendTo((c) => ({ kind: 'user', id: param(c, 'userId'), caller: callerUuid(c) })),
    BODY,
  );
  push(
    app,
    'post',
    '/groups/{groupId}/notifications',
    'Send to the devices of every member of a group',
    sendTo((c) => ({ kind: 'group', id: param(c, 'groupId') })),
    BODY,
  );
}

function receiptRoutes(app: Router): void {
  push(
    app,
    'get',
    '/receipts',
    'List receipts (ql, limit, cursor)',
    async (c) =>
      pageResponse(
        c,
        'get',
        await findEntities(c.get('deps').db, appUuid(c), { kind: 'collection', collection: RECEIPTS.name }, await findOptionsExplained(c)),
      ),
    LIST,
  );
  push(app, 'get', '/receipts/{id}', 'Get a receipt', async (c) => entitiesResponse(c, 'get', [await addressedEntity(c, RECEIPTS.name, param(c, 'id'))]));
  starRoute(app, 'receipts', 'Receipts of a device or of a notification', async (c, id) => {
    const owner = await requireEntityAmong(c.get('deps').db, appUuid(c), ['devices', NOTIFICATIONS.name], id);
    return pageResponse(c, 'get', await findReceiptsOf(c.get('deps').db, owner, await findOptionsExplained(c)));
  });
  starRoute(app, 'queue', 'Devices a notification has still to be sent to', async (c, id) => {
    const notification = await requireNotification(c.get('deps').db, appUuid(c), id);
    return pageResponse(c, 'get', await findQueuedDevices(c.get('deps').db, notification, findOptions(c)));
  });
  starRoute(app, 'notifications', 'The notification of a receipt', async (c, id) => {
    const receipt = await requireEntityAmong(c.get('deps').db, appUuid(c), [RECEIPTS.name], id);
    return pageResponse(c, 'get', await findNotificationsOfReceipt(c.get('deps').db, receipt, await findOptionsExplained(c)));
  });
}

/**
 * POST /{org}/{app}/devices?ql=… sends to the devices the query matches; without ql it is the
 * data API's device creation and passes through. Guests may create devices (`post:/devices`), so
 * a query send must also be permitted as a send to every device.
 */
function queryTargetRoute(app: Router): void {
  const TargetQuery = z.object({ ql: FindQuery.shape.ql, queryStatement: FindQuery.shape.queryStatement });
  const queryOf = (c: Context<Env>) => (c.req as unknown as { valid(target: 'query'): z.infer<typeof TargetQuery> }).valid('query');
  const send = sendTo((c) => ({ kind: 'devices', ql: queryOf(c).ql ?? queryOf(c).queryStatement }));
  const summary = 'With ql or queryStatement: send to the devices the query matches (without: create a device)';
  define(
    app,
    'post',
    '/devices',
    summary,
    async (c, next) => {
      if (queryOf(c).ql === undefined && queryOf(c).queryStatement === undefined) {
        await next?.();
        return;
      }
      await authorizeWithoutMe(c, 'post', '/devices/*/notifications');
      return send(c);
    },
    { ...PUSH, model: 'Notification', query: TargetQuery, body: true },
  );
}

export const pushRoutes = defineRoutes('server/routes/notifications.ts', (app) => {
  queryTargetRoute(app);
  notifierRoutes(app);
  notificationRoutes(app);
  receiptRoutes(app);
  otherMethodsNotAllowed(app, '/notifiers', ['get', 'post']);
  otherMethodsNotAllowed(app, '/notifications', ['get']);
  otherMethodsNotAllowed(app, '/receipts', ['get']);
  otherMethodsNotAllowed(app, '/receipts/{id}', ['get']);
});
