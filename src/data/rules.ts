/**
 * What differs between collections. Most collections hold free-form entities with an optional
 * unique `name`; users, groups and roles carry their unique name in `username`, `path` and
 * `name` (with Usergrid's `roleName`), hide what must not be written through properties, and
 * list Usergrid's sub-collections in their metadata. Looked up by collection name, no switch.
 */
import type { z } from 'zod';
import { IllegalArgument } from '../errors.js';
import type { Tx } from '../db/open.js';
import { username as usernameSchema, email as emailSchema } from '../management/schemas.js';
import { checkEntityName } from './names.js';
import { checkGroupPath } from './group-paths.js';
import { writeUserLogins } from './user-logins.js';
import { deleteAppUserPassword } from '../identity/sign-in/app-user-passwords.js';
import { deleteAllFactors } from '../identity/factors/factors.js';
import type { EntityRow } from '../db/entity-store.js';

export type Properties = Record<string, unknown>;

export interface CollectionRules {
  /** The property that carries the entity's unique name (mirrored in the `name` column). */
  readonly nameProperty: string;
  /** Properties that only dedicated endpoints write (…/permissions, …/password). */
  readonly guarded: ReadonlySet<string>;
  /** Usergrid's sub-collections of each entity, listed in `metadata.collections`. */
  readonly subCollections: readonly string[];
  /** Checks and completes the full properties of an entity about to be written; returns its name. */
  normalize(properties: Properties, isNew: boolean): { name: string | null; properties: Properties };
  /** Writes what lives beside the entity row, in the same transaction. */
  afterWrite?(tx: Tx, row: EntityRow): Promise<void>;
  /** Removes what lives beside the entity row when it is deleted. */
  beforeDelete?(tx: Tx, row: EntityRow): Promise<void>;
}

/**
 * Properties nobody writes: the entity's identity and timestamps (docs/api.md#entities), the
 * metadata computed on every read, and the description of its asset, which only an upload writes
 * (docs/api.md#assets). Silently dropped from request bodies, as Usergrid did, so a client may
 * send back what it read.
 */
export const SYSTEM_PROPERTIES: ReadonlySet<string> = new Set(['uuid', 'type', 'created', 'modified', 'metadata', 'file-metadata']);

const PERMISSIONS = 'permissions';

const generic: CollectionRules = {
  nameProperty: 'name',
  guarded: new Set(),
  subCollections: [],
  normalize(properties) {
    const name = properties.name;
    if (name === undefined || name === null) {
      const { name: _dropped, ...rest } = properties;
      return { name: null, properties: rest };
    }
    return { name: checkEntityName(name), properties };
  },
};

function parseField<T extends z.ZodType>(schema: T, value: unknown, field: string): z.infer<T> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const message = parsed.error.issues[0]?.message ?? `${field} is invalid`;
    throw IllegalArgument(message, { fields: { [field]: message } });
  }
  return parsed.data;
}

const users: CollectionRules = {
  nameProperty: 'username',
  guarded: new Set([PERMISSIONS, 'password']),
  subCollections: ['activities', 'devices', 'feed', 'groups', 'roles', 'following', 'followers'],
  normalize(properties) {
    const username = parseField(usernameSchema, properties.username, 'username');
    const email = properties.email === undefined || properties.email === null ? undefined : parseField(emailSchema, properties.email, 'email');
    const { email: _email, ...rest } = properties;
    return { name: username, properties: { ...rest, username, ...(email !== undefined && { email }), activated: rest.activated ?? true } };
  },
  async afterWrite(tx, row) {
    const email = row.properties.email;
    await writeUserLogins(tx, row.appUuid, row.uuid, { username: row.name ?? '', email: typeof email === 'string' ? email : undefined });
  },
  // Sign-in names go by foreign-key cascade; the password hash and second factors have no foreign key.
  async beforeDelete(tx, row) {
    await deleteAppUserPassword(tx, row.uuid);
    await deleteAllFactors(tx, row.uuid);
  },
};

const groups: CollectionRules = {
  nameProperty: 'path',
  guarded: new Set([PERMISSIONS]),
  subCollections: ['activities', 'feed', 'roles', 'users'],
  normalize(properties) {
    const path = checkGroupPath(properties.path);
    const title = properties.title ?? path;
    if (typeof title !== 'string') throw IllegalArgument('title must be a string', { fields: { title: 'must be a string' } });
    return { name: path, properties: { ...properties, path, title } };
  },
};

const roles: CollectionRules = {
  nameProperty: 'name',
  guarded: new Set([PERMISSIONS]),
  subCollections: ['groups', 'users'],
  normalize(properties, isNew) {
    // AddRole names the field `role name` (with a space); Usergrid wrote `name` and `roleName`.
    const given = isNew ? (properties['role name'] ?? properties.roleName ?? properties.name) : properties.name;
    const name = checkEntityName(given, 'name');
    if (!/^[A-Za-z0-9_.-]+$/.test(name)) {
      throw IllegalArgument(`role name '${name}' may contain only letters, digits, '_', '.' and '-'`, { fields: { name: 'malformed' } });
    }
    const { 'role name': _spaced, ...rest } = properties;
    const title = rest.title ?? name;
    if (typeof title !== 'string') throw IllegalArgument('title must be a string', { fields: { title: 'must be a string' } });
    return { name, properties: { ...rest, name, roleName: name, title, ...(isNew && { permissions: [] }) } };
  },
};

const RULES: ReadonlyMap<string, CollectionRules> = new Map([
  ['users', users],
  ['groups', groups],
  ['roles', roles],
]);

export function rulesOf(collection: string): CollectionRules {
  return RULES.get(collection) ?? generic;
}
