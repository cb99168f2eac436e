/**
 * The permission rules of roles, users and groups (POST/GET …/permissions, DELETE
 * /roles/{roleId}/permissions?grant_url_pattern=…; docs/api.md#permissions): each rule is
 * `verbs:/path/pattern` (access/permissions.ts parses and matches it). They live in the entity's
 * `permissions` property (a string array that ordinary writes refuse, rules.ts), which
 * src/access/app-access.ts reads on every request: a change applies to the very next one.
 */
import { z } from 'zod';
import { EntityNotFound, IllegalArgument } from '../errors.js';
import type { Deps } from '../deps.js';
import { formatPermission, parsePermission, sameConditions, type Permission } from '../access/permissions.js';
import { updateEntityRow, type EntityRow } from '../db/entity-store.js';

/** Collections whose entities hold permission rules. */
export const PERMISSION_HOLDERS: ReadonlySet<string> = new Set(['roles', 'users', 'groups']);

/** A rule to add: `operation` + `resource_path`, or Usergrid's `{permission: "get,post:/path"}`. */
export const NewPermission = z.union([
  z.object({ permission: z.string().min(1, 'permission is required') }),
  z.object({
    operation: z.string().min(1, 'operation is required'),
    resource_path: z.string().min(1, 'resource_path is required'),
  }),
]);
export type NewPermission = z.infer<typeof NewPermission>;

export function listPermissions(row: EntityRow): string[] {
  const value = row.properties.permissions;
  return Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === 'string') : [];
}

function permissionText(input: NewPermission): string {
  return 'permission' in input ? input.permission : `${input.operation}:${input.resource_path}`;
}

async function writePermissions(deps: Deps, row: EntityRow, rules: string[]): Promise<EntityRow> {
  return await deps.db.transaction(async (tx) => updateEntityRow(tx, row, { ...row.properties, permissions: rules }, row.name, deps.now()));
}

/** Adds a permission rule; a rule already on the same path gains the new verbs. */
export async function addPermission(deps: Deps, row: EntityRow, input: unknown): Promise<string[]> {
  const parsed = NewPermission.safeParse(input);
  if (!parsed.success) {
    throw IllegalArgument('send {"permission": "get,post:/path"} or {"operation": "get,post", "resource_path": "/path"}', {
      fields: { permission: 'required' },
    });
  }
  const added = parsePermission(permissionText(parsed.data));
  const current = listPermissions(row).map(parsePermissionLenient);
  // One rule per path and demanded sign-in (access/permissions.ts): the same rule gains the verbs.
  const same = (entry: Permission | null) => entry !== null && entry.pattern === added.pattern && sameConditions(entry, added);
  const samePath = current.find(same);
  const merged: Permission = samePath ? { ...added, verbs: new Set([...samePath.verbs, ...added.verbs]) } : added;
  const kept = listPermissions(row).filter((_, i) => !same(current[i] ?? null));
  const rules = [...kept, formatPermission(merged)];
  await writePermissions(deps, row, rules);
  return rules;
}

/**
 * Removes a permission rule: `get,post:/path` takes those verbs away from `/path`; a bare `/path`
 * removes every verb on it; `…?acr=mfa` only from the rule that demands that sign-in. @throws AppError `entity_not_found` (404) when nothing matched.
 */
export async function removePermission(deps: Deps, row: EntityRow, text: string | undefined): Promise<string[]> {
  if (text === undefined || text.trim() === '') {
    throw IllegalArgument('name the permission to remove with ?permission= or ?grant_url_pattern=', { fields: { permission: 'required' } });
  }
  const removed = parsePermission(text.includes(':') ? text : `*:${text}`);
  let matched = false;
  const rules: string[] = [];
  for (const rule of listPermissions(row)) {
    const entry = parsePermissionLenient(rule);
    const conditioned = removed.acr !== undefined || removed.maxAge !== undefined;
    if (entry === null || entry.pattern !== removed.pattern || (conditioned && !sameConditions(entry, removed))) {
      rules.push(rule);
      continue;
    }
    matched = true;
    const verbs = new Set([...entry.verbs].filter((verb) => !removed.verbs.has(verb)));
    if (verbs.size > 0) rules.push(formatPermission({ ...entry, verbs }));
  }
  if (!matched) throw EntityNotFound(`no permission on '${removed.pattern}' to remove`, { fields: { permission: text } });
  await writePermissions(deps, row, rules);
  return rules;
}

function parsePermissionLenient(text: string): Permission | null {
  try {
    return parsePermission(text);
  } catch {
    return null;
  }
}
