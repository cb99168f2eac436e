/**
 * How Usergrid's relation paths map onto the `connections` table. Group membership, role
 * assignment, a user's devices, activities and feed are stored as connections too, but Usergrid
 * shows them as the owner's sub-collections, not as connections; and some of them are read from
 * the other end (`/users/fred/groups` lists the groups whose `users` hold fred). One table of
 * those facts, consulted by reads, writes and metadata alike.
 */

/** Relations through which an entity of a collection owns a sub-collection. */
const OWNED: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ['users', new Set(['activities', 'feed', 'devices'])],
  ['groups', new Set(['users', 'activities', 'feed'])],
  ['roles', new Set(['users', 'groups'])],
]);

export function isOwnedRelation(collection: string, relation: string): boolean {
  return OWNED.get(collection)?.has(relation) ?? false;
}

/**
 * The sub-resources of users and entities that mean something of their own (tokens, passwords,
 * account links, feeds, connections, membership, permissions, push): never the name of a
 * relation through which a POST creates and connects a new entity, but where the entity's
 * collection owns that sub-collection (a user's devices, a group's or a role's users).
 */
const SUB_RESOURCES: ReadonlySet<string> = new Set([
  'token',
  'revoketoken',
  'revoketokens',
  'password',
  'resetpw',
  'activate',
  'deactivate',
  'reactivate',
  'feed',
  'activities',
  'connections',
  'connecting',
  'roles',
  'groups',
  'permissions',
  'devices',
  'notifications',
  'receipts',
]);

/**
 * Whether `word` may follow an entity of `collection` as a sub-resource of its own: one of the
 * words above, or a sub-collection the collection owns (a group's `users`).
 */
export function isSubResourceOf(collection: string, word: string): boolean {
  const lower = word.toLowerCase();
  return SUB_RESOURCES.has(lower) || isOwnedRelation(collection, lower);
}

/** Whether POST …/{collection}/{id}/{relation} may create a new entity connected through `relation`. */
export function createsThrough(collection: string, relation: string): boolean {
  if (!SUB_RESOURCES.has(relation.toLowerCase())) return true;
  return relation !== 'feed' && isOwnedRelation(collection, relation);
}

/**
 * A relation as seen from one end: `out` follows `source -relation-> target` from the source;
 * `in` reads it backwards, from the target, and `collection` then names where the sources live.
 */
export interface RelationView {
  readonly direction: 'out' | 'in';
  readonly relation: string;
  /** Where the entities at the other end live, when the relation implies it. */
  readonly collection?: string;
}

const INVERSE: ReadonlyMap<string, RelationView> = new Map([
  ['users/groups', { direction: 'in', relation: 'users', collection: 'groups' }],
  ['users/roles', { direction: 'in', relation: 'users', collection: 'roles' }],
  ['groups/roles', { direction: 'in', relation: 'groups', collection: 'roles' }],
]);

/** Where the target of an outgoing relation lives, when its name does not say it. */
const TARGET_COLLECTION: ReadonlyMap<string, string> = new Map([
  ['following', 'users'],
  ['followers', 'users'],
]);

/** `/{collection}/{id}/{relation}` as a view on the connections table. */
export function relationView(collection: string, relation: string): RelationView {
  return INVERSE.get(`${collection}/${relation}`) ?? { direction: 'out', relation, collection: TARGET_COLLECTION.get(relation) };
}

/** `following` is answered by `followers` on the other end (Usergrid's social graph). */
export const RECIPROCAL: ReadonlyMap<string, string> = new Map([['following', 'followers']]);
