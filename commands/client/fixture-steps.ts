/**
 * `idp fixtures apply` over HTTP: the file becomes an ordered list of steps, each one item that
 * either exists on the server (unchanged) or is created. Every step checks before it writes, so a
 * second run changes nothing. Organization-level steps are signed in as the organization's owner
 * (the file holds the password); without that, the command's own token (--token or profile) is
 * used.
 */
import type { Fixtures, FixtureApplication } from '../../src/fixtures/format.js';
import { createHash } from 'node:crypto';
import { createReadStream, openAsBlob } from 'node:fs';
import { basename } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Ctx } from './context.js';
import type { HttpRequest } from './http.js';
import { ADMIN_CLI, p } from './api.js';
import { ServerError } from './errors.js';
import { requestToken } from './tokens.js';
import { entitiesOf } from './output.js';

export interface Step {
  /** Where the item is in the file, e.g. organizations[0].applications[0].users[2]. */
  path: string;
  label: string;
  /** Steps that must have succeeded (or, in a dry run, be about to) before this one runs. */
  parents: Step[];
  exists(): Promise<boolean>;
  create(): Promise<void>;
}

type Admin = Fixtures['admins'][number];
type Organization = Fixtures['organizations'][number];

/** Reading a whole sub-collection to look for one member: the server's maximum page. */
const ALL = { limit: 1000 };

/** A 404 answer (or another of `absent`) means "not there yet"; anything else is a failure. */
async function found(read: () => Promise<unknown>, absent: readonly number[] = [404]): Promise<boolean> {
  try {
    await read();
    return true;
  } catch (error) {
    if (error instanceof ServerError && absent.includes(error.status)) return false;
    throw error;
  }
}

/** The ways a member of a sub-collection may be named: name, username, group path, uuid. */
function identifiers(entities: Record<string, unknown>[]): Set<string> {
  return new Set(
    entities.flatMap((entity) =>
      ['name', 'username', 'path', 'uuid', 'client_name']
        .map((key) => entity[key])
        .filter((value) => typeof value === 'string')
        .map((value) => (value as string).toLowerCase()),
    ),
  );
}

/** Tokens of the file's admins, each signed in once; null when the server refuses the password. */
interface AdminSignIns {
  signIn(admin: Admin): Promise<string | null>;
  /** The admin is about to be created: the refusal remembered no longer holds. */
  forget(username: string): void;
}

function createAdminSignIns(ctx: Ctx): AdminSignIns {
  const tokens = new Map<string, string | null>();
  return {
    async signIn(admin) {
      const key = admin.username.toLowerCase();
      if (!tokens.has(key)) {
        try {
          const issued = await requestToken(ctx, { grant_type: 'password', client_id: ADMIN_CLI, username: admin.username, password: admin.password });
          tokens.set(key, issued.access_token);
        } catch (error) {
          if (!(error instanceof ServerError) || error.status >= 500) throw error;
          tokens.set(key, null);
        }
      }
      return tokens.get(key)!;
    },
    forget(username) {
      tokens.delete(username.toLowerCase());
    },
  };
}

export function planSteps(ctx: Ctx, fixtures: Fixtures): Step[] {
  const admins = new Map(fixtures.admins.map((admin) => [admin.username.toLowerCase(), admin]));
  const adminOf = (username: string) => admins.get(username.toLowerCase())!;
  const signIns = createAdminSignIns(ctx);
  const organizationSteps: Step[] = [];
  const steps: Step[] = [];
  fixtures.organizations.forEach((org, o) => {
    const owner = adminOf(org.owner);
    // The owner's token, else the command's own (undefined lets ctx.call send it).
    const token = async () => (await signIns.signIn(owner)) ?? undefined;
    const call: Call = async (method, path, json, query, file) => ctx.call({ method, path, json, query, file, token: await token() });
    const orgStep = organizationStep(ctx, org, o, owner, signIns, call);
    organizationSteps.push(orgStep);
    steps.push(orgStep, ...organizationApplicationSteps(org, o, orgStep, call));
  });
  steps.push(...adminSteps(ctx, fixtures, signIns));
  // Memberships come after every admin exists.
  fixtures.organizations.forEach((org, o) =>
    steps.push(...organizationAdminSteps(ctx, org, o, organizationSteps[o], () => signIns.signIn(adminOf(org.owner)))),
  );
  return steps;
}

