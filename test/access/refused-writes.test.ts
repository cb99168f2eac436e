/**
 * Every route that writes, walked as callers who must be refused: a guest, a stranger and
 * another tenant. Organization B (globex, application shop) holds something real behind each
 * route; organization A (acme, application sandbox) is the other tenant. Each refusal is checked
 * for its status and error name, and every table must hold the same rows afterwards.
 *
 * A's admin is also sent through A's own paths, past every access check, naming B's things by
 * their uuids: each must be out of reach there too.
 *
 * The list of routes cannot go stale: the app's own route table and /openapi.json are read, and
 * a route that writes is either walked here or named in OPEN_BY_DESIGN with its reason.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Secret, TOTP } from 'otpauth';
import { createApp } from '../../server/app.js';
import { ensureSuperuser } from '../../src/management/admin-users.js';
import { adminToken, createTestApp, expectRefusal, expectRefusedUnchanged, ORG, snapshot, type TestApp } from '../helpers.js';
import { createTenant, registerClient, token, type Tenant } from '../oauth/fixtures.js';
import { must } from '../push/setup.js';

type CallerName = 'guest' | 'no-org admin' | 'B app user' | 'A app user' | 'A admin' | 'A org client' | 'A app client';
type Refusal = readonly [status: number, error: string];
type Refusals = Partial<Record<CallerName, Refusal>>;

const UNAUTHORIZED: Refusal = [401, 'unauthorized'];
const FORBIDDEN: Refusal = [403, 'forbidden'];

/** The management API: only B's administrators (and sysadmins) may write B. */
const MANAGEMENT: Refusals = {
  guest: UNAUTHORIZED,
  'no-org admin': FORBIDDEN,
  'B app user': FORBIDDEN,
  'A admin': FORBIDDEN,
  'A org client': FORBIDDEN,
  'A app client': FORBIDDEN,
};

/**
 * The data API. B's app user is held to the `default` role (their own user and reads) and A's
 * app user's token is for another application. Admins and clients of other organizations are
 * held to the `guest` role, as a guest is; they are signed in, so refused with 403.
 */
const DATA: Refusals = {
  guest: UNAUTHORIZED,
  'B app user': FORBIDDEN,
  'A app user': UNAUTHORIZED,
  'no-org admin': FORBIDDEN,
  'A admin': FORBIDDEN,
  'A org client': FORBIDDEN,
  'A app client': FORBIDDEN,
};

/**
 * Where the guest role allows (`post:/users`, `post:/devices`, `put:/devices/*`), so does it for
 * every caller held to it: only app users, who are held to their own roles, are refused.
 */
const GUEST_ROLE_ALLOWS: Refusals = { 'B app user': FORBIDDEN, 'A app user': UNAUTHORIZED };

const B = '/globex/shop';
const MB = '/management/orgs/globex';
const PASSWORD = 'sesame-street';
/** A device registered by its own uuid (PUT …/devices/{uuid}), as a phone does. */
const PHONE = '0b6f3c1e-7d2a-4c55-9e1b-5a0d2f6c8e11';
const SEND = { payloads: { dev: 'hello' } };

/**
 * One route, one real target in organization B, and who is refused there. `route` is the route
 * as hono registers it; `{name}` in `path` is an id the fixture made. `control` is what a
 * sysadmin doing the same is answered (200 unless said: 201 for what a POST creates, 405 for a method
 * not allowed), or 'skip' where the path names the caller.
 */
interface Target {
  route: string;
  name: string;
  path: string;
  body?: unknown;
  refused: Refusals;
  control?: number | 'skip';
}

/** An active TOTP factor of the user at `base` (…/users/{user}/factors), enrolled by `bearer` with a code of this moment; its id. */
async function activeFactor(t: TestApp, base: string, bearer: string): Promise<string> {
  const enrolled = await t.request('POST', base, { json: { type: 'totp' }, token: bearer });
  const { id, secret } = enrolled.body.entities[0];
  const verified = await t.request('POST', `${base}/${id}/verify`, { json: { code: TOTP.generate({ secret: Secret.fromBase32(secret) }) }, token: bearer });
  if (verified.status !== 200) throw new Error(`activating a factor failed: ${verified.text}`);
  return id;
}

/** A pending passkey enrollment of the user at `base`; its id. */
async function pendingFactor(t: TestApp, base: string, bearer: string): Promise<string> {
  const enrolled = await t.request('POST', base, { json: { type: 'webauthn' }, token: bearer });
  if (enrolled.status !== 201) throw new Error(`enrolling a factor failed: ${enrolled.text}`);
  return enrolled.body.entities[0].id;
}

const send = (route: string, name: string, path: string): Target => ({ route, name, path, body: SEND, refused: DATA });

/** A body that is a multipart upload of a file (docs/api.md#assets) rather than JSON. */
const UPLOAD = Symbol('a multipart upload');

/** The request options that send a target's body: JSON, or a fresh multipart form. */
function bodyOf(body: unknown): { json?: unknown; body?: FormData } {
  if (body !== UPLOAD) return { json: body };
  const form = new FormData();
  form.set('file', new Blob(['not yours to attach']), 'note.txt');
  return { body: form };
}

/**
 * The push routes answer to each collection's singular as well, as Usergrid did; each spelling is
 * a route of its own in hono's table, so each is walked.
 */
const spellings = (plural: string) => [plural, plural.slice(0, -1)];

/**
 * In an order a sysadmin can replay from top to bottom (the control below): what adds or changes
 * first, what removes after, and the application itself last.
 */
