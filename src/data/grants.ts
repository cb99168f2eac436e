/**
 * Permission grants on roles, users and groups (POST/GET …/permissions, DELETE
 * /roles/{roleId}/permissions?grant_url_pattern=…; docs/api.md#permissions). They live in the
 * entity's `permissions` property (a string array that ordinary writes refuse, rules.ts), which
 * src/access/app-access.ts reads on every request: a change applies to the very next one.
 */
import { z } from 'zod';
import { EntityNotFound, IllegalArgument } from '../errors.js';
import type { Deps } from '../deps.js';
import { formatPermission, parsePermission, type Permission } from '../access/permissions.js';
import { updateEntityRow, type EntityRow } from '../db/entity-store.js';

/** Collections whose entities hold grants. */
export const GRANTEES: ReadonlySet<string> = new Set(['roles', 'users', 'groups']);

/** AddPermission (`operation` + `resource_path`) or Usergrid's `{permission: "get,post:/path"}`. */
export const AddPermission = z.union([
  z.object({ permission: z.string().min(1, 'permission is required') }),
  z.object({
    operation: z.string().min(1, 'operation is required'),
    resource_path: z.string().min(1, 'resource_path is required'),
  }),
]);
export type AddPermission = z.infer<typeof AddPermission>;

export function listGrants(row: EntityRow): string[] {
  const value = row.properties.permissions;
  return Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === 'string') : [];
}

function permissionText(input: AddPermission): string {
  return 'permission' in input ? input.permission : `${input.operation}:${input.resource_path}`;
}

async function writeGrants(deps: Deps, row: EntityRow, grants: string[]): Promise<EntityRow> {
  return await deps.db.transaction(async (tx) => updateEntityRow(tx, row, { ...row.properties, permissions: grants }, row.name, deps.now()));
}

/** Adds a permission; one already granted on the same path gains the new verbs. */
export async function grantPermission(deps: Deps, row: EntityRow, input: unknown): Promise<string[]> {
  const parsed = AddPermission.safeParse(input);
  if (!parsed.success) {
    throw IllegalArgument('send {"permission": "get,post:/path"} or {"operation": "get,post", "resource_path": "/path"}', { fields: { permission: 'required' } });
  }
  const added = parsePermission(permissionText(parsed.data));
  const current = listGrants(row).map(parsePermissionLenient);
  const samePath = current.find((entry) => entry !== null && entry.pattern === added.pattern);
  const merged: Permission = samePath ? { ...added, verbs: new Set([...samePath.verbs, ...added.verbs]) } : added;
  const kept = listGrants(row).filter((_, i) => current[i] === null || current[i]?.pattern !== added.pattern);
  const grants = [...kept, formatPermission(merged)];
  await writeGrants(deps, row, grants);
  return grants;
}

/**
 * Removes a permission: `get,post:/path` takes those verbs away from `/path`; a bare `/path`
 * removes every verb on it. @throws AppError `entity_not_found` (404) when nothing matched.
 */
export async function revokePermission(deps: Deps, row: EntityRow, text: string | undefined): Promise<string[]> {
  if (text === undefined || text.trim() === '') {
    throw IllegalArgument('name the permission to remove with ?permission= or ?grant_url_pattern=', { fields: { permission: 'required' } });
  }
  const removed = parsePermission(text.includes(':') ? text : `*:${text}`);
  let matched = false;
  const grants: string[] = [];
  for (const grant of listGrants(row)) {
    const entry = parsePermissionLenient(grant);
    if (entry === null || entry.pattern !== removed.pattern) {
      grants.push(grant);
      continue;
    }
    matched = true;
    const verbs = new Set([...entry.verbs].filter((verb) => !removed.verbs.has(verb)));
    if (verbs.size > 0) grants.push(formatPermission({ ...entry, verbs }));
  }
  if (!matched) throw EntityNotFound(`no permission on '${removed.pattern}' to remove`, { fields: { permission: text } });
  await writeGrants(deps, row, grants);
  return grants;
}

function parsePermissionLenient(text: string): Permission | null {
  try {
    return parsePermission(text);
  } catch {
    return null;
  }
}