function organizationStep(ctx: Ctx, org: Organization, o: number, owner: Admin, signIns: AdminSignIns, call: Call): Step {
  return {
    path: `organizations[${o}]`,
    label: `organization ${org.name}`,
    parents: [],
    // Without the owner's password or a token of our own, the organization is as good as absent;
    // creating it then tells the truth.
    exists: () => found(() => call('GET', p`/management/orgs/${org.name}`), [401, 404]),
    async create() {
      if ((await signIns.signIn(owner)) !== null) {
        throw new Error(
          `admin '${owner.username}' already exists; the server creates an organization only together with its new owner (POST /management/orgs)`,
        );
      }
      if (!owner.email || !owner.name) throw new Error(`the owner '${owner.username}' needs an email and a name to create organization '${org.name}'`);
      await ctx.call({
        method: 'POST',
        path: '/management/orgs',
        form: { organization: org.name, username: owner.username, name: owner.name, email: owner.email, password: owner.password },
      });
      signIns.forget(owner.username);
    },
  };
}

/** Admins of the file that own no organization (an owner is created with the organization). */
function adminSteps(ctx: Ctx, fixtures: Fixtures, signIns: AdminSignIns): Step[] {
  const owned = new Set(fixtures.organizations.map((org) => org.owner.toLowerCase()));
  return fixtures.admins.flatMap((admin, a): Step[] =>
    owned.has(admin.username.toLowerCase())
      ? []
      : [
          {
            path: `admins[${a}]`,
            label: `admin ${admin.username}`,
            parents: [],
            exists: async () => (await signIns.signIn(admin)) !== null,
            async create() {
              signIns.forget(admin.username);
              await ctx.call({
                method: 'POST',
                path: '/management/users',
                json: { username: admin.username, email: admin.email, name: admin.name, password: admin.password },
              });
            },
          },
        ],
  );
}

/** The organization's admins besides its owner, signed in as the owner (else the command's own token). */
function organizationAdminSteps(ctx: Ctx, org: Organization, o: number, orgStep: Step, ownerToken: () => Promise<string | null>): Step[] {
  const token = async () => (await ownerToken()) ?? undefined;
  return org.admins.map((username, i) => ({
    path: `organizations[${o}].admins[${i}]`,
    label: `admin ${username} of ${org.name}`,
    parents: [orgStep],
    async exists() {
      const body = await ctx.call({ method: 'GET', path: p`/management/orgs/${org.name}/users`, token: await token() });
      return identifiers(entitiesOf(body)).has(username.toLowerCase());
    },
    async create() {
      await ctx.call({ method: 'PUT', path: p`/management/orgs/${org.name}/users/${username}`, token: await token() });
    },
  }));
}

/** Each application of the organization, then the steps inside it. */
function organizationApplicationSteps(org: Organization, o: number, orgStep: Step, call: Call): Step[] {
  return org.applications.flatMap((app, a) => {
    const base = `organizations[${o}].applications[${a}]`;
    const appStep: Step = {
      path: base,
      label: `application ${org.name}/${app.name}`,
      parents: [orgStep],
      async exists() {
        const body = await call('GET', p`/management/orgs/${org.name}/apps`);
        return entitiesOf(body).some((entity) => String(entity.applicationName).toLowerCase() === app.name.toLowerCase());
      },
      create: async () => void (await call('POST', p`/management/orgs/${org.name}/apps`, { name: app.name })),
    };
    return [appStep, ...applicationSteps(org.name, app, base, appStep, call)];
  });
}

