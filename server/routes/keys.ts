/**
 * GET /management/keys: sysadmins see the published signing keys and which are active;
 * POST /management/keys/rotate: they rotate them (as `idp keys rotate` does).
 */
import { createRoute } from '@hono/zod-openapi';
import { responses } from '../openapi.js';
import { defineRoutes } from '../route-table.js';
import { ok } from '../envelope.js';
import { requireSysadmin } from '../access.js';
import { listSigningKeys, rotateSigningKeys } from '../../src/identity/keys/rotate-keys.js';

export const keyRoutes = defineRoutes('server/routes/keys.ts', (app) => {
  app.openapi(
    createRoute({
      method: 'get',
      path: '/keys',
      tags: ['Management'],
      summary: 'List the published signing keys and which are active (sysadmin)',
      responses: responses('Keys'),
    }),
    async (c) => {
      requireSysadmin(c);
      const keys = await listSigningKeys(c.get('deps'));
      return ok(c, { action: 'get keys', entities: keys.map((key) => ({ type: 'key', ...key })), count: true });
    },
  );
  app.openapi(
    createRoute({
      method: 'post',
      path: '/keys/rotate',
      tags: ['Management'],
      summary: 'Rotate the token signing keys (sysadmin)',
      responses: responses('Keys'),
    }),
    async (c) => {
      requireSysadmin(c);
      const rotated = await rotateSigningKeys(c.get('deps'));
      return ok(c, { action: 'rotate keys', entities: rotated.kids.map((kid) => ({ type: 'key', kid })), extra: { retired_until: rotated.retiredUntil } });
    },
  );
});