const TARGETS: Target[] = [
  // ---- management API: organization B, its applications, admins, clients and providers
  { route: 'POST /management/orgs/:orgId/apps', name: 'create an application', path: `${MB}/apps`, body: { name: 'intruder' }, refused: MANAGEMENT },
  { route: 'POST /management/orgs/:orgId/credentials', name: 'regenerate the organization credentials', path: `${MB}/credentials`, refused: MANAGEMENT },
  {
    route: 'POST /management/orgs/:orgId/apps/:appId/credentials',
    name: 'regenerate the application credentials',
    path: `${MB}/apps/shop/credentials`,
    refused: MANAGEMENT,
  },
  {
    route: 'PUT /management/orgs/:orgId/apps/:appId',
    name: "weaken the application's password policy",
    path: `${MB}/apps/shop`,
    body: { passwordPolicy: { minLength: 1, blocklist: 'off' } },
    refused: MANAGEMENT,
  },
  {
    route: 'PUT /management/orgs/:orgId',
    name: "lift the organization's second-factor requirement",
    path: MB,
    body: { secondFactorRequired: null },
    refused: MANAGEMENT,
  },
  { route: 'PUT /management/orgs/:orgId/users/:userId', name: 'make the no-org admin an admin of B', path: `${MB}/users/olivia`, refused: MANAGEMENT },
  { route: 'PUT /management/users/:userId', name: "change B's admin", path: '/management/users/bob', body: { email: 'bob@evil.example' }, refused: MANAGEMENT },
  {
    route: 'PUT /management/users/:userId/password',
    name: "change B's admin's password",
    path: '/management/users/bob/password',
    body: { password: ORG.password, newpassword: 'taken-over-now' },
    refused: MANAGEMENT,
  },
  {
    route: 'POST /management/users/:userId/factors',
    name: "enroll a second factor for B's admin",
    path: '/management/users/bob/factors',
    body: { type: 'totp' },
    refused: MANAGEMENT,
    control: 201,
  },
  {
    route: 'POST /management/users/:userId/factors/:factorId/verify',
    name: "activate B's admin's pending factor",
    path: '/management/users/bob/factors/{bobPending}/verify',
    body: { code: '123456' },
    refused: MANAGEMENT,
    // Activating needs a code of the moment: test/oauth/factors.test.ts activates factors.
    control: 'skip',
  },
  // B's admin switched off and on again: the control ends bob's sign-ins, and the walk needs none of them after.
  ...(['deactivate', 'activate'] as const).map((verb): Target => ({
    route: `PUT /management/users/:userId/${verb}`,
    name: `${verb} B's admin`,
    path: `/management/users/bob/${verb}`,
    refused: MANAGEMENT,
  })),
  { route: 'POST /management/keys/rotate', name: 'rotate the signing keys (sysadmin only)', path: '/management/keys/rotate', refused: MANAGEMENT },
  {
    route: 'POST /management/orgs/:orgId/apps/:appId/clients',
    name: 'register an OAuth client',
    path: `${MB}/apps/shop/clients`,
    body: { client_name: 'rogue', redirect_uris: ['https://rogue.example/cb'] },
    refused: MANAGEMENT,
  },
  {
    route: 'PUT /management/orgs/:orgId/apps/:appId/clients/:clientId',
    name: 'redirect an OAuth client elsewhere',
    path: `${MB}/apps/shop/clients/{client}`,
    body: { client_name: 'web', redirect_uris: ['https://rogue.example/cb'] },
    refused: MANAGEMENT,
  },
  {
    route: 'POST /management/orgs/:orgId/apps/:appId/clients/initial-access-tokens',
    name: 'mint an initial access token (a client registration)',
    path: `${MB}/apps/shop/clients/initial-access-tokens`,
    body: { count: 5 },
    refused: MANAGEMENT,
  },
  {
    route: 'POST /management/orgs/:orgId/apps/:appId/identity-providers',
    name: 'add an identity provider',
    path: `${MB}/apps/shop/identity-providers`,
    body: { name: 'rogue', issuer: 'https://rogue.example', client_id: 'rogue' },
    refused: MANAGEMENT,
  },
  {
    route: 'PUT /management/orgs/:orgId/apps/:appId/identity-providers/:providerId',
    name: 'point an identity provider elsewhere',
    path: `${MB}/apps/shop/identity-providers/corp`,
    body: { name: 'corp', issuer: 'https://rogue.example', client_id: 'rogue' },
    refused: MANAGEMENT,
  },

  // ---- data API: what adds or changes
  { route: 'POST /:orgId/:appId/:collection', name: 'create an entity', path: `${B}/dogs`, body: { name: 'fido' }, refused: DATA },
  { route: 'POST /:orgId/:appId/:collection', name: 'create a group', path: `${B}/groups`, body: { path: 'intruders' }, refused: DATA },
  { route: 'POST /:orgId/:appId/:collection', name: 'create a role', path: `${B}/roles`, body: { name: 'superuser', title: 'Superuser' }, refused: DATA },
  {
    route: 'POST /:orgId/:appId/:collection',
    name: 'sign a user up (guest role: post:/users)',
    path: `${B}/users`,
    body: { username: 'newcomer', password: PASSWORD },
    refused: GUEST_ROLE_ALLOWS,
  },
  {
    route: 'POST /:orgId/:appId/:collection',
    name: 'register a device (guest role: post:/devices)',
    path: `${B}/devices`,
    body: { name: 'laptop' },
    refused: GUEST_ROLE_ALLOWS,
  },
  {
    route: 'PUT /:orgId/:appId/:collection',
    name: 'update the entities a query matches',
    path: `${B}/dogs?ql=${encodeURIComponent("select * where name = 'spot'")}`,
    body: { color: 'brown' },
    refused: DATA,
  },
  { route: 'PUT /:orgId/:appId/:collection/:entityId', name: 'update an entity', path: `${B}/dogs/rex`, body: { color: 'black' }, refused: DATA },
  {
    route: 'PUT /:orgId/:appId/:collection/_settings',
    name: "leave a collection's property out of the index",
    path: `${B}/dogs/_settings`,
    body: { unindexed: ['color'] },
    refused: DATA,
  },
  { route: 'POST /:orgId/:appId/:collection/:entityId', name: 'attach a file to an entity', path: `${B}/dogs/rex`, body: UPLOAD, refused: DATA },
  {
    route: 'PUT /:orgId/:appId/:collection/:entityId',
    name: 'update another user',
    path: `${B}/users/victim`,
    body: { email: 'victim@evil.example' },
    refused: DATA,
  },
  { route: 'PUT /:orgId/:appId/:collection/:entityId', name: 'update a role', path: `${B}/roles/manager`, body: { title: 'Owned' }, refused: DATA },
  {
    route: 'PUT /:orgId/:appId/:collection/:entityId',
    name: 'update a device by uuid (guest role: put:/devices/*)',
    path: `${B}/devices/${PHONE}`,
    body: { 'dev.notifier.id': 'hijacked' },
    refused: GUEST_ROLE_ALLOWS,
  },
  {
    route: 'POST /:orgId/:appId/:collection/:entityId/:relation',
    name: 'grant another user a permission',
    path: `${B}/users/victim/permissions`,
    body: { permission: 'get,put,post,delete:/**' },
    refused: DATA,
  },
  {
    route: 'POST /:orgId/:appId/:collection/:entityId/:relation',
    name: 'grant oneself a permission through me',
    path: `${B}/users/me/permissions`,
    body: { permission: 'get,put,post,delete:/**' },
    refused: DATA,
    control: 'skip',
  },
  {
    route: 'POST /:orgId/:appId/:collection/:entityId/:relation',
    name: 'grant a group a permission',
    path: `${B}/groups/staff/permissions`,
    body: { permission: 'delete:/**' },
    refused: DATA,
  },
  {
    route: 'POST /:orgId/:appId/:collection/:entityId/:relation',
    name: 'grant the guest role a permission',
    path: `${B}/roles/guest/permissions`,
    body: { permission: 'get,put,post,delete:/**' },
    refused: DATA,
  },
  {
    route: 'POST /:orgId/:appId/:collection/:entityId/:relation',
    name: "post to another user's activities",
    path: `${B}/users/victim/activities`,
    body: { verb: 'post', content: 'not mine' },
    refused: DATA,
  },
  {
    route: 'POST /:orgId/:appId/:collection/:entityId/:relation',
    name: "post to a group's activities",
    path: `${B}/groups/staff/activities`,
    body: { verb: 'post', content: 'not mine' },
    refused: DATA,
  },
  {
    route: 'POST /:orgId/:appId/:collection/:entityId/:relation',
    name: "set another user's password",
    path: `${B}/users/victim/password`,
    body: { newpassword: 'taken-over-now' },
    refused: DATA,
  },
  {
    route: 'POST /:orgId/:appId/:collection/:entityId/:relation',
    name: 'create a connected entity',
    path: `${B}/dogs/rex/likes`,
    body: { name: 'ball' },
    refused: DATA,
  },
  {
    route: 'PUT /:orgId/:appId/:collection/:entityId/:relation',
    name: "set another user's password by PUT",
    path: `${B}/users/victim/password`,
    body: { newpassword: 'taken-over-too' },
    refused: DATA,
  },
  {
    route: 'POST /:orgId/:appId/:collection/:entityId/:relation/:entityId2',
    name: 'connect two entities',
    path: `${B}/dogs/spot/likes/{felix}`,
    refused: DATA,
  },
  {
    route: 'POST /:orgId/:appId/:collection/:entityId/:relation/:entityId2',
    name: 'add a user to a group',
    path: `${B}/groups/staff/users/stranger`,
    refused: DATA,
  },
  {
    route: 'POST /:orgId/:appId/:collection/:entityId/:relation/:entityId2',
    name: 'assign a user a role',
    path: `${B}/roles/manager/users/stranger`,
    refused: DATA,
  },
  {
    route: 'POST /:orgId/:appId/:collection/:entityId/:relation/:entityId2',
    name: 'join a group through me',
    path: `${B}/users/me/groups/staff`,
    refused: DATA,
    control: 'skip',
  },
  {
    route: 'POST /:orgId/:appId/:collection/:entityId/:relation/:entityId2',
    name: 'take a role through me',
    path: `${B}/users/me/roles/manager`,
    refused: DATA,
    control: 'skip',
  },
  {
    route: 'POST /:orgId/:appId/:collection/:entityId/:relation/:type/:entityId2',
    name: 'connect two entities, the second by type and name',
    path: `${B}/dogs/spot/likes/cats/tom`,
    refused: DATA,
  },
  {
    route: 'POST /:orgId/:appId/:collection/:entityId/connections/:relation/:entityId2',
    name: 'connect two entities (long form)',
    path: `${B}/dogs/spot/connections/chases/{felix}`,
    refused: DATA,
  },
  {
    route: 'POST /:orgId/:appId/:collection/:entityId/connections/:relation/:type/:entityId2',
    name: 'connect two entities by type and name (long form)',
    path: `${B}/dogs/spot/connections/chases/cats/tom`,
    refused: DATA,
  },

  // ---- push: notifiers, sends, cancels
  ...spellings('notifiers').flatMap((notifiers, i): Target[] => [
    {
      route: `POST /:orgId/:appId/${notifiers}`,
      name: 'create a notifier',
      path: `${B}/${notifiers}`,
      body: { name: `rogue${i}`, provider: 'noop', environment: 'development' },
      refused: DATA,
    },
    {
      route: `PUT /:orgId/:appId/${notifiers}/:id`,
      name: 'change a notifier',
      path: `${B}/${notifiers}/spare${i}`,
      body: { environment: 'production' },
      refused: DATA,
    },
  ]),
  ...spellings('notifications').flatMap((notifications, i): Target[] => [
    // No one may POST here (405); a caller who may not even write the app is refused before that.
    {
      route: `POST /:orgId/:appId/${notifications}`,
      name: 'post to the notifications collection',
      path: `${B}/${notifications}`,
      body: SEND,
      refused: DATA,
      control: 405,
    },
    {
      route: `PUT /:orgId/:appId/${notifications}/:id`,
      name: 'cancel a notification',
      path: `${B}/${notifications}/{cancel${i}}`,
      body: { canceled: true },
      refused: DATA,
    },
  ]),
  ...spellings('devices').flatMap((devices) =>
    spellings('notifications').flatMap((notifications): Target[] => [
      send(`POST /:orgId/:appId/${devices}/:deviceId/${notifications}`, 'send to a device', `${B}/${devices}/${PHONE}/${notifications}`),
      send(`POST /:orgId/:appId/${devices}/:deviceId/${notifications}`, 'send to every device', `${B}/${devices}/*/${notifications}`),
    ]),
  ),
  ...spellings('users').flatMap((users) =>
    spellings('notifications').map((notifications) =>
      send(`POST /:orgId/:appId/${users}/:userId/${notifications}`, "send to a user's devices", `${B}/${users}/victim/${notifications}`),
    ),
  ),
  // Each revokes a live token of its own: the victim's, then every token of a user who signed in once.
  ...spellings('users').flatMap((users, i) =>
    (['POST', 'PUT'] as const).flatMap((method, j): Target[] => [
      {
        route: `${method} /:orgId/:appId/${users}/:entityId/revoketoken`,
        name: "revoke another user's token",
        path: `${B}/${users}/victim/revoketoken?token={victimToken${2 * i + j}}`,
        refused: DATA,
      },
      {
        route: `${method} /:orgId/:appId/${users}/:entityId/revoketokens`,
        name: "revoke another user's tokens",
        path: `${B}/${users}/leaver${2 * i + j}/revoketokens`,
        refused: DATA,
      },
    ]),
  ),
  ...spellings('users').flatMap((users): Target[] => [
    {
      route: `POST /:orgId/:appId/${users}/:entityId/factors`,
      name: 'enroll a second factor for another user',
      path: `${B}/${users}/victim/factors`,
      body: { type: 'totp' },
      refused: DATA,
      control: 201,
    },
    {
      route: `POST /:orgId/:appId/${users}/:entityId/factors/:factorId/verify`,
      name: "activate another user's pending factor",
      path: `${B}/${users}/victim/factors/{victimPending}/verify`,
      body: { code: '123456' },
      refused: DATA,
      control: 'skip',
    },
  ]),
  // Only an administrator of the application writes `disabled`: B's app user is refused whatever the role allows.
  ...spellings('users').flatMap((users) =>
    (['deactivate', 'activate'] as const).map((verb): Target => ({
      route: `PUT /:orgId/:appId/${users}/:entityId/${verb}`,
      name: `${verb} another user`,
      path: `${B}/${users}/victim/${verb}`,
      refused: DATA,
    })),
  ),
  ...spellings('groups').flatMap((groups) =>
    spellings('notifications').map((notifications) =>
      send(`POST /:orgId/:appId/${groups}/:groupId/${notifications}`, "send to a group's devices", `${B}/${groups}/staff/${notifications}`),
    ),
  ),
  // A guest may register a device (post:/devices), but a query send must be permitted as a send to every device.
  ...spellings('devices').map((devices) =>
    send(`POST /:orgId/:appId/${devices}`, 'send to the devices a query matches', `${B}/${devices}?ql=${encodeURIComponent("select * where name = 'phone'")}`),
  ),

  // ---- what removes
  {
    route: 'DELETE /management/users/:userId/factors/:factorId',
    name: "remove B's admin's second factor",
    path: '/management/users/bob/factors/{bobFactor}',
    refused: MANAGEMENT,
  },
  ...spellings('users').map((users, i): Target => ({
    route: `DELETE /:orgId/:appId/${users}/:entityId/factors/:factorId`,
    name: "remove another user's second factor",
    path: `${B}/${users}/victim/factors/{victimFactor${i}}`,
    refused: DATA,
  })),
  // An unknown session or client would be 404 to someone allowed, so a refusal shows the check comes
  // first; ending real sessions and consents is test/management/sign-ins.test.ts's.
  {
    route: 'DELETE /management/users/:userId/sessions/:sessionId',
    name: "end B's admin's browser session",
    path: '/management/users/bob/sessions/some-session',
    refused: MANAGEMENT,
    control: 'skip',
  },
  {
    route: 'DELETE /management/users/:userId/consents/:clientId',
    name: "revoke B's admin's consent",
    path: '/management/users/bob/consents/some-client',
    refused: MANAGEMENT,
    control: 'skip',
  },
  ...spellings('users').flatMap((users): Target[] => [
    {
      route: `DELETE /:orgId/:appId/${users}/:entityId/sessions/:sessionId`,
      name: "end another user's browser session",
      path: `${B}/${users}/victim/sessions/some-session`,
      refused: DATA,
      control: 'skip',
    },
    {
      route: `DELETE /:orgId/:appId/${users}/:entityId/consents/:clientId`,
      name: "revoke another user's consent",
      path: `${B}/${users}/victim/consents/some-client`,
      refused: DATA,
      control: 'skip',
    },
  ]),
  {
    route: 'DELETE /:orgId/:appId/:collection/:entityId/:relation/:entityId2',
    name: 'disconnect two entities',
    path: `${B}/dogs/rex/likes/{felix}`,
    refused: DATA,
  },
  {
    route: 'DELETE /:orgId/:appId/:collection/:entityId/:relation/:entityId2',
    name: 'remove a user from a group',
    path: `${B}/groups/staff/users/victim`,
    refused: DATA,
  },
  {
    route: 'DELETE /:orgId/:appId/:collection/:entityId/:relation/:entityId2',
    name: 'take a role from a user',
    path: `${B}/roles/manager/users/victim`,
    refused: DATA,
  },
  {
    route: 'DELETE /:orgId/:appId/:collection/:entityId/:relation/:type/:entityId2',
    name: 'disconnect two entities, the second by type and name',
    path: `${B}/dogs/rex/likes/cats/tom`,
    refused: DATA,
  },
  {
    route: 'DELETE /:orgId/:appId/:collection/:entityId/connections/:relation/:entityId2',
    name: 'disconnect two entities (long form)',
    path: `${B}/dogs/spot/connections/chases/{felix}`,
    refused: DATA,
  },
  {
    route: 'DELETE /:orgId/:appId/:collection/:entityId/connections/:relation/:type/:entityId2',
    name: 'disconnect two entities by type and name (long form)',
    path: `${B}/dogs/spot/connections/chases/cats/tom`,
    refused: DATA,
  },
  {
    route: 'DELETE /:orgId/:appId/:collection/:entityId/:relation',
    name: "revoke another user's permission",
    path: `${B}/users/victim/permissions?permission=${encodeURIComponent('get:/cats/**')}`,
    refused: DATA,
  },
  {
    route: 'DELETE /:orgId/:appId/:collection/:entityId/:relation',
    name: "revoke a group's permission",
    path: `${B}/groups/staff/permissions?permission=${encodeURIComponent('put:/dogs/*')}`,
    refused: DATA,
  },
  {
    route: 'DELETE /:orgId/:appId/:collection/:entityId/:relation',
    name: "revoke the default role's reads",
    path: `${B}/roles/default/permissions?permission=${encodeURIComponent('get:/**')}`,
    refused: DATA,
  },
  ...spellings('notifications').map((notifications, i): Target => ({
    route: `DELETE /:orgId/:appId/${notifications}/:id`,
    name: 'delete a notification',
    path: `${B}/${notifications}/{delete${i}}`,
    refused: DATA,
  })),
  ...spellings('notifiers').map((notifiers, i): Target => ({
    route: `DELETE /:orgId/:appId/${notifiers}/:id`,
    name: 'delete a notifier',
    path: `${B}/${notifiers}/spare${i}`,
    refused: DATA,
  })),
  { route: 'DELETE /:orgId/:appId/:collection/:entityId', name: 'delete an entity', path: `${B}/dogs/rex`, refused: DATA },
  { route: 'DELETE /:orgId/:appId/:collection/:entityId', name: 'delete a device', path: `${B}/devices/tablet`, refused: DATA },
  { route: 'DELETE /:orgId/:appId/:collection/:entityId', name: 'delete a group', path: `${B}/groups/staff`, refused: DATA },
  { route: 'DELETE /:orgId/:appId/:collection/:entityId', name: 'delete a role', path: `${B}/roles/manager`, refused: DATA },
  { route: 'DELETE /:orgId/:appId/:collection/:entityId', name: 'delete another user', path: `${B}/users/victim`, refused: DATA },
  {
    route: 'DELETE /:orgId/:appId/:collection',
    name: 'delete the entities a query matches',
    path: `${B}/dogs?ql=${encodeURIComponent("select * where name = 'spot'")}`,
    refused: DATA,
  },
  {
    route: 'DELETE /management/orgs/:orgId/apps/:appId/identity-providers/:providerId',
    name: 'delete an identity provider',
    path: `${MB}/apps/shop/identity-providers/spare`,
    refused: MANAGEMENT,
  },
  {
    route: 'DELETE /management/orgs/:orgId/apps/:appId/clients/initial-access-tokens/:tokenId',
    name: 'revoke an initial access token',
    path: `${MB}/apps/shop/clients/initial-access-tokens/{initialAccessToken}`,
    refused: MANAGEMENT,
  },
  {
    route: 'DELETE /management/orgs/:orgId/apps/:appId/clients/:clientId',
    name: 'delete an OAuth client',
    path: `${MB}/apps/shop/clients/{spareClient}`,
    refused: MANAGEMENT,
  },
  { route: 'DELETE /management/orgs/:orgId/users/:userId', name: "remove B's second admin", path: `${MB}/users/carol`, refused: MANAGEMENT },
  // Last: it removes everything above.
  { route: 'DELETE /management/orgs/:orgId/apps/:appId', name: 'delete the application', path: `${MB}/apps/shop`, refused: MANAGEMENT },
];