type Call = (method: 'GET' | 'POST' | 'PUT', path: string, json?: unknown, query?: Record<string, number>, file?: HttpRequest['file']) => Promise<unknown>;

async function md5Of(file: string): Promise<string> {
  const hash = createHash('md5');
  await pipeline(createReadStream(file), hash);
  return hash.digest('hex');
}

/** The file an entity of the fixtures carries (docs/api.md#assets): there when the entity's asset has the file's checksum. */
function assetStep(path: string, label: string, entityStep: Step, entityPath: string, file: string, call: Call): Step {
  return {
    path,
    label,
    parents: [entityStep],
    exists: async () => {
      const [entity] = entitiesOf(await call('GET', entityPath));
      const metadata = entity?.['file-metadata'] as { checksum?: unknown } | undefined;
      return metadata?.checksum === (await md5Of(file));
    },
    create: async () => void (await call('PUT', entityPath, undefined, undefined, { field: 'file', blob: await openAsBlob(file), filename: basename(file) })),
  };
}

/** "get,post:/path" → its verbs and pattern, so permission rules compare regardless of order and case. */
function parsePermissionRule(text: string): { verbs: Set<string>; pattern: string } {
  const colon = text.indexOf(':');
  const verbs = text.slice(0, colon).trim().toLowerCase();
  return {
    verbs: new Set(verbs === '*' ? ['get', 'put', 'post', 'delete'] : verbs.split(',').map((verb) => verb.trim())),
    pattern: text.slice(colon + 1).trim(),
  };
}

function holdsPermission(rules: unknown, permission: string): boolean {
  const wanted = parsePermissionRule(permission);
  return (Array.isArray(rules) ? rules : []).some((rule) => {
    if (typeof rule !== 'string' || !rule.includes(':')) return false;
    const held = parsePermissionRule(rule);
    return held.pattern === wanted.pattern && [...wanted.verbs].every((verb) => held.verbs.has(verb));
  });
}

/** The application's OAuth clients, found by name among those it lists. */
function clientSteps(org: string, app: FixtureApplication, base: string, appStep: Step, call: Call): Step[] {
  const path = p`/management/orgs/${org}/apps/${app.name}/clients`;
  return app.clients.map((client, i) => ({
    path: `${base}.clients[${i}]`,
    label: `client ${client.client_name}`,
    parents: [appStep],
    exists: async () => identifiers(entitiesOf(await call('GET', path, undefined, ALL))).has(client.client_name.toLowerCase()),
    create: async () => void (await call('POST', path, client)),
  }));
}

/** The permissions a role of the file grants, each added unless the role already holds it. */
function permissionSteps(role: FixtureApplication['roles'][number], rolePath: string, roleStep: Step, permissionsPath: string, call: Call): Step[] {
  return role.permissions.map((permission, j) => ({
    path: `${rolePath}.permissions[${j}]`,
    label: `permission ${permission} of role ${role.name}`,
    parents: [roleStep],
    exists: async () => holdsPermission(((await call('GET', permissionsPath)) as { data?: unknown }).data, permission),
    create: async () => void (await call('POST', permissionsPath, { permission })),
  }));
}

