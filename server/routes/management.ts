/**
 * The management API's own routes at /management: creating organizations and admin users, and
 * an admin user's record, password, feed and account state. One organization's routes are organization.ts,
 * one application's application.ts. Handlers find the resource, check access, hand off to
 * src/management/, and wrap the result in the envelope.
 */
import { createRoute, z } from '@hono/zod-openapi';
import { defineRoutes } from '../route-table.js';
import { jsonOrForm, openapiRoute, responses, type router } from '../openapi.js';

type Router = ReturnType<typeof router>;
import { ok } from '../envelope.js';
import { adminUserView, managementActivityView, organizationListView, organizationView } from '../views.js';
import { CreateOrg, CreateAdminUser, AdminUserUpdate, ResetPW } from '../../src/management/schemas.js';
import { createOrganization, listOrganizations } from '../../src/management/organizations.js';
import { createAdminUser, findAdminUser, listAdminOrganizations, updateAdminUser } from '../../src/management/admin-users.js';
import { changeAdminPassword } from '../../src/identity/sign-in/authenticate.js';
import { loginContextOf } from '../client-address.js';
import { listUserFeed } from '../../src/management/activities.js';
import { sendActivationLink } from '../../src/lifecycle/activation.js';
import { requireSignup, requireAdminUserAccess, requireAdminUserSwitch, requireSysadmin } from '../access.js';
import { setAccountActive } from '../../src/lifecycle/account-state.js';
import { adminEntity } from './organization.js';
import { FeedQuery, UserParams } from './management-params.js';

const tag = 'Management';
/** A page of a list read by cursor (docs/api.md#queries-and-paging). */
const PageQuery = z.object({
  limit: z.string().optional().openapi({ description: 'at most 1000, default 10' }),
  cursor: z.string().optional().openapi({ description: "the previous page's cursor" }),
});

/** Sign-up: a new organization with its first admin, and a new admin user (both follow --signup). */
function signUpRoutes(app: Router): void {
  openapiRoute(
    app,
    createRoute({
      method: 'post',
      path: '/orgs',
      tags: [tag],
      summary: 'Create an organization and its first admin user',
      request: { body: jsonOrForm(CreateOrg, 'CreateOrg') },
      responses: responses('Organization'),
    }),
    async (c) => {
      requireSignup(c);
      const { organization, owner } = await createOrganization(c.get('deps'), c.req.valid('json'));
      // Under --require-activation each is activated by its own mailed link.
      if (!owner.activated) await sendActivationLink(c.get('deps'), { type: 'admin_user', uuid: owner.uuid });
      if (!organization.activated) await sendActivationLink(c.get('deps'), { type: 'organization', uuid: organization.uuid });
      const entity = organizationView(organization, owner, []);
      return ok(c, {
        action: 'new organization',
        entities: [entity],
        organization,
        extra: { data: { owner: adminUserView(owner, [organization]), organization: entity } },
      });
    },
  );

  openapiRoute(
    app,
    createRoute({
      method: 'get',
      path: '/orgs',
      tags: [tag],
      summary: 'List every organization, by name (sysadmins only; limit, cursor)',
      request: { query: PageQuery },
      responses: responses('Organization'),
    }),
    async (c) => {
      requireSysadmin(c);
      const page = await listOrganizations(c.get('deps'), c.req.valid('query'));
      return ok(c, { action: 'get organizations', entities: page.organizations.map(organizationListView), count: true, cursor: page.cursor });
    },
  );

  openapiRoute(
    app,
    createRoute({
      method: 'post',
      path: '/users',
      tags: [tag],
      summary: 'Create an admin user',
      request: { body: jsonOrForm(CreateAdminUser, 'CreateAdminUser') },
      responses: responses('User'),
    }),
    async (c) => {
      requireSignup(c);
      const user = await createAdminUser(c.get('deps'), c.req.valid('json'));
      if (!user.activated) await sendActivationLink(c.get('deps'), { type: 'admin_user', uuid: user.uuid });
      return ok(c, { action: 'create user', entities: [adminUserView(user, [])] });
    },
  );
}

