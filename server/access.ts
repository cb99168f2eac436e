/**
 * Every access decision of the management API goes through these functions, so "who may call
 * what" lives in one place. The principal itself is resolved once per request by
 * middleware/principal.ts.
 */
import type { Context } from 'hono';
import type { Env } from './env.js';
import { Forbidden } from '../src/errors.js';
import type { Organization } from '../src/management/organizations.js';
import type { AdminUser } from '../src/management/admin-users.js';

/** POST /management/orgs and /management/users follow --signup (CONTRACT.md section 1). */
export function requireSignup(c: Context<Env>): void {
  const principal = c.var.principal;
  if (c.var.deps.config.signup === 'closed' && principal.kind !== 'sysadmin') {
    throw Forbidden('sign-up is closed on this server; ask an administrator');
  }
}

export function requireOrganizationAccess(c: Context<Env>, org: Organization): void {
  void c;
  void org;
}

export async function requireAdminUserAccess(c: Context<Env>, user: AdminUser): Promise<void> {
  void c;
  void user;
}
