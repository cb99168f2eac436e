/**
 * Every access decision of the management API goes through these functions, so "who may call
 * what" lives in one place (rules in src/access/policy.ts). The principal itself is resolved
 * once per request by middleware/principal.ts (through app.ts). No token → 401; a token without the right → 403.
 */
import type { Context } from 'hono';
import type { Env } from './env.js';
import { Forbidden, Unauthorized } from '../src/errors.js';
import type { Organization } from '../src/management/organizations.js';
import { listAdminOrganizations, type AdminUser } from '../src/management/admin-users.js';
import { isOrganizationAdmin } from '../src/access/policy.js';

function requireSignedIn(c: Context<Env>): void {
  if (c.get('principal').kind === 'guest') {
    throw Unauthorized('an access token is required', { headers: { 'WWW-Authenticate': 'Bearer' } });
  }
}

/** POST /management/orgs and /management/users follow --signup (CONTRACT.md section 1). */
export function requireSignup(c: Context<Env>): void {
  if (c.get('deps').config.signup === 'open' || c.get('principal').kind === 'sysadmin') return;
  requireSignedIn(c);
  throw Forbidden('sign-up is closed on this server; ask an administrator');
}

/** Server-wide operations such as key rotation. */
export function requireSysadmin(c: Context<Env>): void {
  requireSignedIn(c);
  if (c.get('principal').kind !== 'sysadmin') throw Forbidden('only a sysadmin may do this');
}

export async function requireOrganizationAccess(c: Context<Env>, org: Organization): Promise<void> {
  requireSignedIn(c);
  if (!(await isOrganizationAdmin(c.get('deps'), c.get('principal'), org.uuid))) {
    throw Forbidden(`you are not an administrator of organization '${org.name}'`);
  }
}

/**
 * An admin user's own record: the user themselves and sysadmins may change it; administrators
 * of an organization the user belongs to may read it.
 */
export async function requireAdminUserAccess(c: Context<Env>, user: AdminUser, mode: 'read' | 'write'): Promise<void> {
  requireSignedIn(c);
  const principal = c.get('principal');
  if (principal.kind === 'sysadmin') return;
  if ((principal.kind === 'admin' && principal.userUuid === user.uuid)) return;
  if (mode === 'read') {
    for (const org of await listAdminOrganizations(c.get('deps'), user.uuid)) {
      if (await isOrganizationAdmin(c.get('deps'), principal, org.uuid)) return;
    }
  }
  throw Forbidden(`you may not ${mode === 'read' ? 'read' : 'change'} admin user '${user.username}'`);
}
