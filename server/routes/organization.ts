/**
 * One organization: /management/orgs/{orgId}/… — its applications, credentials, admin users and
 * feed. The area's middleware has found the organization and checked that the caller administers
 * it (server/access.ts `organizationAdmin`); handlers hand off to src/management/.
 */
import { createRoute } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { Env } from '../env.js';
import { defineRoutes } from '../route-table.js';
import { jsonOrForm, openapiRoute, responses, type router } from '../openapi.js';

type Router = ReturnType<typeof router>;
import { ok } from '../envelope.js';
import { adminUserView, appDataOf, applicationView, organizationView } from '../views.js';
import { CreateApp, UpdateOrg } from '../../src/management/schemas.js';
import { regenerateOrganizationCredential, updateOrganization } from '../../src/management/organizations.js';
import { createApplication, listApplications } from '../../src/management/applications.js';
import {
  addAdminToOrganization,
  findAdminUser,
  findAdminUserIn,
  listAdminOrganizations,
  listOrganizationAdmins,
  removeAdminFromOrganization,
  type AdminUser,
} from '../../src/management/admin-users.js';
import { getCredential } from '../../src/management/credentials.js';
import { listOrganizationFeed } from '../../src/management/activities.js';
import { actorOf } from '../../src/principal.js';
import { managementActivityView } from '../views.js';
import { credentialRoutes } from './credentials.js';
import { OrgFeedQuery, OrgParams, OrgUserParams } from './management-params.js';

const tag = 'Management';

export async function adminEntity(c: Context<Env>, user: AdminUser) {
  return adminUserView(user, await listAdminOrganizations(c.get('deps'), user.uuid));
}

/** The organization itself and its applications. */
function applicationListRoutes(app: Router): void {
  openapiRoute(
    app,
    createRoute({
      method: 'get',
      path: '/',
      tags: [tag],
      summary: 'Get an organization',
      request: { params: OrgParams },
      responses: responses('Organization'),
    }),
    async (c) => {
      const org = c.get('organization');
      const deps = c.get('deps');
      const [admins, apps] = await Promise.all([listOrganizationAdmins(deps, org.uuid), listApplications(deps, org)]);
      return ok(c, { action: 'get organization', entities: [organizationView(org, admins[0], apps)], organization: org });
    },
  );

  openapiRoute(
    app,
    createRoute({
      method: 'get',
      path: '/apps',
      tags: [tag],
      summary: 'List the applications of an organization',
      request: { params: OrgParams },
      responses: responses('AppData'),
    }),
    async (c) => {
      const org = c.get('organization');
      const apps = await listApplications(c.get('deps'), org);
      return ok(c, {
        action: 'get organization application',
        entities: apps.map((a) => applicationView(org, a)),
        organization: org,
        count: true,
        extra: { data: appDataOf(org, apps) },
      });
    },
  );

  openapiRoute(
    app,
    createRoute({
      method: 'post',
      path: '/apps',
      tags: [tag],
      summary: 'Create an application',
      request: { params: OrgParams, body: jsonOrForm(CreateApp, 'CreateApp (name)') },
      responses: responses('AppData'),
    }),
    async (c) => {
      const org = c.get('organization');
      const { name } = c.req.valid('json');
      const created = await createApplication(c.get('deps'), org, name, actorOf(c.get('principal')));
      return ok(c, {
        action: 'new application',
        entities: [applicationView(org, created)],
        organization: org,
        application: created,
        extra: { data: appDataOf(org, [created]) },
      });
    },
  );
}

/** Its settings (docs/account.md#second-factor-required). */
function settingsRoutes(app: Router): void {
  openapiRoute(
    app,
    createRoute({
      method: 'put',
      path: '/',
      tags: [tag],
      summary: "Change an organization's settings: second factor required of its admin users (docs/account.md#second-factor-required)",
      request: { params: OrgParams, body: jsonOrForm(UpdateOrg, 'secondFactorRequired: true or false; null removes a setting') },
      responses: responses('Organization'),
    }),
    async (c) => {
      const deps = c.get('deps');
      const org = await updateOrganization(deps, c.get('organization'), c.req.valid('json'), actorOf(c.get('principal')));
      const [admins, apps] = await Promise.all([listOrganizationAdmins(deps, org.uuid), listApplications(deps, org)]);
      return ok(c, { action: 'update organization', entities: [organizationView(org, admins[0], apps)], organization: org });
    },
  );
}