/** Routes that write and are open by design, each with why. */
const OPEN_BY_DESIGN: ReadonlyMap<string, string> = new Map([
  ['POST /management/orgs', 'open sign-up (--signup open, the default): a new organization and its first admin'],
  ['POST /management/users', 'open sign-up: an admin user of no organization, who may change nothing but themself'],
  ['POST /management/token', 'a token endpoint: the password or client secret in the body is the credential'],
  ['POST /:orgId/:appId/token', 'a token endpoint: the password or client secret in the body is the credential'],
  ['POST /connect/token', 'RFC 6749 3.2: the token endpoint authenticates its client itself'],
  ['POST /connect/deviceauthorization', 'RFC 8628 3.1: authenticates its client itself; starts a device authorization nobody has allowed yet'],
  ['POST /device', 'the user-code form: the code is the credential, behind a CSRF token and a throttle; it allows nothing by itself'],
  ['POST /connect/par', 'RFC 9126 2: authenticates its client itself, as the token endpoint does; it stores a request only that client can use'],
  ['POST /connect/introspect', 'RFC 7662 2.1: authenticates its client itself, and writes nothing'],
  ['POST /connect/revocation', 'RFC 7009 2.1: authenticates its client itself; it may revoke only its own tokens'],
  ['POST /connect/register', 'RFC 7591 3: takes its own initial access token (none only where the application allows open registration)'],
  ['PUT /connect/register/:clientId', "RFC 7592 2.2: that one client's registration access token is the credential"],
  ['DELETE /connect/register/:clientId', "RFC 7592 2.3: that one client's registration access token is the credential"],
  ['POST /connect/userinfo', 'OpenID Connect Core 5.3: the bearer token is the credential, and it writes nothing'],
  ['POST /connect/authorize', "the authorization request sent as a form (OpenID Connect Core 3.1.2.1): it acts for the browser's own session only"],
  ['POST /connect/authorize/login', 'the sign-in form: the password is the credential, behind a CSRF token'],
  ['POST /connect/authorize/consent', "the consent form: the browser's own session decides, behind a CSRF token"],
  ['POST /connect/authorize/otp', 'the second-factor form: a one-time code, behind a CSRF token and the sign-in sealed for this browser'],
  [
    'POST /connect/authorize/passkey',
    "the passkey form: the passkey's assertion is the credential, behind a CSRF token and a challenge sealed for this browser",
  ],
  ['POST /connect/authorize/enroll', "the enrollment step's form: a code of the factor it set up, behind a CSRF token and the sign-in sealed for this browser"],
  [
    'POST /connect/authorize/enroll/passkey',
    "the enrollment step's passkey: starts a passkey for the sign-in sealed for this browser only, behind a CSRF token",
  ],
  [
    'POST /connect/authorize/enroll/passkey/verify',
    "the enrollment step's passkey: the browser's answer for the sign-in sealed for this browser only, behind a CSRF token",
  ],
  ['POST /connect/authorize/enrolled', "on to the client after the enrollment step: the browser's own session decides, behind a CSRF token"],
  ['POST /connect/endsession', "sign-out: ends the browser's own session only, behind a CSRF token"],
  ['POST /management/users/resetpw', 'asks for a reset mail: behind a captcha, and mails only an address already on file'],
  ['POST /:orgId/:appId/users/resetpw', 'asks for a reset mail: behind a captcha, and mails only an address already on file'],
  ['POST /management/users/:userId/resetpw', "sets a new password: the mailed link's token is the credential"],
  ['POST /:orgId/:appId/users/:userId/resetpw', "sets a new password: the mailed link's token is the credential"],
  ...['/management', '/:orgId/:appId'].flatMap((base) =>
    ['password', 'totp', 'totp/verify', 'factors/remove', 'recovery-codes', 'sessions/end', 'consents/revoke', 'passkeys', 'passkeys/verify'].map(
      (path): [string, string] => [
        `POST ${base}/account/${path}`,
        "the account page's forms (test/account/): the browser's own sign-in session, behind a CSRF token, changes only its own user",
      ],
    ),
  ),
]);