/** The steps inside one application, in dependency order. */
function applicationSteps(org: string, app: FixtureApplication, base: string, appStep: Step, call: Call): Step[] {
  const steps: Step[] = [];
  const at = (...segments: string[]) => ['', org, app.name, ...segments].map(encodeURIComponent).join('/');
  /** An entity found by name, created by POST to its collection. */
  const entity = (path: string, label: string, collection: string, name: string, body: unknown, parents = [appStep], createPath = at(collection)): Step => ({
    path,
    label,
    parents,
    exists: () => found(() => call('GET', at(collection, name))),
    create: async () => void (await call('POST', createPath, body)),
  });
  /**
   * A connection (group or role membership, `following`, …): GET on the connection's own path
   * answers 200 when it exists, 404 when not; POST there makes it.
   */
  const link = (path: string, label: string, parents: Step[], linkPath: string): Step => ({
    path,
    label,
    parents,
    exists: () => found(() => call('GET', linkPath)),
    create: async () => void (await call('POST', linkPath)),
  });

  steps.push(...clientSteps(org, app, base, appStep, call));

  const roleSteps = new Map<string, Step>();
  app.roles.forEach((role, i) => {
    const step = entity(`${base}.roles[${i}]`, `role ${role.name}`, 'roles', role.name, { 'role name': role.name, title: role.title ?? role.name });
    roleSteps.set(role.name, step);
    steps.push(step, ...permissionSteps(role, `${base}.roles[${i}]`, step, at('roles', role.name, 'permissions'), call));
  });

  const userSteps = new Map<string, Step>();
  app.users.forEach((user, i) => {
    const step = entity(`${base}.users[${i}]`, `user ${user.username}`, 'users', user.username, user);
    userSteps.set(user.username.toLowerCase(), step);
    steps.push(step);
  });
  /** The step creating a user of the file, if the user is one: a link to them waits for it. */
  const withUser = (username: string, ...others: Step[]) => [...others, ...[userSteps.get(username.toLowerCase())].filter((step) => step !== undefined)];

  app.groups.forEach((group, i) => {
    const { users, ...properties } = group;
    const step = entity(`${base}.groups[${i}]`, `group ${group.path}`, 'groups', group.path, { ...properties, title: group.title ?? group.path });
    steps.push(step);
    users.forEach((username, j) => {
      steps.push(
        link(`${base}.groups[${i}].users[${j}]`, `${username} in group ${group.path}`, withUser(username, step), at('groups', group.path, 'users', username)),
      );
    });
  });

  app.roles.forEach((role, i) => {
    const step = roleSteps.get(role.name)!;
    role.users.forEach((username, j) => {
      steps.push(
        link(`${base}.roles[${i}].users[${j}]`, `${username} in role ${role.name}`, withUser(username, step), at('roles', role.name, 'users', username)),
      );
    });
    role.groups.forEach((group, j) => {
      steps.push(link(`${base}.roles[${i}].groups[${j}]`, `group ${group} in role ${role.name}`, [step], at('roles', role.name, 'groups', group)));
    });
  });

  for (const [collection, list] of Object.entries(app.collections)) {
    list.forEach(({ asset, ...item }, i) => {
      const [path, label] = [`${base}.collections.${collection}[${i}]`, `${collection}/${item.name}`];
      const step = entity(path, label, collection, item.name, item);
      steps.push(step);
      if (asset !== undefined) steps.push(assetStep(`${path}.asset`, `${label} file ${basename(asset)}`, step, at(collection, item.name), asset, call));
    });
  }

  app.connections.forEach((connection, i) => {
    const [collection, name] = connection.from.split('/');
    const label = `${connection.from} ${connection.relation} ${connection.to}`;
    steps.push(link(`${base}.connections[${i}]`, label, [appStep], at(collection, name, connection.relation, ...connection.to.split('/'))));
  });

  app.notifiers.forEach((notifier, i) => steps.push(entity(`${base}.notifiers[${i}]`, `notifier ${notifier.name}`, 'notifiers', notifier.name, notifier)));
  app.devices.forEach((device, i) => steps.push(entity(`${base}.devices[${i}]`, `device ${device.name}`, 'devices', device.name, device)));

  app.activities.forEach((activity, i) => {
    const { user, group, ...body } = activity;
    const owner = user !== undefined ? ['users', user] : ['groups', group!];
    const parents = user !== undefined ? withUser(user, appStep) : [appStep];
    steps.push(entity(`${base}.activities[${i}]`, `activity ${activity.name}`, 'activities', activity.name, body, parents, at(...owner, 'activities')));
  });
  return steps;
}
