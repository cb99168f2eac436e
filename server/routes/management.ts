/**
 * The management API (seed section C, /management/…): organizations, applications, admin users,
 * credentials and management feeds. Handlers find the resource, check access, hand off to
 * src/management/, and wrap the result in the envelope.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { Env } from '../env.js';
import { router, jsonOrForm, bodyOf, responses } from '../openapi.js';
import { ok } from '../envelope.js';
import { adminUserView, appDataOf, applicationView, credentialView, managementActivityView, organizationView } from '../views.js';
import { CreateOrg, CreateApp, CreateAdminUser, AdminUserUpdate, ResetPW } from '../../src/management/schemas.js';
import { createOrganization, findOrganization, regenerateOrganizationCredential, type Organization } from '../../src/management/organizations.js';
import {
  createApplication,
  deleteApplication,
  findApplication,
  listApplications,
  regenerateApplicationCredential,
} from '../../src/management/applications.js';
import {
  addAdminToOrganization,
  changeAdminPassword,
  createAdminUser,
  findAdminUser,
  listAdminOrganizations,
  listOrganizationAdmins,
  removeAdminFromOrganization,
  updateAdminUser,
  type AdminUser,
} from '../../src/management/admin-users.js';
import { getCredential } from '../../src/management/credentials.js';
import { listOrganizationFeed, listUserFeed } from '../../src/management/activities.js';
import { actorOf } from '../../src/principal.js';
import { sendActivationLink } from '../../src/lifecycle/activation.js';
import { requireOrganizationAccess, requireSignup, requireAdminUserAccess } from '../access.js';

const tag = 'Management';
const OrgParams = z.object({ orgId: z.string().openapi({ description: 'organization name or uuid' }) });
const AppParams = OrgParams.extend({ appId: z.string().openapi({ description: 'application name or uuid' }) });
const UserParams = z.object({ userId: z.string().openapi({ description: 'username, real name, email or uuid' }) });
const OrgUserParams = OrgParams.extend({ userId: z.string().openapi({ description: 'username, email or uuid' }) });
const FeedQuery = z.object({ limit: z.coerce.number().int().min(1).max(1000).default(10).openapi({ description: 'at most 1000' }) });

async function orgWithOwner(c: Context<Env>, org: Organization) {
  const deps = c.get('deps');
  const [admins, apps] = await Promise.all([listOrganizationAdmins(deps, org.uuid), listApplications(deps, org)]);
  return organizationView(org, admins[0], apps);
}

async function adminEntity(c: Context<Env>, user: AdminUser) {
  return adminUserView(user, await listAdminOrganizations(c.get('deps'), user.uuid));
}

export function managementRoutes() {
  const app = router();
  const org = (c: Context<Env>, id: string) => findOrganization(c.get('deps'), id);

  app.openapi(
    createRoute({ method: 'post', path: '/management/orgs', tags: [tag], summary: 'Create an organization and its first admin user', request: { body: jsonOrForm(CreateOrg, 'CreateOrg') }, responses: responses('Organization') }),
    async (c) => {
      requireSignup(c);
      const input = bodyOf(c, CreateOrg);
      const { organization, owner } = await createOrganization(c.get('deps'), input);
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

  app.openapi(
    createRoute({ method: 'get', path: '/management/orgs/{orgId}', tags: [tag], summary: 'Get an organization', request: { params: OrgParams }, responses: responses('Organization') }),
    async (c) => {
      const found = await org(c, c.req.valid('param').orgId);
      await requireOrganizationAccess(c, found);
      return ok(c, { action: 'get organization', entities: [await orgWithOwner(c, found)], organization: found });
    },
  );

  app.openapi(
    createRoute({ method: 'get', path: '/management/orgs/{orgId}/apps', tags: [tag], summary: 'List the applications of an organization', request: { params: OrgParams }, responses: responses('AppData') }),
    async (c) => {
      const found = await org(c, c.req.valid('param').orgId);
      await requireOrganizationAccess(c, found);
      const apps = await listApplications(c.get('deps'), found);
      return ok(c, {
          action: 'get organization application',
          entities: apps.map((a) => applicationView(found, a)),
          organization: found,
          count: true,
          extra: { data: appDataOf(found, apps) },
        });
    },
  );

  app.openapi(
    createRoute({ method: 'post', path: '/management/orgs/{orgId}/apps', tags: [tag], summary: 'Create an application', request: { params: OrgParams, body: jsonOrForm(CreateApp, 'CreateApp (name)') }, responses: responses('AppData') }),
    async (c) => {
      const found = await org(c, c.req.valid('param').orgId);
      await requireOrganizationAccess(c, found);
      const { name } = bodyOf(c, CreateApp);
      const created = await createApplication(c.get('deps'), found, name, actorOf(c.get('principal')));
      return ok(c, {
          action: 'new application',
          entities: [applicationView(found, created)],
          organization: found,
          application: created,
          extra: { data: appDataOf(found, [created]) },
        });
    },
  );

  app.openapi(
    createRoute({ method: 'delete', path: '/management/orgs/{orgId}/apps/{appId}', tags: [tag], summary: 'Delete an application and all its data', request: { params: AppParams }, responses: responses('AppData') }),
    async (c) => {
      const params = c.req.valid('param');
      const found = await org(c, params.orgId);
      await requireOrganizationAccess(c, found);
      const target = await findApplication(c.get('deps'), found, params.appId);
      await deleteApplication(c.get('deps'), found, target, actorOf(c.get('principal')));
      return ok(c, { action: 'delete application', entities: [applicationView(found, target)], organization: found, extra: { data: appDataOf(found, [target]) } });
    },
  );

  for (const method of ['get', 'post'] as const) {
    app.openapi(
      createRoute({
        method,
        path: '/management/orgs/{orgId}/credentials',
        tags: [tag],
        summary: method === 'get' ? 'Get the organization client credentials' : 'Generate new organization client credentials',
        request: { params: OrgParams },
        responses: responses('Credential'),
      }),
      async (c) => {
        const found = await org(c, c.req.valid('param').orgId);
        await requireOrganizationAccess(c, found);
        const credential =
          method === 'get'
            ? await getCredential(c.get('deps'), 'organization', found.uuid)
            : await regenerateOrganizationCredential(c.get('deps'), found, actorOf(c.get('principal')));
        const view = credentialView(credential);
        return ok(c, {
            action: method === 'get' ? 'get organization client credentials' : 'generate organization client credentials',
            entities: [view],
            organization: found,
            extra: { credentials: { client_id: view.client_id, client_secret: view.client_secret } },
          });
      },
    );

    app.openapi(
      createRoute({
        method,
        path: '/management/orgs/{orgId}/apps/{appId}/credentials',
        tags: [tag],
        summary: method === 'get' ? 'Get the application client credentials' : 'Generate new application client credentials',
        request: { params: AppParams },
        responses: responses('Credential'),
      }),
      async (c) => {
        const params = c.req.valid('param');
        const found = await org(c, params.orgId);
        await requireOrganizationAccess(c, found);
        const target = await findApplication(c.get('deps'), found, params.appId);
        const credential =
          method === 'get'
            ? await getCredential(c.get('deps'), 'application', target.uuid)
            : await regenerateApplicationCredential(c.get('deps'), found, target, actorOf(c.get('principal')));
        const view = credentialView(credential);
        return ok(c, {
            action: method === 'get' ? 'get application client credentials' : 'generate application client credentials',
            entities: [view],
            organization: found,
            application: target,
            extra: { credentials: { client_id: view.client_id, client_secret: view.client_secret } },
          });
      },
    );
  }

  app.openapi(
    createRoute({ method: 'get', path: '/management/orgs/{orgId}/users', tags: [tag], summary: 'List the admin users of an organization', request: { params: OrgParams }, responses: responses('User') }),
    async (c) => {
      const found = await org(c, c.req.valid('param').orgId);
      await requireOrganizationAccess(c, found);
      const admins = await listOrganizationAdmins(c.get('deps'), found.uuid);
      const entities = await Promise.all(admins.map((user) => adminEntity(c, user)));
      return ok(c, { action: 'get organization users', entities, organization: found, count: true });
    },
  );

  app.openapi(
    createRoute({ method: 'put', path: '/management/orgs/{orgId}/users/{userId}', tags: [tag], summary: 'Add an existing admin user to an organization', request: { params: OrgUserParams }, responses: responses('User') }),
    async (c) => {
      const params = c.req.valid('param');
      const found = await org(c, params.orgId);
      await requireOrganizationAccess(c, found);
      const user = await findAdminUser(c.get('deps'), params.userId, 'username-email-uuid');
      await addAdminToOrganization(c.get('deps'), found.uuid, user, actorOf(c.get('principal')));
      return ok(c, { action: 'add user to organization', entities: [await adminEntity(c, user)], organization: found });
    },
  );

  app.openapi(
    createRoute({ method: 'delete', path: '/management/orgs/{orgId}/users/{userId}', tags: [tag], summary: 'Remove an admin user from an organization', request: { params: OrgUserParams }, responses: responses('User') }),
    async (c) => {
      const params = c.req.valid('param');
      const found = await org(c, params.orgId);
      await requireOrganizationAccess(c, found);
      const user = await findAdminUser(c.get('deps'), params.userId, 'username-email-uuid');
      await removeAdminFromOrganization(c.get('deps'), found.uuid, user, actorOf(c.get('principal')));
      return ok(c, { action: 'remove user from organization', entities: [await adminEntity(c, user)], organization: found });
    },
  );

  app.openapi(
    createRoute({ method: 'get', path: '/management/orgs/{orgId}/feed', tags: [tag], summary: 'What happened in an organization, newest first', request: { params: OrgParams, query: FeedQuery }, responses: responses('ActivityFeed') }),
    async (c) => {
      const found = await org(c, c.req.valid('param').orgId);
      await requireOrganizationAccess(c, found);
      const activities = await listOrganizationFeed(c.get('deps'), found.uuid, c.req.valid('query').limit);
      return ok(c, { action: 'get organization feed', entities: activities.map(managementActivityView), organization: found, count: true });
    },
  );

  app.openapi(
    createRoute({ method: 'post', path: '/management/users', tags: [tag], summary: 'Create an admin user', request: { body: jsonOrForm(CreateAdminUser, 'CreateAdminUser') }, responses: responses('User') }),
    async (c) => {
      requireSignup(c);
      const user = await createAdminUser(c.get('deps'), bodyOf(c, CreateAdminUser));
      if (!user.activated) await sendActivationLink(c.get('deps'), { type: 'admin_user', uuid: user.uuid });
      return ok(c, { action: 'create user', entities: [adminUserView(user, [])] });
    },
  );

  app.openapi(
    createRoute({ method: 'get', path: '/management/users/{userId}', tags: [tag], summary: 'Get an admin user', request: { params: UserParams }, responses: responses('User') }),
    async (c) => {
      const user = await findAdminUser(c.get('deps'), c.req.valid('param').userId);
      await requireAdminUserAccess(c, user, 'read');
      return ok(c, { action: 'get admin user', entities: [await adminEntity(c, user)] });
    },
  );

  app.openapi(
    createRoute({ method: 'put', path: '/management/users/{userId}', tags: [tag], summary: 'Update an admin user', request: { params: UserParams, body: jsonOrForm(AdminUserUpdate, 'AdminUserUpdate') }, responses: responses('User') }),
    async (c) => {
      const user = await findAdminUser(c.get('deps'), c.req.valid('param').userId);
      await requireAdminUserAccess(c, user, 'write');
      const updated = await updateAdminUser(c.get('deps'), user, bodyOf(c, AdminUserUpdate));
      return ok(c, { action: 'update admin user', entities: [await adminEntity(c, updated)] });
    },
  );

  app.openapi(
    createRoute({ method: 'put', path: '/management/users/{userId}/password', tags: [tag], summary: "Change an admin user's password", request: { params: UserParams, body: jsonOrForm(ResetPW, 'ResetPW') }, responses: responses('User') }),
    async (c) => {
      const user = await findAdminUser(c.get('deps'), c.req.valid('param').userId);
      await requireAdminUserAccess(c, user, 'write');
      const { password, newpassword } = bodyOf(c, ResetPW);
      await changeAdminPassword(c.get('deps'), user, password, newpassword);
      return ok(c, { action: 'set user password', entities: [await adminEntity(c, user)] });
    },
  );

  app.openapi(
    createRoute({ method: 'get', path: '/management/users/{userId}/feed', tags: [tag], summary: "An admin user's feed, newest first", request: { params: UserParams, query: FeedQuery }, responses: responses('ActivityFeed') }),
    async (c) => {
      const deps = c.get('deps');
      const user = await findAdminUser(deps, c.req.valid('param').userId);
      await requireAdminUserAccess(c, user, 'read');
      const orgs = await listAdminOrganizations(deps, user.uuid);
      const activities = await listUserFeed(deps, user.uuid, orgs.map((o) => o.uuid), c.req.valid('query').limit);
      return ok(c, { action: 'get user feed', entities: activities.map(managementActivityView), count: true });
    },
  );

  return app;
}