/**
 * hono lists middleware (`use`) and handlers of every method (`all`) alike, as ALL. Each must be
 * on a path that has routes of its own (their 405 answer, or middleware in front of them), or be
 * one of these: the request-wide middleware, and the 404 of each area whose prefix is fixed
 * (server/route-table.ts), so nothing below it reaches the data API.
 */
const MIDDLEWARE: ReadonlyMap<string, string> = new Map([
  ['/*', "the security headers, the request metrics, each request's context and the body size limit"],
  ...[
    '/status',
    '/healthz',
    '/readyz',
    '/metrics',
    '/docs',
    '/.well-known',
    '/connect',
    '/device',
    '/management',
    '/management/orgs/:orgId',
    '/management/orgs/:orgId/apps/:appId',
  ].map((prefix) => [`${prefix}/*`, `the ${prefix} area owns what is below it: 404 where no route of it matched`] as const),
]);

const MUTATING: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The app's routes as hono registered them, `METHOD /path/:param`, with what /openapi.json documents. */
async function routeTable(t: TestApp): Promise<{ routes: Set<string>; all: Set<string> }> {
  const registered = createApp(t.deps).routes;
  const documented = await t.request('GET', '/openapi.json');
  expect(documented.status).toBe(200);
  const routes = new Set([
    ...registered.filter((route) => route.method !== 'ALL').map((route) => `${route.method} ${route.path}`),
    ...Object.entries(documented.body.paths as Record<string, Record<string, unknown>>).flatMap(([path, operations]) =>
      Object.keys(operations).map((method) => `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`),
    ),
  ]);
  return { routes, all: new Set(registered.filter((route) => route.method === 'ALL').map((route) => route.path)) };
}