/** Its credentials and its admin users. */
function adminRoutes(app: Router): void {
  credentialRoutes(app, {
    owner: 'organization',
    params: OrgParams,
    read: (c) => getCredential(c.get('deps'), 'organization', c.get('organization').uuid),
    regenerate: (c) => regenerateOrganizationCredential(c.get('deps'), c.get('organization'), actorOf(c.get('principal'))),
    scope: (c) => ({ organization: c.get('organization') }),
  });

  openapiRoute(
    app,
    createRoute({
      method: 'get',
      path: '/users',
      tags: [tag],
      summary: 'List the admin users of an organization',
      request: { params: OrgParams },
      responses: responses('User'),
    }),
    async (c) => {
      const org = c.get('organization');
      const admins = await listOrganizationAdmins(c.get('deps'), org.uuid);
      return ok(c, {
        action: 'get organization users',
        entities: await Promise.all(admins.map((user) => adminEntity(c, user))),
        organization: org,
        count: true,
      });
    },
  );

  openapiRoute(
    app,
    createRoute({
      method: 'put',
      path: '/users/{userId}',
      tags: [tag],
      summary: 'Add an existing admin user to an organization',
      request: { params: OrgUserParams },
      responses: responses('User'),
    }),
    async (c) => {
      const org = c.get('organization');
      const user = await findAdminUser(c.get('deps'), c.req.valid('param').userId, 'username-email-uuid');
      await addAdminToOrganization(c.get('deps'), org.uuid, user, actorOf(c.get('principal')));
      return ok(c, { action: 'add user to organization', entities: [await adminEntity(c, user)], organization: org });
    },
  );

  openapiRoute(
    app,
    createRoute({
      method: 'delete',
      path: '/users/{userId}',
      tags: [tag],
      summary: 'Remove an admin user from an organization',
      request: { params: OrgUserParams },
      responses: responses('User'),
    }),
    async (c) => {
      const org = c.get('organization');
      const user = await findAdminUser(c.get('deps'), c.req.valid('param').userId, 'username-email-uuid');
      await removeAdminFromOrganization(c.get('deps'), org.uuid, user, actorOf(c.get('principal')));
      return ok(c, { action: 'remove user from organization', entities: [await adminEntity(c, user)], organization: org });
    },
  );
}

/** Its feed: what its administrators did (docs/api.md#activities-feeds-and-events). */
function feedRoutes(app: Router): void {
  openapiRoute(
    app,
    createRoute({
      method: 'get',
      path: '/feed',
      tags: [tag],
      summary: 'What happened in an organization, newest first (limit, cursor; verb, category, actor, since)',
      request: { params: OrgParams, query: OrgFeedQuery },
      responses: responses('ActivityFeed'),
    }),
    async (c) => {
      const org = c.get('organization');
      const deps = c.get('deps');
      const { limit, actor, ...filter } = c.req.valid('query');
      // An admin user by username or email; any other actor (or none known) by the uuid given, which then matches only its own entries.
      const actorUuid = actor === undefined ? undefined : ((await findAdminUserIn(deps.db, actor, 'username-email-uuid'))?.uuid ?? actor);
      const page = await listOrganizationFeed(deps, org.uuid, limit, { ...filter, actorUuid });
      return ok(c, {
        action: 'get organization feed',
        entities: page.activities.map(managementActivityView),
        organization: org,
        count: true,
        cursor: page.cursor,
      });
    },
  );
}

export const organizationRoutes = defineRoutes('server/routes/organization.ts', (app) => {
  applicationListRoutes(app);
  settingsRoutes(app);
  adminRoutes(app);
  feedRoutes(app);
});