/** An admin user's record, password and feed. */
function adminUserRoutes(app: Router): void {
  openapiRoute(
    app,
    createRoute({
      method: 'get',
      path: '/users/{userId}',
      tags: [tag],
      summary: 'Get an admin user',
      request: { params: UserParams },
      responses: responses('User'),
    }),
    async (c) => {
      const user = await findAdminUser(c.get('deps'), c.req.valid('param').userId);
      await requireAdminUserAccess(c, user, 'read');
      return ok(c, { action: 'get admin user', entities: [await adminEntity(c, user)] });
    },
  );

  openapiRoute(
    app,
    createRoute({
      method: 'put',
      path: '/users/{userId}',
      tags: [tag],
      summary: 'Update an admin user',
      request: { params: UserParams, body: jsonOrForm(AdminUserUpdate, 'AdminUserUpdate') },
      responses: responses('User'),
    }),
    async (c) => {
      const user = await findAdminUser(c.get('deps'), c.req.valid('param').userId);
      await requireAdminUserAccess(c, user, 'write');
      const updated = await updateAdminUser(c.get('deps'), user, c.req.valid('json'));
      return ok(c, { action: 'update admin user', entities: [await adminEntity(c, updated)] });
    },
  );

  openapiRoute(
    app,
    createRoute({
      method: 'put',
      path: '/users/{userId}/password',
      tags: [tag],
      summary: "Change an admin user's password",
      request: { params: UserParams, body: jsonOrForm(ResetPW, 'ResetPW') },
      responses: responses('User'),
    }),
    async (c) => {
      const user = await findAdminUser(c.get('deps'), c.req.valid('param').userId);
      await requireAdminUserAccess(c, user, 'write');
      const { password, newpassword } = c.req.valid('json');
      await changeAdminPassword(c.get('deps'), user, password, newpassword, loginContextOf(c));
      return ok(c, { action: 'set user password', entities: [await adminEntity(c, user)] });
    },
  );

  openapiRoute(
    app,
    createRoute({
      method: 'get',
      path: '/users/{userId}/feed',
      tags: [tag],
      summary: "An admin user's feed, newest first",
      request: { params: UserParams, query: FeedQuery },
      responses: responses('ActivityFeed'),
    }),
    async (c) => {
      const deps = c.get('deps');
      const user = await findAdminUser(deps, c.req.valid('param').userId);
      await requireAdminUserAccess(c, user, 'read');
      const orgs = await listAdminOrganizations(deps, user.uuid);
      const activities = await listUserFeed(
        deps,
        user.uuid,
        orgs.map((o) => o.uuid),
        c.req.valid('query').limit,
      );
      return ok(c, { action: 'get user feed', entities: activities.map(managementActivityView), count: true });
    },
  );
}

/** Deactivating and activating an admin user (docs/api.md#account-state). */
function adminStateRoutes(app: Router): void {
  for (const [verb, active] of [
    ['deactivate', false],
    ['activate', true],
  ] as const) {
    openapiRoute(
      app,
      createRoute({
        method: 'put',
        path: `/users/{userId}/${verb}`,
        tags: [tag],
        summary: active ? 'Activate an admin user: sign-in works again' : 'Deactivate an admin user: no token, every sign-in ended',
        request: { params: UserParams },
        responses: responses('User'),
      }),
      async (c) => {
        const deps = c.get('deps');
        const user = await findAdminUser(deps, c.req.valid('param').userId);
        await requireAdminUserSwitch(c, user);
        await setAccountActive(deps, { type: 'admin_user', uuid: user.uuid }, active, c.get('principal'));
        return ok(c, { action: `${verb} admin user`, entities: [await adminEntity(c, await findAdminUser(deps, user.uuid))] });
      },
    );
  }
}

export const managementRoutes = defineRoutes('server/routes/management.ts', (app) => {
  signUpRoutes(app);
  adminUserRoutes(app);
  adminStateRoutes(app);
});