function pathOf(route: string): string {
  return route.slice(route.indexOf(' ') + 1);
}

/** Whether a concrete path is one `route` answers (`:name` is one segment). */
function isPathOf(route: string, path: string): boolean {
  const pattern = pathOf(route)
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${pattern}$`).test(path.split('?')[0]);
}

interface Fixture {
  tokens: Record<Exclude<CallerName, 'guest'>, string>;
  ids: Record<string, string>;
  sysadmin: string;
}

/** A target's path with the fixture's ids in place of `{name}`. */
function resolve(path: string, ids: Record<string, string>): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => {
    if (!(name in ids)) throw new Error(`no id '${name}' in the fixture`);
    return ids[name];
  });
}

async function appUserToken(t: TestApp, app: string, username: string): Promise<string> {
  const res = await t.request('POST', `${app}/token`, { json: { grant_type: 'password', username, password: PASSWORD } });
  if (res.status !== 200) throw new Error(`${username} sign-in failed: ${res.text}`);
  return res.body.access_token;
}

async function clientToken(t: TestApp, credentials: Tenant['org']): Promise<string> {
  const res = await token(t, { grant_type: 'client_credentials', client_id: credentials.client_id, client_secret: credentials.client_secret });
  if (res.status !== 200) throw new Error(`client_credentials failed: ${res.text}`);
  return res.body.access_token;
}

/** Organizations A and B, B with something real behind every target, and every caller's token. */
async function createFixture(t: TestApp): Promise<Fixture> {
  const a = await createTenant(t);
  const b = await createTenant(t, { ...ORG, organization: 'globex', username: 'bob', email: 'bob@example.com' }, 'shop');
  const asB = { t, admin: b.adminToken };
  const asA = { t, admin: a.adminToken };

  for (const username of ['olivia', 'carol']) {
    const created = await t.request('POST', '/management/users', { json: { username, email: `${username}@example.com`, password: ORG.password } });
    if (created.status !== 200) throw new Error(`creating admin ${username} failed: ${created.text}`);
  }
  await must(asB, 'PUT', `${MB}/users/carol`);
  const client = await registerClient(t, b, { client_name: 'web', redirect_uris: ['https://shop.example/cb'] }, `${MB}/apps/shop/clients`);
  const spareClient = await registerClient(t, b, { client_name: 'spare', redirect_uris: ['https://shop.example/cb'] }, `${MB}/apps/shop/clients`);
  const initialAccessToken = await must(asB, 'POST', `${MB}/apps/shop/clients/initial-access-tokens`, {});
  const corp = await must(asB, 'POST', `${MB}/apps/shop/identity-providers`, { name: 'corp', issuer: 'https://corp.example', client_id: 'shop' });
  await must(asB, 'POST', `${MB}/apps/shop/identity-providers`, { name: 'spare', issuer: 'https://spare.example', client_id: 'shop' });

  const users = await must(asB, 'POST', `${B}/users`, [
    { username: 'stranger', password: PASSWORD },
    { username: 'victim', email: 'victim@example.com', password: PASSWORD },
  ]);
  await must(asA, 'POST', '/acme/sandbox/users', { username: 'amy', password: PASSWORD });
  await must(asB, 'POST', `${B}/users/victim/permissions`, { permission: 'get:/cats/**' });
  const staff = await must(asB, 'POST', `${B}/groups`, { path: 'staff' });
  await must(asB, 'POST', `${B}/groups/staff/permissions`, { permission: 'put:/dogs/*' });
  await must(asB, 'POST', `${B}/groups/staff/users/victim`);
  await must(asB, 'POST', `${B}/roles`, { name: 'manager', title: 'Manager' });
  await must(asB, 'POST', `${B}/roles/manager/users/victim`);
  const dogs = await must(asB, 'POST', `${B}/dogs`, [{ name: 'rex' }, { name: 'spot' }]);
  const cats = await must(asB, 'POST', `${B}/cats`, [{ name: 'felix' }, { name: 'tom' }]);
  const felix = cats.entities[0].uuid;
  await must(asB, 'POST', `${B}/dogs/rex/likes/${felix}`);
  await must(asB, 'POST', `${B}/dogs/rex/likes/cats/tom`);

  const notifiers = await must(
    asB,
    'POST',
    `${B}/notifiers`,
    ['dev', 'spare0', 'spare1'].map((name) => ({ name, provider: 'noop', environment: 'development' })),
  );
  await must(asA, 'POST', '/acme/sandbox/notifiers', { name: 'dev', provider: 'noop', environment: 'development' });
  await must(asB, 'PUT', `${B}/devices/${PHONE}`, { name: 'phone', 'dev.notifier.id': 'phone-token' });
  await must(asB, 'POST', `${B}/devices`, { name: 'tablet', 'dev.notifier.id': 'tablet-token' });
  await must(asB, 'POST', `${B}/users/victim/devices/${PHONE}`);
  const later = { ...SEND, deliver: Date.now() + 86_400_000 };
  const ids: Record<string, string> = {
    felix,
    client: client.client_id,
    spareClient: spareClient.client_id,
    initialAccessToken: initialAccessToken.entities[0].id,
    shop: b.appUuid,
    corp: corp.entities[0].uuid,
    victim: users.entities[1].uuid,
    staff: staff.entities[0].uuid,
    rex: dogs.entities[0].uuid,
    spare0: notifiers.entities[1].uuid,
  };
  for (const i of [0, 1, 2, 3]) {
    ids[`victimToken${i}`] = await appUserToken(t, B, 'victim');
    await must(asB, 'POST', `${B}/users`, { username: `leaver${i}`, password: PASSWORD });
    await appUserToken(t, B, `leaver${i}`);
  }
  for (const i of [0, 1]) ids[`victimFactor${i}`] = await activeFactor(t, `${B}/users/victim/factors`, b.adminToken);
  ids.victimPending = await pendingFactor(t, `${B}/users/victim/factors`, b.adminToken);
  ids.bobFactor = await activeFactor(t, '/management/users/bob/factors', b.adminToken);
  ids.bobPending = await pendingFactor(t, '/management/users/bob/factors', b.adminToken);
  for (const name of ['cancel0', 'cancel1', 'delete0', 'delete1'])
    ids[name] = (await must(asB, 'POST', `${B}/devices/${PHONE}/notifications`, later)).entities[0].uuid;

  await ensureSuperuser(t.deps, 'root', ORG.password);
  return {
    ids,
    sysadmin: await adminToken(t, 'root', ORG.password),
    tokens: {
      'no-org admin': await adminToken(t, 'olivia', ORG.password),
      'B app user': await appUserToken(t, B, 'stranger'),
      'A app user': await appUserToken(t, '/acme/sandbox', 'amy'),
      'A admin': a.adminToken,
      'A org client': await clientToken(t, a.org),
      'A app client': await clientToken(t, a.app),
    },
  };
}

interface Case {
  name: string;
  method: string;
  path: string;
  body?: unknown;
  as: CallerName;
  status: number;
  error: string;
}

const CASES: Case[] = TARGETS.flatMap((target) =>
  Object.entries(target.refused).map(([as, [status, error]]) => ({
    name: target.name,
    method: target.route.slice(0, target.route.indexOf(' ')),
    path: target.path,
    body: target.body,
    as: as as CallerName,
    status,
    error,
  })),
);

/**
 * A's admin may write A, so A's own paths let them past every access check: B's things, named
 * there by their uuids, must still be out of reach. (A guest may PUT a device by uuid anywhere.)
 */
const A = '/acme/sandbox';
const THROUGH_A: Case[] = [
  { name: "update B's entity", method: 'PUT', path: `${A}/dogs/{rex}`, body: { color: 'black' }, as: 'A admin', status: 404, error: 'entity_not_found' },
  { name: "delete B's entity", method: 'DELETE', path: `${A}/dogs/{rex}`, as: 'A admin', status: 404, error: 'entity_not_found' },
  {
    name: "create an entity connected to B's",
    method: 'POST',
    path: `${A}/dogs/{rex}/likes`,
    body: { name: 'ball' },
    as: 'A admin',
    status: 404,
    error: 'entity_not_found',
  },
  { name: "connect A's user to B's entity", method: 'POST', path: `${A}/users/amy/likes/{felix}`, as: 'A admin', status: 404, error: 'entity_not_found' },
  { name: "join B's group", method: 'POST', path: `${A}/groups/{staff}/users/amy`, as: 'A admin', status: 404, error: 'entity_not_found' },
  {
    name: "grant B's user a permission",
    method: 'POST',
    path: `${A}/users/{victim}/permissions`,
    body: { permission: 'get,put,post,delete:/**' },
    as: 'A admin',
    status: 404,
    error: 'entity_not_found',
  },
  {
    name: "change B's notifier",
    method: 'PUT',
    path: `${A}/notifiers/{spare0}`,
    body: { environment: 'production' },
    as: 'A admin',
    status: 404,
    error: 'entity_not_found',
  },
  {
    name: "cancel B's notification",
    method: 'PUT',
    path: `${A}/notifications/{cancel0}`,
    body: { canceled: true },
    as: 'A admin',
    status: 404,
    error: 'entity_not_found',
  },
  { name: "delete B's notification", method: 'DELETE', path: `${A}/notifications/{delete0}`, as: 'A admin', status: 404, error: 'entity_not_found' },
  {
    name: "send to B's device",
    method: 'POST',
    path: `${A}/devices/${PHONE}/notifications`,
    body: SEND,
    as: 'A admin',
    status: 404,
    error: 'entity_not_found',
  },
  { name: "send to B's user", method: 'POST', path: `${A}/users/{victim}/notifications`, body: SEND, as: 'A admin', status: 404, error: 'entity_not_found' },
  // uuids are unique across applications: one taken in B is refused as one taken here by an entity that is no device is (400), never with a 500.
  {
    name: "register a device under B's device's uuid",
    method: 'PUT',
    path: `${A}/devices/${PHONE}`,
    body: { name: 'mine' },
    as: 'A admin',
    status: 400,
    error: 'illegal_argument',
  },
  {
    name: "register a device under B's device's uuid",
    method: 'PUT',
    path: `${A}/devices/${PHONE}`,
    body: { name: 'mine' },
    as: 'guest',
    status: 400,
    error: 'illegal_argument',
  },
  {
    name: "write B's application through A's path",
    method: 'POST',
    path: '/acme/{shop}/dogs',
    body: { name: 'fido' },
    as: 'A admin',
    status: 404,
    error: 'application_not_found',
  },
  { name: "delete B's application", method: 'DELETE', path: '/management/orgs/acme/apps/{shop}', as: 'A admin', status: 404, error: 'application_not_found' },
  {
    name: "weaken B's application's password policy",
    method: 'PUT',
    path: '/management/orgs/acme/apps/{shop}',
    body: { passwordPolicy: { minLength: 1 } },
    as: 'A admin',
    status: 404,
    error: 'application_not_found',
  },
  {
    name: "regenerate B's application credentials",
    method: 'POST',
    path: '/management/orgs/acme/apps/{shop}/credentials',
    as: 'A admin',
    status: 404,
    error: 'application_not_found',
  },
  {
    name: "redirect B's OAuth client",
    method: 'PUT',
    path: '/management/orgs/acme/apps/sandbox/clients/{client}',
    body: { client_name: 'web', redirect_uris: ['https://rogue.example/cb'] },
    as: 'A admin',
    status: 404,
    error: 'not_found',
  },
  {
    name: "delete B's OAuth client",
    method: 'DELETE',
    path: '/management/orgs/acme/apps/sandbox/clients/{spareClient}',
    as: 'A admin',
    status: 404,
    error: 'not_found',
  },
  {
    name: "revoke B's initial access token",
    method: 'DELETE',
    path: '/management/orgs/acme/apps/sandbox/clients/initial-access-tokens/{initialAccessToken}',
    as: 'A admin',
    status: 404,
    error: 'not_found',
  },
  {
    name: "point B's identity provider elsewhere",
    method: 'PUT',
    path: '/management/orgs/acme/apps/sandbox/identity-providers/{corp}',
    body: { name: 'corp', issuer: 'https://rogue.example', client_id: 'rogue' },
    as: 'A admin',
    status: 404,
    error: 'entity_not_found',
  },
];

async function expectRefusedAndUnchanged(t: TestApp, fixture: Fixture, { method, path, body, as, status, error }: Case): Promise<void> {
  await expectRefusedUnchanged(
    t,
    () => t.request(method, resolve(path, fixture.ids), { ...bodyOf(body), token: as === 'guest' ? undefined : fixture.tokens[as] }),
    status,
    error,
  );
}

describe('the route table', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('walks every route that writes here, or names it as open by design', async () => {
    const { routes } = await routeTable(t);
    const covered = new Set([...TARGETS.map((target) => target.route), ...OPEN_BY_DESIGN.keys()]);
    const unwalked = [...routes].filter((route) => MUTATING.has(route.slice(0, route.indexOf(' '))) && !covered.has(route));
    expect(unwalked, 'routes that write, neither walked nor open by design').toEqual([]);
    expect(
      [...covered].filter((route) => !routes.has(route)),
      'walked or open routes the app does not have',
    ).toEqual([]);
  });

  it('knows every handler of all methods: a 405 or middleware of a known path, or named middleware', async () => {
    const { routes, all } = await routeTable(t);
    const paths = new Set([...routes].map(pathOf));
    expect(
      [...all].filter((path) => !paths.has(path) && !MIDDLEWARE.has(path)),
      'ALL handlers on paths without routes',
    ).toEqual([]);
    expect(
      [...MIDDLEWARE.keys()].filter((path) => !all.has(path)),
      'named middleware the app does not have',
    ).toEqual([]);
  });

  it.each(TARGETS)("$route: '$path' is a path of that route", (target) => {
    expect(isPathOf(target.route, target.path)).toBe(true);
  });

  // A fixture, then every target between two snapshots of every table: longer than most tests.
  it('is replayable: a sysadmin doing each in order is answered and changes what is stored', { timeout: 120_000 }, async () => {
    const fixture = await createFixture(t);
    for (const target of TARGETS) {
      if (target.control === 'skip') continue;
      const method = target.route.slice(0, target.route.indexOf(' '));
      const before = await snapshot(t);
      const res = await t.request(method, resolve(target.path, fixture.ids), { ...bodyOf(target.body), token: fixture.sysadmin });
      const after = await snapshot(t);
      if (target.control === undefined || target.control === 201) {
        expect(res.status, `${target.name}: ${res.text}`).toBe(target.control ?? 200);
        expect(after, `${target.name} must change what is stored`).not.toBe(before);
      } else {
        expectRefusal(res, target.control, 'method_not_allowed');
        expect(after).toBe(before);
      }
    }
  });
});

describe("B's routes that write, as a guest, a stranger and another tenant", () => {
  let t: TestApp;
  let fixture: Fixture;
  beforeAll(async () => {
    t = await createTestApp();
    fixture = await createFixture(t);
  });
  afterAll(() => t.close());

  it.each(CASES)('$as: $method $path ($name) → $status $error', (refused) => expectRefusedAndUnchanged(t, fixture, refused));

  describe("and through A's own paths, naming B's things by uuid", () => {
    it.each(THROUGH_A)('$as: $method $path ($name) → $status $error', (refused) => expectRefusedAndUnchanged(t, fixture, refused));
  });
});
